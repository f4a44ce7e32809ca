import Foundation
import SAMLCore
import Synchronization
import Testing

/// ``LockedValue``: `withLock` excludes, in whichever build it is (`Mutex`, or a pthread mutex
/// under `SAMLH_TSAN_LOCKS` in scripts/tsan.sh).
@Suite struct LockedValueTests {
    struct Counter {
        var total = 0
    }

    /// What the threads share: the counter, and how many are inside its `withLock` now.
    final class Shared: Sendable {
        let counter = LockedValue(Counter())
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let started = Atomic<Int>(0)
    }

    /// Eight threads, started together, each add 2,000 with a read, a pause (sometimes asleep)
    /// and a write inside `withLock`, and an atomic counts the times one found another inside.
    /// Without exclusion increments are lost and the overlaps are not 0 (a lock that lets
    /// everyone in failed both in 10 runs out of 10).
    @Test func concurrentIncrementsGiveTheExactTotal() async {
        let shared = Shared()
        let threads = 8, increments = 2_000
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread.detachNewThread {
                            // All start together, so their critical sections meet.
                            shared.started.wrappingAdd(1, ordering: .sequentiallyConsistent)
                            while shared.started.load(ordering: .sequentiallyConsistent) < threads {}
                            for _ in 0..<increments {
                                shared.counter.withLock { counter in
                                    if shared.inside.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue > 1 {
                                        shared.overlaps.wrappingAdd(1, ordering: .relaxed)
                                    }
                                    let read = counter.total
                                    for _ in 0..<20 { _ = shared.inside.load(ordering: .relaxed) }
                                    // Now and then asleep inside: the others are let in, unless
                                    // the lock holds them off.
                                    if read % 200 == 0 { Thread.sleep(forTimeInterval: 0.000_2) }
                                    counter.total = read + 1
                                    shared.inside.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                                }
                            }
                            done.resume()
                        }
                    }
                }
            }
        }
        #expect(shared.counter.withLock { $0.total } == threads * increments)
        #expect(shared.overlaps.load(ordering: .relaxed) == 0)
    }

    /// A typed error thrown inside passes through as that type, and the lock is released: the
    /// next `withLock` gets in and sees the change made before the throw.
    @Test func aTypedThrowReleasesTheLock() {
        struct Refused: Error {}
        let counter = LockedValue(Counter())
        #expect(throws: Refused.self) {
            try counter.withLock { (counter: inout Counter) throws(Refused) in
                counter.total = 7
                throw Refused()
            }
        }
        #expect(counter.withLock { $0.total } == 7)
    }
}
