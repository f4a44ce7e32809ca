import Foundation
import MockServers
import SAMLCore

/// `cas.service-encoded`: the service parameter is percent-encoded as a whole in login, ticket
/// and validation requests, so CAS decodes the very string the client meant (CAS Protocol 3.0
/// §2.1.1, §2.5.1).
struct CASServiceEncodedCheck: Check {
    static let id = "cas.service-encoded"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        // The service the client was given (cas-rest) or sent to CAS by the application's
        // redirect (cas-browser: the same URL, unless a knob has CAS rewrite it).
        let rewrites = (context.scenario.knobs ?? []).contains { $0.hasPrefix("cas-service-rewrite") }
        let intended = rewrites ? nil : context.target.parameters["CAS_SERVICE"]
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for entry in context.entries where entry.mock == "cas" {
            guard let (name, raw, decoded) = serviceParameter(entry) else { continue }
            var wrong: [String] = []
            // RFC 3986 §2.1 / WHATWG form decoding: these bytes change what the server reads.
            if raw.contains("+") { wrong.append("a raw `+` (CAS decodes it as a space; `+` is %2B)") }
            if raw.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
                wrong.append("a raw space, control or non-ASCII character")
            }
            if PercentEncoding.firstMalformedEscape(in: raw) != nil { wrong.append("a `%` not followed by two hex digits") }
            if let intended, decoded != intended {
                if intended.hasPrefix(decoded), let next = intended.dropFirst(decoded.count).first, next == "&" || next == "#" {
                    wrong.append("the value stops at the service's own `\(next)`: the service's query was not encoded")
                } else if String(decoding: PercentEncoding.percentDecode(intended, plusAsSpace: false), as: UTF8.self) == decoded {
                    wrong.append("the service's own %-escapes were decoded, not encoded (`%` is %25)")
                } else if String(decoding: PercentEncoding.percentDecode(decoded, plusAsSpace: false), as: UTF8.self) == intended {
                    wrong.append("the service was percent-encoded twice (CAS reads `\(decoded.prefix(40))…`)")
                }
            }
            if wrong.isEmpty {
                fine.append(ProtocolTraffic.evidence(entry, "`\(name)` encoded as a whole", excerpt: raw))
            } else {
                let expected = intended.map { "\nintended: \($0)" } ?? ""
                problems.append(ProtocolTraffic.evidence(entry, "`\(name)` is not percent-encoded as a whole: " + wrong.joined(separator: "; "),
                                                         excerpt: "sent:    \(raw)\ndecoded: \(decoded)" + expected))
            }
        }
        if !problems.isEmpty {
            return .fail("a service parameter reached CAS encoded wrong", problems)
        }
        guard !fine.isEmpty else { return .notApplicable("no request to CAS named a service") }
        return .pass("\(fine.count) service parameter(s) percent-encoded as a whole", fine)
    }

    /// The service a CAS request names: its parameter name, the raw value and the decoded one.
    private func serviceParameter(_ entry: TrafficEntry) -> (String, String, String)? {
        let request = entry.request
        let name: String
        let parameters: [QueryParameter]
        if request.path.hasPrefix("/cas/v1/tickets/"), request.method == "POST" {
            (name, parameters) = ("service", request.formFields)
        } else if request.path == "/cas/samlValidate" {
            (name, parameters) = ("TARGET", request.query)
        } else if request.path == "/cas/proxy" {
            (name, parameters) = ("targetService", request.query)
        } else if request.path.hasPrefix("/cas/") {
            (name, parameters) = ("service", request.query)
        } else {
            return nil
        }
        guard let parameter = parameters.first(named: name) else { return nil }
        return (name, parameter.rawValue, parameter.value)
    }
}
