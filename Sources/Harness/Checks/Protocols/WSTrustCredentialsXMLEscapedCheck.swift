import Foundation
import MockServers
import SAMLCore

/// `wstrust.credentials-xml-escaped`: the UsernameToken's username and password are
/// XML-escaped, so the envelope parses and the password read from it is the user's
/// (WS-Security UsernameToken Profile 1.1 §3.1; XML 1.0 §2.4).
struct WSTrustCredentialsXMLEscapedCheck: Check {
    static let id = "wstrust.credentials-xml-escaped"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let requests = WSTrustTraffic.requests(context.entries)
        guard !requests.isEmpty else { return .notApplicable("no RequestSecurityToken was sent to AD FS") }
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for entry in requests {
            let excerpt = WSTrustTraffic.passwordExcerpt(entry.request.bodyText)
            let document: XMLDocument
            switch ProtocolTraffic.parseXML(entry.request.body) {
            case .failure(let error):
                let fault = entry.annotations["adfs.fault"].map { "; AD FS answered \($0)" } ?? ""
                problems.append(ProtocolTraffic.evidence(entry, "the envelope is not well-formed XML (\(error))\(fault)", excerpt: excerpt))
                continue
            case .success(let parsed):
                document = parsed
            }
            guard let token = document.root.descendants("UsernameToken", WSTrustTraffic.wsse).first else {
                problems.append(ProtocolTraffic.evidence(entry, "no wsse:UsernameToken in the envelope"))
                continue
            }
            let username = token.firstChild("Username", WSTrustTraffic.wsse)?.text
            let password = token.firstChild("Password", WSTrustTraffic.wsse)?.text
            var wrong: [String] = []
            if let expected = context.target.username, username != expected {
                wrong.append("wsse:Username reads \(username.map { "`\($0)`" } ?? "nothing"), the user is `\(expected)`")
            }
            if let expected = context.target.password, password != expected {
                wrong.append("wsse:Password reads \(password.map { "`\($0)`" } ?? "nothing") after XML parsing, not the password the client was given")
            }
            if wrong.isEmpty {
                fine.append(ProtocolTraffic.evidence(entry, "the envelope parses and the UsernameToken reads back the user's credentials"))
            } else {
                problems.append(ProtocolTraffic.evidence(entry, wrong.joined(separator: "; "), excerpt: excerpt))
            }
        }
        if !problems.isEmpty {
            return .fail("the credentials were not XML-escaped right in the UsernameToken", problems)
        }
        return .pass("the credentials survived XML parsing unchanged in \(fine.count) request(s)", fine)
    }
}
