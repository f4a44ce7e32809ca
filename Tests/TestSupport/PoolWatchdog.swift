import Foundation

/// Names the moments the test process's cooperative pool was held up (issue 37): a task that
/// asks to wake every 250 ms and, when it wakes more than a second late, says so on stderr
/// with the time and how late — the mark a blocking call on a pool thread leaves, or long
/// synchronous work that keeps its threads busy (on 2 cores the pool has two threads, and
/// every in-process mock answers from them). Started once, by the first ``SuiteFixture`` or
/// ``ServeProcess``; its lines end up in the test log beside the tests that were running then.
public enum PoolWatchdog {
    /// How late a wake-up must be to be named.
    public static let threshold: Duration = .seconds(1)
    static let tick: Duration = .milliseconds(250)

    /// Starts the watchdog (once per process; later calls do nothing).
    public static func start() { _ = started }

    private static let started: Task<Void, Never> = Task.detached(priority: .high) {
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let before = clock.now
            try? await Task.sleep(for: tick)
            let late = clock.now - before - tick
            if late > threshold {
                let seconds = Double(late.components.seconds) + Double(late.components.attoseconds) / 1e18
                let line = "pool watchdog: the cooperative pool answered " + String(format: "%.1f", seconds)
                    + " s late at \(ISO8601DateFormatter().string(from: Date())): its threads were blocked (a blocking call) "
                    + "or busy (long synchronous work)\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
    }
}
