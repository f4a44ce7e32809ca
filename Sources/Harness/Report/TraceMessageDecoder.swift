import Foundation
import MockServers
import SAMLCore

/// Finds the protocol messages of one exchange and decodes them for people, the way
/// `samlharness decode` does: a `SAMLRequest`/`SAMLResponse` in a Redirect-binding query
/// (saml-bindings-2.0-os §3.4.4.1: base64 of raw DEFLATE) or `Location`, in a posted form
/// body or an auto-submitting HTML form (§3.5.4: plain base64), an artifact (§3.6), and XML
/// bodies (SOAP/PAOS for ECP, WS-Trust for AD FS, CAS validation answers) pretty-printed.
enum TraceMessageDecoder {
    static func messages(in entry: TrafficEntry) -> [DecodedMessage] {
        var found: [DecodedMessage] = []
        let request = entry.request
        if let query = request.rawQuery {
            found += fromQuery(query, url: request.url, location: "request.query")
        }
        let formFields = request.formFields
        for kind in SAMLMessageKind.allCases {
            guard let value = formFields.first(named: kind.parameterName)?.value else { continue }
            found.append(fromPost(value, kind: kind, relayState: formFields.first(named: "RelayState")?.value,
                                  location: "request.form"))
        }
        if let artifact = formFields.first(named: "SAMLart")?.value {
            found.append(DecodedMessage(location: "request.form", name: "SAMLart", xml: artifact))
        }
        if isXML(request.header("Content-Type"), request.body) {
            found.append(fromXML(request.body, location: "request.body"))
        }
        guard let response = entry.response else { return found }
        if let location = response.header("Location"), let index = location.firstIndex(of: "?") {
            found += fromQuery(String(location[location.index(after: index)...]), url: location,
                               location: "response.location")
        }
        let type = (response.header("Content-Type") ?? "").lowercased()
        if type.contains("html"), response.body.count <= HTMLFormParser.Limits().maxBytes {
            for form in HTMLFormParser.forms(in: response.bodyText) {
                for kind in SAMLMessageKind.allCases {
                    guard let value = form.value(kind.parameterName) else { continue }
                    found.append(fromPost(value, kind: kind, relayState: form.value("RelayState"), location: "response.form"))
                }
            }
        } else if isXML(response.header("Content-Type"), response.body) {
            found.append(fromXML(response.body, location: "response.body"))
        }
        return found
    }

    /// A query carrying `SAMLRequest`/`SAMLResponse` (Redirect binding) or `SAMLart`.
    static func fromQuery(_ query: String, url: String, location: String) -> [DecodedMessage] {
        let parameters = QueryParameter.parse(query)
        var found: [DecodedMessage] = []
        for kind in SAMLMessageKind.allCases where parameters.first(named: kind.parameterName) != nil {
            do {
                let message = try RedirectBinding.decode(url)
                found.append(DecodedMessage(location: location, name: kind.parameterName, xml: pretty(message.xml),
                                            relayState: message.relayState,
                                            findings: findings(message.deviations)))
            } catch let error as BindingError {
                found.append(DecodedMessage(location: location, name: kind.parameterName, error: "\(error.code): \(error.message)"))
            } catch {
                found.append(DecodedMessage(location: location, name: kind.parameterName, error: "\(error)"))
            }
        }
        if let artifact = parameters.first(named: "SAMLart")?.value {
            found.append(DecodedMessage(location: location, name: "SAMLart", xml: artifact))
        }
        return found
    }

    static func fromPost(_ value: String, kind: SAMLMessageKind, relayState: String?, location: String) -> DecodedMessage {
        do {
            let message = try PostBinding.decode(value, kind: kind, relayState: relayState)
            return DecodedMessage(location: location, name: kind.parameterName, xml: pretty(message.xml),
                                  relayState: message.relayState, findings: findings(message.deviations))
        } catch let error as BindingError {
            return DecodedMessage(location: location, name: kind.parameterName, error: "\(error.code): \(error.message)")
        } catch {
            return DecodedMessage(location: location, name: kind.parameterName, error: "\(error)")
        }
    }

    /// An XML body: a SOAP envelope (ECP, WS-Trust, CAS samlValidate) or a CAS answer.
    static func fromXML(_ body: [UInt8], location: String) -> DecodedMessage {
        let text = String(decoding: body, as: UTF8.self)
        let name: String
        if text.contains("RequestSecurityToken") {
            name = "WS-Trust"
        } else if text.contains("Envelope") {
            name = "SOAP"
        } else if text.contains("cas:serviceResponse") || text.contains("http://www.yale.edu/tp/cas") {
            name = "CAS"
        } else {
            name = "XML"
        }
        guard body.count <= TraceLimits.bodyBytes * 4 else {
            return DecodedMessage(location: location, name: name, error: "\(body.count) bytes: too large to pretty-print")
        }
        do {
            return DecodedMessage(location: location, name: name, xml: cap(try XMLDocument(parsing: body).prettyPrinted()))
        } catch {
            return DecodedMessage(location: location, name: name, error: "not well-formed XML: \(error)")
        }
    }

    static func isXML(_ contentType: String?, _ body: [UInt8]) -> Bool {
        guard !body.isEmpty else { return false }
        let type = (contentType ?? "").lowercased()
        if type.contains("html") || type.contains("json") || type.contains("form-urlencoded") { return false }
        if type.contains("xml") { return true }
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return false }
        return first == UInt8(ascii: "<") && type.isEmpty
    }

    static func pretty(_ xml: [UInt8]) -> String {
        cap((try? XMLDocument(parsing: xml).prettyPrinted()) ?? String(decoding: xml, as: UTF8.self))
    }

    static func cap(_ text: String) -> String {
        guard text.utf8.count > TraceLimits.bodyBytes else { return text }
        return (TraceBody(Array(text.utf8))?.text ?? "") + "\n… (truncated)"
    }

    static func findings(_ deviations: [EncodingDeviation]) -> [String]? {
        deviations.isEmpty ? nil : deviations.map { "\($0.code): \($0.message)" }
    }
}
