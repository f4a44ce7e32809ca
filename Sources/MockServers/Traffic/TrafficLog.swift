import Foundation
import SAMLCore

/// Every request and response through every mock, in order of arrival. Thread-safe; shared
/// by all listeners of a ``MockSuite``. Checks read it; nothing in it is ever rewritten.
///
/// An entry gets its sequence number when its request arrives and is stored when its answer
/// is sent, so ``entries`` is ordered by arrival even when answers overtake each other.
public final class TrafficLog: Sendable {
    private struct State {
        var next = 0
        var entries: [Int: TrafficEntry] = [:]
        var currentRun: String?
        var dropped = 0
        var bodyBytes = 0
        /// Live observers (the console): each recorded entry is yielded to every one.
        var subscribers: [UInt64: AsyncStream<TrafficEntry>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    private let state = LockedValue(State())
    /// The most entries kept; beyond it the oldest are dropped (and counted).
    public let capacity: Int
    /// The most request and response body bytes kept; beyond it the oldest entries are
    /// dropped (and counted), so a flood of large bodies cannot grow the log without bound.
    public let maxBodyBytes: Int

    public init(capacity: Int = 200_000, maxBodyBytes: Int = 256 * 1024 * 1024) {
        self.capacity = capacity
        self.maxBodyBytes = maxBodyBytes
    }

    /// The scenario run that new entries are tagged with.
    public var currentRun: String? {
        get { state.withLock { $0.currentRun } }
        set { state.withLock { $0.currentRun = newValue } }
    }

    /// Reserves the next sequence number (call when a request arrives); returns it with the
    /// current run tag.
    public func reserve() -> (sequence: Int, run: String?) {
        state.withLock { state in
            defer { state.next += 1 }
            return (state.next, state.currentRun)
        }
    }

    public func record(_ entry: TrafficEntry) {
        let subscribers = state.withLock { state in
            if let replaced = state.entries.updateValue(entry, forKey: entry.sequence) {
                state.bodyBytes -= Self.bodyBytes(of: replaced)
            }
            state.bodyBytes += Self.bodyBytes(of: entry)
            while state.entries.count > 1, state.entries.count > capacity || state.bodyBytes > maxBodyBytes,
                  let oldest = state.entries.keys.min(), let removed = state.entries.removeValue(forKey: oldest) {
                state.bodyBytes -= Self.bodyBytes(of: removed)
                state.dropped += 1
            }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(entry) }
    }

    /// Every entry recorded from now on, as it is recorded (bounded: the oldest undelivered
    /// ones are dropped beyond `buffer`). The stream ends when the subscriber stops iterating
    /// or ``finishSubscribers()`` is called.
    public func subscribe(buffer: Int = 10_000) -> AsyncStream<TrafficEntry> {
        let (stream, continuation) = AsyncStream<TrafficEntry>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        let id = state.withLock { state in
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every live subscription (the server is stopping).
    public func finishSubscribers() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// The completed entries, in order of arrival.
    public var entries: [TrafficEntry] {
        state.withLock { $0.entries.values.sorted { $0.sequence < $1.sequence } }
    }

    /// Entries of one scenario run.
    public func entries(run: String) -> [TrafficEntry] { entries.filter { $0.run == run } }

    /// Requests that arrived (sequence numbers handed out), answered or not yet.
    public var arrived: Int { state.withLock { $0.next } }

    /// Body bytes (requests and answers) the log holds now.
    public var storedBodyBytes: Int { state.withLock { $0.bodyBytes } }

    private static func bodyBytes(of entry: TrafficEntry) -> Int {
        entry.request.body.count + (entry.response?.body.count ?? 0)
    }

    /// Entries dropped because the log was full.
    public var dropped: Int { state.withLock { $0.dropped } }

    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.dropped = 0
            state.bodyBytes = 0
        }
    }
}
