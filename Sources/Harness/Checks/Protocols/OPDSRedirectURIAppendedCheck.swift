import Foundation
import MockServers
import SAMLCore

/// `opds.redirect-uri-appended`: the client appends `redirect_uri` to an `authenticate` link's
/// href and keeps the link's own query (Library Simplified SAML authentication).
struct OPDSRedirectURIAppendedCheck: Check {
    static let id = "opds.redirect-uri-appended"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let calls = context.entries.filter { $0.mock == "cm" && $0.request.path == "/SAML/saml_authenticate" }
        guard !calls.isEmpty else { return .notApplicable("the client never opened an authenticate link") }
        let links = OPDSTraffic.authenticateLinks(context.entries)
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for call in calls {
            var wrong: [String] = []
            if (call.request.queryValue("redirect_uri") ?? "").isEmpty { wrong.append("no redirect_uri appended") }
            let sent = call.request.query
            // The link this call opened: the one naming the same IdP, else the first.
            let link = links.first { href in
                QueryParameter.parse(query(of: href)).first(named: "idp_entity_id")?.value == call.request.queryValue("idp_entity_id")
            } ?? links.first
            if let link {
                for parameter in QueryParameter.parse(query(of: link)) {
                    let value = sent.first(named: parameter.name)?.value
                    if value != parameter.value {
                        wrong.append("the link's `\(parameter.name)=\(parameter.rawValue)` arrived as \(value.map { "`\($0)`" } ?? "nothing")")
                    }
                }
            }
            let evidenceText = "link: \(link ?? "(no authentication document seen)")\nsent: \(call.request.target)"
            if wrong.isEmpty {
                fine.append(ProtocolTraffic.evidence(call, "redirect_uri appended to the link's href", excerpt: evidenceText))
            } else {
                problems.append(ProtocolTraffic.evidence(call, wrong.joined(separator: "; "), excerpt: evidenceText))
            }
        }
        if !problems.isEmpty {
            return .fail("the authenticate link was not opened with redirect_uri appended to its own query", problems)
        }
        return .pass("redirect_uri was appended to the authenticate link, its query kept", fine)
    }

    private func query(of href: String) -> String {
        guard let index = href.firstIndex(of: "?") else { return "" }
        return String(href[href.index(after: index)...].prefix { $0 != "#" })
    }
}
