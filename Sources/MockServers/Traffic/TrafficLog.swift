import Foundation
import Synchronization

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
    }

    private let state = Mutex(State())
    /// The most entries kept; beyond it the oldest are dropped (and counted).
    public let capacity: Int

    public init(capacity: Int = 200_000) {
        self.capacity = capacity
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
        state.withLock { state in
            state.entries[entry.sequence] = entry
            if state.entries.count > capacity, let oldest = state.entries.keys.min() {
                state.entries[oldest] = nil
                state.dropped += 1
            }
        }
    }

    /// The completed entries, in order of arrival.
    public var entries: [TrafficEntry] {
        state.withLock { $0.entries.values.sorted { $0.sequence < $1.sequence } }
    }

    /// Entries of one scenario run.
    public func entries(run: String) -> [TrafficEntry] { entries.filter { $0.run == run } }

    /// Requests that arrived (sequence numbers handed out), answered or not yet.
    public var arrived: Int { state.withLock { $0.next } }

    /// Entries dropped because the log was full.
    public var dropped: Int { state.withLock { $0.dropped } }

    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.dropped = 0
        }
    }
}
