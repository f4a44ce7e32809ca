import Foundation
import MockServers

/// `cas.service-url-exact`: a ticket is validated naming exactly the service the client asked
/// it for (CAS Protocol 3.0 §2.5.1, §3.1.1).
struct CASServiceURLExactCheck: Check {
    static let id = "cas.service-url-exact"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var issued: [String: CASTraffic.Issue] = [:]
        for issue in CASTraffic.issues(context.entries) where issued[issue.ticket] == nil { issued[issue.ticket] = issue }
        var problems: [Evidence] = []
        var exact: [Evidence] = []
        for validation in CASTraffic.validations(context.entries) {
            guard let issue = issued[validation.ticket], let requested = issue.requestedService else { continue }
            guard let service = validation.service, !service.isEmpty else {
                problems.append(ProtocolTraffic.evidence(validation.entry, "the validation names no service (the ticket was issued at #\(issue.entry.sequence) for \(requested))"))
                continue
            }
            if service == requested {
                let bound = issue.boundService.map { "; the server bound it to \($0) itself" } ?? ""
                exact.append(ProtocolTraffic.evidence(validation.entry, "validated for the service asked at #\(issue.entry.sequence)\(bound)",
                                                      excerpt: service))
            } else {
                problems.append(ProtocolTraffic.evidence(
                    validation.entry, "validated for another service than the one asked at #\(issue.entry.sequence) (\(difference(requested, service)))",
                    excerpt: "asked:     \(requested)\nvalidated: \(service)"))
            }
        }
        if !problems.isEmpty {
            return .fail("a ticket was validated for a service other than the one it was issued for", problems)
        }
        guard !exact.isEmpty else { return .notApplicable("no ticket issued in this run was validated") }
        return .pass("every validation named exactly the service its ticket was asked for", exact)
    }

    /// A few words on how two service strings differ.
    private func difference(_ asked: String, _ validated: String) -> String {
        let trimmedA = asked.hasSuffix("/") ? String(asked.dropLast()) : asked
        let trimmedV = validated.hasSuffix("/") ? String(validated.dropLast()) : validated
        if trimmedA == trimmedV { return "a trailing slash" }
        if asked.lowercased() == validated.lowercased() { return "letter case" }
        let schemeless = { (s: String) in s.split(separator: ":", maxSplits: 1).last.map(String.init) ?? s }
        if schemeless(asked) == schemeless(validated) { return "the scheme" }
        if asked.removingPercentEncoding == validated.removingPercentEncoding { return "percent-encoding" }
        return "the strings differ"
    }
}
