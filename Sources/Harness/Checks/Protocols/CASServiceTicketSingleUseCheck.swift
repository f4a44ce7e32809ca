import Foundation
import MockServers

/// `cas.service-ticket-single-use`: no service ticket is presented for validation twice
/// (CAS Protocol 3.0 §3.1.1).
struct CASServiceTicketSingleUseCheck: Check {
    static let id = "cas.service-ticket-single-use"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let validations = CASTraffic.validations(context.entries).filter { !$0.ticket.isEmpty }
        guard !validations.isEmpty else { return .notApplicable("no ticket was presented for validation") }
        var uses: [String: [CASTraffic.Validation]] = [:]
        var order: [String] = []
        for validation in validations {
            if uses[validation.ticket] == nil { order.append(validation.ticket) }
            uses[validation.ticket, default: []].append(validation)
        }
        var problems: [Evidence] = []
        for ticket in order {
            let presented = uses[ticket] ?? []
            // A presentation refused before the ticket was used (a pgtUrl CAS could not call)
            // leaves the ticket valid; the next one is its first use.
            let counted = presented.filter(\.consumedTicket).count
            guard counted > 1 else { continue }
            problems += presented.map {
                ProtocolTraffic.evidence($0.entry, "\(ticket) presented (answer: \($0.result))", excerpt: ProtocolTraffic.describe($0.entry))
            }
        }
        if !problems.isEmpty {
            return .fail("a service ticket was presented more than once", problems)
        }
        return .pass("each of \(order.count) ticket(s) was presented once",
                     order.compactMap { uses[$0]?.first }.map { ProtocolTraffic.evidence($0.entry, "\($0.ticket) presented once") })
    }
}
