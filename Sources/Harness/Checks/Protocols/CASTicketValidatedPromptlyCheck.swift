import Foundation
import MockServers

/// `cas.ticket-validated-promptly`: each service ticket is validated within `max_delay` seconds
/// of its issue (CAS Protocol 3.0 §3.1.1: service tickets are short-lived).
struct CASTicketValidatedPromptlyCheck: Check {
    static let id = "cas.ticket-validated-promptly"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        // Proxy tickets are for the proxied service to validate, not the client.
        let issues = CASTraffic.issues(context.entries).filter { $0.entry.annotations["cas.proxy"] == nil }
        guard !issues.isEmpty else { return .notApplicable("CAS issued no service ticket") }
        let maxDelay = context.number("max_delay", check: Self.id) ?? 5
        let validations = CASTraffic.validations(context.entries)
        var problems: [Evidence] = []
        var prompt: [Evidence] = []
        for issue in issues {
            guard let first = validations.first(where: { $0.ticket == issue.ticket && $0.entry.sequence > issue.entry.sequence }) else {
                problems.append(ProtocolTraffic.evidence(issue.entry, "\(issue.ticket) was issued and never validated"))
                continue
            }
            let delay = first.entry.started.timeIntervalSince(ProtocolTraffic.answered(issue.entry))
            let seconds = String(format: "%.2f s", max(0, delay))
            if delay > maxDelay {
                problems.append(ProtocolTraffic.evidence(first.entry, "\(issue.ticket) validated \(seconds) after its issue at #\(issue.entry.sequence) (at most \(maxDelay) s)"))
            } else {
                prompt.append(ProtocolTraffic.evidence(first.entry, "\(issue.ticket) validated \(seconds) after its issue at #\(issue.entry.sequence)"))
            }
        }
        if !problems.isEmpty {
            return .fail("a service ticket was not validated within \(maxDelay) s of its issue", problems)
        }
        return .pass("every ticket was validated within \(maxDelay) s", prompt)
    }
}
