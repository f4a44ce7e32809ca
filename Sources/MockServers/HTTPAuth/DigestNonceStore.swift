import Foundation
import SAMLCore

/// The nonces a Digest mock handed out, each with its realm, when it was issued and the
/// highest nonce count accepted with it (RFC 7616 §3.3 `nonce`, §3.4 `nc`; §5.5 on replay).
///
/// Bounded: beyond ``capacity`` nonces the oldest are forgotten, and a forgotten nonce is
/// answered like an expired one (`stale=true`), so a long run never grows without limit.
/// Nonce values are derived from a seed, a counter and the injected clock, so a run with a
/// fixed seed and clock hands out the same nonces every time.
final class DigestNonceStore: Sendable {
    /// What the store says about a nonce a client used with a correct `response`.
    enum Use: Equatable {
        /// Fresh and the count is higher than any before: accepted and recorded.
        case accepted
        /// Never issued, forgotten, or issued for another realm.
        case unknown
        /// Older than the lifetime.
        case expired
        /// The count is not higher than one already accepted with this nonce.
        case replayed(lastAccepted: UInt32)
    }

    private struct Record {
        var realm: String
        var issued: Date
        var lastCount: UInt32 = 0
    }

    private struct State {
        var records: [String: Record] = [:]
        var order: [String] = []
        var counter: UInt64 = 0
        var staleServed = false
    }

    private let state = LockedValue(State())
    let lifetime: TimeInterval
    let capacity: Int
    private let seed: String
    private let now: @Sendable () -> Date

    init(lifetime: TimeInterval, capacity: Int, seed: String, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
        self.seed = seed
        self.now = now
    }

    /// A new nonce for `realm`.
    func issue(realm: String) -> String {
        let issued = now()
        return state.withLock { state in
            state.counter += 1
            let material = "\(seed):\(state.counter):\(issued.timeIntervalSince1970)"
            let nonce = String(MessageDigest.sha256.hex(material).prefix(32))
            state.records[nonce] = Record(realm: realm, issued: issued)
            state.order.append(nonce)
            if state.order.count > capacity {
                let excess = state.order.count - capacity
                for old in state.order.prefix(excess) { state.records[old] = nil }
                state.order.removeFirst(excess)
            }
            return nonce
        }
    }

    /// Checks `nonce` for `realm` and, when fresh with a higher count, records `count`.
    func use(nonce: String, realm: String, count: UInt32) -> Use {
        let instant = now()
        return state.withLock { state in
            guard var record = state.records[nonce], record.realm == realm else { return .unknown }
            guard instant.timeIntervalSince(record.issued) <= lifetime else { return .expired }
            guard count > record.lastCount else { return .replayed(lastAccepted: record.lastCount) }
            record.lastCount = count
            state.records[nonce] = record
            return .accepted
        }
    }

    /// True the first time it is asked in this store's life, false after: the one right
    /// answer that meets a stale nonce under ``HTTPAuthMock/staleFirstSegment``.
    func staleOnce() -> Bool {
        state.withLock { state in
            guard !state.staleServed else { return false }
            state.staleServed = true
            return true
        }
    }

    /// Makes every nonce handed out so far expired (tests of `stale=true`).
    func expireAll() {
        state.withLock { state in
            for key in state.records.keys { state.records[key]?.issued = .distantPast }
        }
    }

    /// How many nonces are remembered.
    var count: Int { state.withLock { $0.records.count } }
}
