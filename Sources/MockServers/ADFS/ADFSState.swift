import Foundation
import SAMLCore

/// A signed-in user at AD FS: what the `MSISAuth` cookie stands for.
struct ADFSSession: Sendable {
    var user: TestUser
    var authnInstant: Date
    var sessionIndex: String
}

/// What the mock AD FS remembers between requests: sign-in sessions (`MSISAuth` cookie
/// values) and failed password counts. Thread-safe.
final class ADFSState: Sendable {
    private struct Storage {
        var sessions: [String: ADFSSession] = [:]
        var failures: [String: Int] = [:]
    }

    private let storage = LockedValue(Storage())

    func session(_ key: String) -> ADFSSession? { storage.withLock { $0.sessions[key] } }

    func save(session: ADFSSession, key: String) { storage.withLock { $0.sessions[key] = session } }

    func endSession(_ key: String) { _ = storage.withLock { $0.sessions.removeValue(forKey: key) } }

    /// Counts one more wrong password for `username`; returns the count.
    func recordFailure(_ username: String) -> Int {
        storage.withLock {
            $0.failures[username, default: 0] += 1
            return $0.failures[username] ?? 0
        }
    }

    func clearFailures(_ username: String) { _ = storage.withLock { $0.failures.removeValue(forKey: username) } }

    func reset() { storage.withLock { $0 = Storage() } }
}
