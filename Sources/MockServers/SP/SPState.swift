import Foundation
import SAMLCore

/// An AuthnRequest the SP sent and is waiting for an answer to.
struct SPPendingRequest: Sendable {
    let requestID: String
    /// `ss:mem:<hex>`, as Shibboleth SP's in-memory relay state.
    let relayState: String
    let target: String
    /// The ACS URL the request asked for.
    let acsURL: String
    let nameIDFormat: String?
    let created: Date
}

/// A session at the SP (`_shibsession_…`).
public struct SPSession: Sendable, Codable, Equatable {
    public let secret: String
    public let nameID: String
    public let nameIDFormat: String?
    public let attributes: [String: [String]]
    public let identityProvider: String
    public let sessionIndex: String?
    public let authnInstant: Date
    public let clientAddress: String?
    public let protocolBinding: String
}

/// The SP's mutable state, bounded.
final class SPState: Sendable {
    struct Store {
        var byRelayState: [String: SPPendingRequest] = [:]
        var byRequestID: [String: SPPendingRequest] = [:]
        var order: [String] = []
        var sessions: [String: SPSession] = [:]
        var sessionOrder: [String] = []
        /// Sessions that served their page once (the `sp-session-ends` knob).
        var used: Set<String> = []
    }

    static let maxPending = 50_000
    static let maxSessions = 50_000
    let store = LockedValue(Store())
    let replayCache = ReplayCache(capacity: 100_000)

    func add(_ pending: SPPendingRequest) {
        store.withLock { store in
            store.byRelayState[pending.relayState] = pending
            store.byRequestID[pending.requestID] = pending
            store.order.append(pending.requestID)
            if store.order.count > Self.maxPending {
                let evicted = store.order.removeFirst()
                if let old = store.byRequestID.removeValue(forKey: evicted) { store.byRelayState[old.relayState] = nil }
            }
        }
    }

    func pending(relayState: String) -> SPPendingRequest? { store.withLock { $0.byRelayState[relayState] } }
    func pending(requestID: String) -> SPPendingRequest? { store.withLock { $0.byRequestID[requestID] } }

    func consume(_ pending: SPPendingRequest) {
        store.withLock { store in
            store.byRelayState[pending.relayState] = nil
            store.byRequestID[pending.requestID] = nil
        }
    }

    func session(_ key: String) -> SPSession? { store.withLock { $0.sessions[key] } }

    func save(_ session: SPSession, key: String) {
        store.withLock { store in
            store.sessions[key] = session
            store.sessionOrder.append(key)
            if store.sessionOrder.count > Self.maxSessions {
                store.sessions[store.sessionOrder.removeFirst()] = nil
            }
        }
    }

    func endSession(_ key: String) { store.withLock { $0.sessions[key] = nil } }

    /// Marks the session used; true when it already was (`sp-session-ends`: it then ends).
    func useOnce(_ key: String) -> Bool {
        store.withLock { store in
            guard store.used.insert(key).inserted else {
                store.sessions[key] = nil
                store.used.remove(key)
                return true
            }
            if store.used.count > Self.maxSessions { store.used.removeAll() }
            return false
        }
    }

    var sessionCount: Int { store.withLock { $0.sessions.count } }

    func reset() { store.withLock { $0 = Store() } }
}
