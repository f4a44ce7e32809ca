import Foundation

/// Remembers assertion IDs until their validity ends, so the same assertion is accepted
/// once only (saml-profiles-2.0-os §4.1.4.5: "the service provider MUST ensure that bearer
/// assertions are not replayed"). Thread-safe.
public final class ReplayCache: @unchecked Sendable {
    private var seen: [String: Date] = [:]
    private let lock = NSLock()
    /// Most IDs kept; the oldest-expiring are dropped first past it.
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Records `id` until `expiry`; returns false when it was already there and still live.
    public func insert(_ id: String, until expiry: Date, now: Date) -> Bool {
        lock.withLock {
            if let until = seen[id], until > now { return false }
            if seen.count >= capacity {
                seen = seen.filter { $0.value > now }
                if seen.count >= capacity, let oldest = seen.min(by: { $0.value < $1.value }) {
                    seen.removeValue(forKey: oldest.key)
                }
            }
            seen[id] = expiry
            return true
        }
    }

    public var count: Int { lock.withLock { seen.count } }
}
