import Foundation
import SAMLCore

/// An SSO request the IdP is working on: what it answers, to whom.
struct PendingSSO: Sendable {
    var sp: KnownSP
    var requestID: String?
    var relayState: String?
    var forceAuthn: Bool
    var isPassive: Bool
    var nameIDFormat: String?
}

/// One login conversation (Spring Web Flow's "execution" in Shibboleth IdP): the pending
/// request, the step reached, and the single-use tokens the next POST must carry.
struct LoginFlow: Sendable {
    enum Step: String, Sendable { case login, secondFactor = "second-factor", consent }

    let key: String
    var pending: PendingSSO
    var step: Step
    /// Spring Web Flow's `e1sN` counter: N grows with each page.
    var stateNumber: Int
    var loginTicket: String
    var csrfToken: String
    var user: TestUser?
    var created: Date

    var execution: String { "e1s\(stateNumber)" }
}

/// A logged-in user at the IdP (`_idp_session`).
struct IdPSession: Sendable {
    var user: TestUser
    var authnInstant: Date
    var sessionIndex: String
    var rememberedConsent: Set<String>
}

/// The IdP's mutable state, bounded: flows, sessions, failed-password counts.
final class IdPState: Sendable {
    struct Store {
        var flows: [String: LoginFlow] = [:]
        var sessions: [String: IdPSession] = [:]
        var failures: [String: Int] = [:]
        var flowOrder: [String] = []
        var sessionOrder: [String] = []
    }

    static let maxFlows = 50_000
    static let maxSessions = 50_000

    let store = LockedValue(Store())

    func flow(_ key: String) -> LoginFlow? { store.withLock { $0.flows[key] } }

    func save(_ flow: LoginFlow) {
        store.withLock { store in
            if store.flows.updateValue(flow, forKey: flow.key) == nil {
                store.flowOrder.append(flow.key)
                if store.flowOrder.count > Self.maxFlows {
                    let evicted = store.flowOrder.removeFirst()
                    store.flows[evicted] = nil
                }
            }
        }
    }

    func endFlow(_ key: String) { store.withLock { $0.flows[key] = nil } }

    func session(_ key: String) -> IdPSession? { store.withLock { $0.sessions[key] } }

    func save(session: IdPSession, key: String) {
        store.withLock { store in
            if store.sessions.updateValue(session, forKey: key) == nil {
                store.sessionOrder.append(key)
                if store.sessionOrder.count > Self.maxSessions {
                    let evicted = store.sessionOrder.removeFirst()
                    store.sessions[evicted] = nil
                }
            }
        }
    }

    func endSession(_ key: String) { store.withLock { $0.sessions[key] = nil } }

    /// Counts a failed password for `username`; returns the count.
    func recordFailure(_ username: String) -> Int {
        store.withLock { store in
            store.failures[username, default: 0] += 1
            return store.failures[username, default: 0]
        }
    }

    func failures(_ username: String) -> Int { store.withLock { $0.failures[username, default: 0] } }

    func clearFailures(_ username: String) { store.withLock { $0.failures[username] = nil } }

    func reset() { store.withLock { $0 = Store() } }
}
