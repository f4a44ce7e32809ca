import Foundation
import SAMLCore

/// An IdP the circulation manager offers in its authentication document.
struct CMIdentityProvider: Sendable, Equatable {
    let entityID: String
    let ssoURL: String
    let displayName: String
    let description: String
    let logoURL: String
}

/// An AuthnRequest the circulation manager sent and waits for the answer to.
struct CMPendingLogin: Sendable {
    enum Purpose: Sendable, Equatable {
        /// `saml_authenticate`: the answer becomes a bearer token.
        case login
        /// A fulfilment that asked the user again (ForceAuthn); the answer unlocks the ticket.
        case reverify(ticket: String)
    }

    let requestID: String
    let relayState: String
    let idp: CMIdentityProvider
    let purpose: Purpose
}

/// The server-side record a bearer token names (the real circulation manager's `Credential`).
struct CMCredential: Sendable {
    let id: String
    let patron: String
    let idpEntityID: String
    var expires: Date
}

/// A loan of one work to one patron.
struct CMLoan: Sendable {
    let workID: String
    let key: String
    let start: Date
    let end: Date
}

/// A fulfilment under way (`cm-fulfill=redirect|reverify`).
struct CMFulfilment: Sendable {
    let ticket: String
    let patron: String
    let workID: String
    let idpEntityID: String
    /// Set by the chain's first hop; the download wants it back.
    let cookieValue: String
    /// False until the user has logged in again (`reverify`).
    var verified: Bool
}

/// The circulation manager's mutable state, bounded.
final class CMState: Sendable {
    struct Store {
        var pending: [String: CMPendingLogin] = [:]
        var pendingOrder: [String] = []
        var credentials: [String: CMCredential] = [:]
        var credentialOrder: [String] = []
        /// `session` cookie value → patron.
        var sessions: [String: String] = [:]
        /// patron → work id → loan.
        var loans: [String: [String: CMLoan]] = [:]
        var fulfilments: [String: CMFulfilment] = [:]
        /// `cm-expire-after-borrow` already revoked a token.
        var revokedAfterBorrow = false
    }

    static let capacity = 50_000
    let store = LockedValue(Store())
    let replayCache = ReplayCache(capacity: 100_000)

    func addPending(_ pending: CMPendingLogin) {
        store.withLock { store in
            store.pending[pending.requestID] = pending
            store.pendingOrder.append(pending.requestID)
            if store.pendingOrder.count > Self.capacity { store.pending[store.pendingOrder.removeFirst()] = nil }
        }
    }

    func pending(requestID: String) -> CMPendingLogin? { store.withLock { $0.pending[requestID] } }

    func consumePending(_ requestID: String) { store.withLock { _ = $0.pending.removeValue(forKey: requestID) } }

    func addCredential(_ credential: CMCredential, sessionKey: String) {
        store.withLock { store in
            store.credentials[credential.id] = credential
            store.sessions[sessionKey] = credential.patron
            store.credentialOrder.append(credential.id)
            if store.credentialOrder.count > Self.capacity { store.credentials[store.credentialOrder.removeFirst()] = nil }
        }
    }

    func credential(_ id: String) -> CMCredential? { store.withLock { $0.credentials[id] } }

    /// Revokes `id` if no token was revoked after a borrow yet; true when it did.
    func revokeOnceAfterBorrow(_ id: String, now: Date) -> Bool {
        store.withLock { store in
            guard !store.revokedAfterBorrow, store.credentials[id] != nil else { return false }
            store.revokedAfterBorrow = true
            store.credentials[id]?.expires = now
            return true
        }
    }

    func sessionPatron(_ key: String) -> String? { store.withLock { $0.sessions[key] } }

    /// The patron's loan of `workID`, creating it when there is none; `isNew` says which.
    func borrow(patron: String, workID: String, key: String, start: Date, end: Date) -> (loan: CMLoan, isNew: Bool) {
        store.withLock { store in
            if let loan = store.loans[patron]?[workID], loan.end > start { return (loan, false) }
            let loan = CMLoan(workID: workID, key: key, start: start, end: end)
            store.loans[patron, default: [:]][workID] = loan
            return (loan, true)
        }
    }

    func loans(of patron: String, at now: Date) -> [CMLoan] {
        store.withLock { ($0.loans[patron] ?? [:]).values.filter { $0.end > now }.sorted { $0.workID < $1.workID } }
    }

    func loan(of patron: String, workID: String, at now: Date) -> CMLoan? {
        store.withLock { $0.loans[patron]?[workID] }.flatMap { $0.end > now ? $0 : nil }
    }

    func addFulfilment(_ fulfilment: CMFulfilment) {
        store.withLock { store in
            if store.fulfilments.count >= Self.capacity { store.fulfilments.removeAll() }
            store.fulfilments[fulfilment.ticket] = fulfilment
        }
    }

    func fulfilment(_ ticket: String) -> CMFulfilment? { store.withLock { $0.fulfilments[ticket] } }

    func markVerified(_ ticket: String) { store.withLock { $0.fulfilments[ticket]?.verified = true } }

    func consumeFulfilment(_ ticket: String) { store.withLock { _ = $0.fulfilments.removeValue(forKey: ticket) } }

    func reset() { store.withLock { $0 = Store() } }
}
