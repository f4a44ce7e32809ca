import Foundation
import MockServers

/// `opds.bearer-token-sent`: borrow, loans and fulfil requests carry `Authorization: Bearer`
/// with a token the login's redirect handed out (RFC 6750 §2.1; Library Simplified circulation API).
struct OPDSBearerTokenSentCheck: Check {
    static let id = "opds.bearer-token-sent"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let calls = context.entries.filter(OPDSTraffic.isProtected)
        guard !calls.isEmpty else { return .notApplicable("the client made no borrow, loans or fulfil request") }
        let issued = OPDSTraffic.issuedTokens(context.entries)
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for call in calls {
            guard let field = call.request.header("Authorization") else {
                problems.append(ProtocolTraffic.evidence(call, "no Authorization header", excerpt: ProtocolTraffic.describe(call)))
                continue
            }
            let parts = field.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else {
                problems.append(ProtocolTraffic.evidence(call, "Authorization is not `Bearer <token>`", excerpt: "Authorization: " + field))
                continue
            }
            let token = parts[1].trimmingCharacters(in: .whitespaces)
            if let source = issued.last(where: { $0.token == token && $0.entry.sequence < call.sequence }) {
                fine.append(ProtocolTraffic.evidence(call, "Bearer token from the redirect at #\(source.entry.sequence)"))
            } else {
                problems.append(ProtocolTraffic.evidence(call, "the Bearer token is none the login redirect handed out before",
                                                         excerpt: ProtocolTraffic.excerpt(token, limit: 120)))
            }
        }
        if !problems.isEmpty {
            return .fail("\(problems.count) circulation request(s) without the Bearer token from the login", problems)
        }
        return .pass("every borrow, loans and fulfil request carried the Bearer token", fine)
    }
}
