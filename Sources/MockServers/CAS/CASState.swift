import Foundation
import SAMLCore

/// A dictionary that forgets its oldest entries past `limit`, so a client that loops cannot
/// make the mock grow without bound.
struct BoundedTable<Value: Sendable>: Sendable {
    private(set) var values: [String: Value] = [:]
    private var order: [String] = []
    let limit: Int

    init(limit: Int) { self.limit = limit }

    subscript(key: String) -> Value? {
        get { values[key] }
        set {
            guard let newValue else {
                values[key] = nil
                return
            }
            if values.updateValue(newValue, forKey: key) == nil {
                order.append(key)
                if order.count > limit * 2 { order.removeAll { values[$0] == nil } }
                while values.count > limit, !order.isEmpty {
                    values[order.removeFirst()] = nil
                }
            }
        }
    }
}

/// The CAS server's ticket registry and sessions (Apereo CAS's `TicketRegistry`), bounded.
final class CASState: Sendable {
    struct Store: Sendable {
        /// Numbers tickets as Apereo CAS does (`ST-1-…`, `ST-2-…`).
        var counter = 0
        var grantingTickets = BoundedTable<CASGrantingTicket>(limit: 50_000)
        var serviceTickets = BoundedTable<CASServiceTicket>(limit: 50_000)
        var logins = BoundedTable<CASLoginFlow>(limit: 50_000)
        var appSessions = BoundedTable<CASAppSession>(limit: 50_000)
    }

    let store = LockedValue(Store())

    func nextNumber() -> Int {
        store.withLock {
            $0.counter += 1
            return $0.counter
        }
    }

    func reset() { store.withLock { $0 = Store() } }

    // MARK: Granting tickets

    func save(_ ticket: CASGrantingTicket) { store.withLock { $0.grantingTickets[ticket.id] = ticket } }

    /// The granting ticket, unless unknown or older than `lifetime` (then it is removed).
    func grantingTicket(_ id: String, now: Date, lifetime: TimeInterval) -> CASGrantingTicket? {
        store.withLock { store in
            guard let ticket = store.grantingTickets[id] else { return nil }
            guard now.timeIntervalSince(ticket.created) <= lifetime else {
                store.grantingTickets[id] = nil
                return nil
            }
            return ticket
        }
    }

    /// Counts one more ticket granted; returns the count before (0: the first, "from new login").
    func countGrant(_ id: String) -> Int {
        store.withLock { store in
            guard var ticket = store.grantingTickets[id] else { return 0 }
            let before = ticket.ticketsGranted
            ticket.ticketsGranted += 1
            store.grantingTickets[id] = ticket
            return before
        }
    }

    /// Destroys a granting ticket and the service tickets it granted that are still unused
    /// (Apereo CAS `destroyTicketGrantingTicket` deletes a TGT's descendant tickets).
    @discardableResult
    func destroyGrantingTicket(_ id: String) -> CASGrantingTicket? {
        store.withLock { store in
            let ticket = store.grantingTickets[id]
            store.grantingTickets[id] = nil
            for (key, value) in store.serviceTickets.values where value.grantingTicket == id {
                store.serviceTickets[key] = nil
            }
            return ticket
        }
    }

    // MARK: Service and proxy tickets

    func save(_ ticket: CASServiceTicket) { store.withLock { $0.serviceTickets[ticket.id] = ticket } }

    /// What looking a ticket up for validation found.
    enum Lookup: Sendable {
        case unknown
        case expired(CASServiceTicket)
        case found(CASServiceTicket)
    }

    /// Looks a service or proxy ticket up for validation and uses it up, as Apereo CAS
    /// `DefaultCentralAuthenticationService.validateServiceTicket` does: an expired ticket is
    /// deleted; a live one counts a use and, being single-use, is deleted right away — before
    /// the service is compared, so a failed validation consumes it too. `reusable` keeps it
    /// (`cas-ticket-reusable`). Nothing is consumed with `peek`.
    func use(_ id: String, now: Date, lifetime: TimeInterval, reusable: Bool, peek: Bool = false) -> Lookup {
        store.withLock { store in
            guard var ticket = store.serviceTickets[id] else { return .unknown }
            guard now.timeIntervalSince(ticket.created) <= lifetime else {
                if !peek { store.serviceTickets[id] = nil }
                return .expired(ticket)
            }
            if peek { return .found(ticket) }
            ticket.validations += 1
            store.serviceTickets[id] = reusable ? ticket : nil
            return .found(ticket)
        }
    }

    // MARK: Login flows

    func save(_ flow: CASLoginFlow) { store.withLock { $0.logins[flow.execution] = flow } }

    /// Takes the flow out: an execution is good for one POST.
    func takeFlow(_ execution: String) -> CASLoginFlow? {
        store.withLock { store in
            let flow = store.logins[execution]
            store.logins[execution] = nil
            return flow
        }
    }

    // MARK: The protected application

    func save(appSession: CASAppSession, key: String) { store.withLock { $0.appSessions[key] = appSession } }

    func appSession(_ key: String) -> CASAppSession? { store.withLock { $0.appSessions[key] } }
}
