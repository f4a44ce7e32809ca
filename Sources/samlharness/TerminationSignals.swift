import Dispatch
import Foundation

/// SIGINT and SIGTERM, caught from the moment this is made: `serve` makes it before its ready
/// line goes out (so a client that stops it right after reading the line is heard), `run`
/// before its first scenario (so an interrupted run still writes its results and reports).
final class TerminationSignals: @unchecked Sendable {
    private let stream: AsyncStream<String>
    private var sources: [any DispatchSourceSignal] = []

    init() {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        self.stream = stream
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            sources.append(source)
        }
        // libdispatch installs its handler asynchronously; until it has, SIG_IGN drops the
        // signal. The ready line waits for the handlers, so a stop sent right after it is heard.
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, ![SIGINT, SIGTERM].allSatisfy(Self.handled) {
            usleep(1_000)
        }
    }

    /// Whether a handler (not SIG_IGN) is installed for `number`.
    static func handled(_ number: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return true }
        let handler = current.__sigaction_handler.sa_handler
        return unsafeBitCast(handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Waits for the first signal; returns its name.
    func wait() async -> String {
        var iterator = stream.makeAsyncIterator()
        // The sources stay: a second signal during the stop is caught and ignored, never
        // the default action that would kill the process mid-way through its verdicts.
        return await iterator.next() ?? "end"
    }
}
