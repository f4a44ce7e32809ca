import Foundation
import MockServers
import Testing
import TestSupport

/// Issue 37: the test support never holds a thread of the cooperative pool (on 2 cores, two
/// threads for every in-process mock). Here the machine is loaded on purpose — `serve` children
/// starting and stopping (their ready lines read, their exits waited for), a Kerberos-sized
/// external command, and a CPU burner on every core — while a client asks the in-process mocks
/// for their metadata again and again: every answer must come within a bound a healthy server
/// meets by orders of magnitude (it answers in milliseconds; the bound is seconds).
@Suite(.serialized) struct PoolStarvationTests {
    static let bound: Duration = .seconds(5)

    @Test func theInProcessMocksAnswerWhileChildrenStartStopAndTheCPUBurns() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let port = try #require(URLComponents(string: suite.readyInfo().idp.metadata)?.port)
            let path = try #require(URLComponents(string: suite.readyInfo().idp.metadata)?.path)
            // A burner per core, on threads of their own, for the length of the test.
            let burning = BurnFlag(true)
            for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
                Thread { var x = 0.0; while burning.value { x = (x + 1).squareRoot() } }.start()
            }
            defer { burning.value = false }
            let clock = ContinuousClock()
            let readyAt = Stamps()
            let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
                // Two serve children started and stopped at once, twice; and four children that
                // take six seconds to print their ready line (a serve on a loaded machine): a
                // test support that waited for them on the pool would hold both its threads.
                for _ in 0..<2 {
                    group.addTask {
                        for _ in 0..<2 {
                            let serve = try await ServeProcess.start(["--no-console", "--mockidp-dir", SuiteFixture.mockIdP.path])
                            _ = await serve.stop()
                        }
                        return []
                    }
                }
                for _ in 0..<4 {
                    group.addTask {
                        let slow = try await ServeProcess.start([#"sleep 6; echo '{"event": "ready"}'; exec sleep 60"#], command: "-c",
                                                                executable: URL(fileURLWithPath: "/bin/sh"))
                        #expect(slow.ready["event"] as? String == "ready")
                        readyAt.add(clock.now)
                        _ = await slow.stop()
                        return []
                    }
                }
                // An external command that takes a while (as the Kerberos realm's set-up does).
                group.addTask {
                    _ = try await ClientProcess.run("/bin/sh", ["-c", "sleep 2"], timeout: 30)
                    return []
                }
                // The client: one request after another for as long as the children run.
                group.addTask {
                    var seen: [Duration] = []
                    for _ in 0..<60 {
                        try await Task.sleep(for: .milliseconds(100))
                        let started = clock.now
                        let exchange = try await RawHTTPExchange.send(
                            port: port, head: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                        #expect(exchange.statusLine.contains("200"), "\(exchange.statusLine)")
                        seen.append(clock.now - started)
                    }
                    return seen
                }
                var all: [Duration] = []
                for try await part in group { all += part }
                return all
            }
            // Waited for side by side, the four slow children are ready within moments of one
            // another; waited for on the pool's threads, two at a time, six seconds apart.
            let ready = readyAt.all
            #expect(ready.count == 4)
            if let first = ready.min(), let last = ready.max() {
                #expect(last - first < .seconds(3), "the slow children's ready lines were waited for in turn: \(last - first) apart")
            }
            #expect(latencies.count == 60)
            let slowest = try #require(latencies.max())
            #expect(slowest < Self.bound, "an in-process mock answered after \(slowest): something blocked the pool")
        }
    }
}

/// A flag the burner threads read.
private final class BurnFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool
    init(_ value: Bool) { stored = value }
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// When each slow child was ready.
private final class Stamps: @unchecked Sendable {
    private let lock = NSLock()
    private var stamps: [ContinuousClock.Instant] = []
    func add(_ instant: ContinuousClock.Instant) { lock.withLock { stamps.append(instant) } }
    var all: [ContinuousClock.Instant] { lock.withLock { stamps } }
}
