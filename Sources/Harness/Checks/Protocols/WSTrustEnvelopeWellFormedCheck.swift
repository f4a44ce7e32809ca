import Foundation
import MockServers
import SAMLCore

/// `wstrust.envelope-well-formed`: the RST is SOAP 1.2 as `application/soap+xml`, with
/// WS-Addressing Action, To and MessageID and a `wsu:Timestamp` (WS-Trust 1.3 §4.1; SOAP 1.2
/// Part 2 §7.1.4; WS-Security 1.1 §10).
struct WSTrustEnvelopeWellFormedCheck: Check {
    static let id = "wstrust.envelope-well-formed"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let requests = WSTrustTraffic.requests(context.entries)
        guard !requests.isEmpty else { return .notApplicable("no RequestSecurityToken was sent to AD FS") }
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for entry in requests {
            let wrong = findings(entry)
            if wrong.isEmpty {
                fine.append(ProtocolTraffic.evidence(entry, "SOAP 1.2 with Action, To, MessageID and a Timestamp"))
            } else {
                problems.append(ProtocolTraffic.evidence(entry, wrong.joined(separator: "; "),
                                                         excerpt: ProtocolTraffic.excerpt(entry.request.bodyText, limit: 800)))
            }
        }
        if !problems.isEmpty {
            return .fail("the RequestSecurityToken envelope is not what WS-Trust over SOAP 1.2 requires", problems)
        }
        return .pass("\(fine.count) well-formed RequestSecurityToken envelope(s)", fine)
    }

    private func findings(_ entry: TrafficEntry) -> [String] {
        var wrong: [String] = []
        let type = entry.request.header("Content-Type")
        if ProtocolTraffic.mediaType(type) != "application/soap+xml" {
            wrong.append("Content-Type is \(type ?? "missing"), not application/soap+xml (SOAP 1.2 Part 2 §7.1.4)")
        }
        guard case .success(let document) = ProtocolTraffic.parseXML(entry.request.body) else {
            return wrong + ["the body is not well-formed XML"]
        }
        let root = document.root
        guard root.is("Envelope", WSTrustTraffic.soap12) else {
            return wrong + ["the root is {\(root.namespaceURI ?? "")}\(root.localName), not a SOAP 1.2 Envelope"]
        }
        let header = root.firstChild("Header", WSTrustTraffic.soap12)
        let action = WSTrustTraffic.child(header, "Action", WSTrustTraffic.addressing)?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let expectedAction = WSTrustTraffic.issueAction(entry)
        if action == nil {
            wrong.append("no wsa:Action")
        } else if action != expectedAction {
            wrong.append("wsa:Action is \(action!), not \(expectedAction)")
        }
        if WSTrustTraffic.child(header, "To", WSTrustTraffic.addressing) == nil { wrong.append("no wsa:To") }
        if WSTrustTraffic.child(header, "MessageID", WSTrustTraffic.addressing) == nil { wrong.append("no wsa:MessageID") }
        let timestamp = header?.firstChild("Security", WSTrustTraffic.wsse)?.firstChild("Timestamp", WSTrustTraffic.wsu)
        if timestamp?.firstChild("Created", WSTrustTraffic.wsu) == nil { wrong.append("no wsse:Security/wsu:Timestamp with wsu:Created") }
        return wrong
    }
}
