import Foundation

/// `samlharness serve …` run as a user runs it: started, its ready line read and parsed,
/// stopped with SIGTERM (and waited for) when the test is done.
public final class ServeProcess: @unchecked Sendable {
    public let process: Process
    public let ready: [String: Any]
    /// The ready line as printed.
    public let readyLine: String
    private let stderr: Pipe
    private let stdout: Pipe
    /// What the process printed on stdout after its ready line (read by ``stop(signal:)``).
    public private(set) var stdoutAfterReady = ""

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    private init(process: Process, stdout: Pipe, stderr: Pipe, ready: [String: Any], readyLine: String) {
        self.process = process
        self.stdout = stdout
        self.stderr = stderr
        self.ready = ready
        self.readyLine = readyLine
    }

    /// Starts `samlharness COMMAND ARGUMENTS` (`serve` by default; `record` too prints a
    /// ready line) and waits for its ready line (or its exit, or `readyTimeout`) on a thread
    /// of its own: the waiting never holds a thread of the cooperative pool, which the
    /// in-process mocks of other tests answer from (issue 37). The launch itself (a moment)
    /// happens here, one at a time across the test process (``ProcessIO/launch(_:)``).
    /// `environment`: variables added to this process's own.
    /// `executable`: another program than samlharness (a test's stand-in that is slow to print
    /// its ready line), run as `EXECUTABLE COMMAND ARGUMENTS`.
    public static func start(_ arguments: [String], command: String = "serve", environment: [String: String] = [:],
                             readyTimeout: TimeInterval = 120, executable: URL? = nil) async throws -> ServeProcess {
        PoolWatchdog.start()
        let process = Process(), stdout = Pipe(), stderr = Pipe()
        process.executableURL = executable ?? HarnessBinary.url
        process.arguments = [command] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try ProcessIO.launch(process)
        let reader = stdout.fileHandleForReading
        let (buffer, timedOut) = await Self.offPool {
            ProcessIO.readLine(reader, deadline: Date(timeIntervalSinceNow: readyTimeout))
        }
        guard let line = String(data: buffer, encoding: .utf8)?.split(separator: "\n").first,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            if timedOut { kill(process.processIdentifier, SIGKILL) }
            let errors = await Self.offPool {
                process.waitUntilExit()
                return String(decoding: ProcessIO.readAll(stderr.fileHandleForReading), as: UTF8.self)
            }
            throw StartFailure(description: timedOut
                ? "\(command) printed no ready line within \(Int(readyTimeout)) s (killed): \(errors)"
                : "\(command) exited \(process.terminationStatus) without a ready line: \(errors)")
        }
        return ServeProcess(process: process, stdout: stdout, stderr: stderr, ready: object, readyLine: String(line))
    }

    /// `work` on a thread of its own (it blocks), its result handed back.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// `ready[section][key]` as a string.
    public func url(_ section: String, _ key: String) -> String? {
        (ready[section] as? [String: Any])?[key] as? String
    }

    /// Sends SIGTERM (or `signal`), waits for the exit on a thread of its own, returns the
    /// status and what went to stderr; what went to stdout after the ready line is then in
    /// ``stdoutAfterReady``.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) async -> (status: Int32, stderr: String) {
        await Self.offPool { self.stopBlocking(signal: signal) }
    }

    /// Sends SIGTERM (or `signal`) and returns at once, for a `defer` (which cannot wait):
    /// the process ends on its own, and ``deinit`` kills what still runs.
    public func terminate(signal: Int32 = SIGTERM) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// ``stop(signal:)`` on the calling thread, which it blocks for up to 30 s.
    private func stopBlocking(signal: Int32) -> (status: Int32, stderr: String) {
        // The signal, repeated every 5 s while the process lives (a signal that raced the
        // process's handler set-up would otherwise be lost and the test hang).
        var sent = 0
        while process.isRunning, sent < 6 {
            kill(process.processIdentifier, signal)
            sent += 1
            for _ in 0..<500 where process.isRunning { usleep(10_000) }
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let errors = String(decoding: ProcessIO.readAll(stderr.fileHandleForReading), as: UTF8.self)
        stdoutAfterReady = String(decoding: ProcessIO.readAll(stdout.fileHandleForReading), as: UTF8.self)
        return (process.terminationStatus, errors)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
