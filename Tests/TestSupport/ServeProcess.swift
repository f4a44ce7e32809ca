import Foundation

/// `samlharness serve …` run as a user runs it: started, its ready line read and parsed,
/// stopped with SIGTERM (and waited for) when the test is done.
public final class ServeProcess: @unchecked Sendable {
    public let process = Process()
    public let ready: [String: Any]
    /// The ready line as printed.
    public let readyLine: String
    private let stderr = Pipe()
    private let stdout = Pipe()
    /// What the process printed on stdout after its ready line (read by ``stop(signal:)``).
    public private(set) var stdoutAfterReady = ""

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `samlharness COMMAND ARGUMENTS` (`serve` by default; `record` too prints a
    /// ready line) and waits for its ready line (or its exit).
    /// `environment`: variables added to this process's own.
    public init(_ arguments: [String], command: String = "serve", environment: [String: String] = [:]) throws {
        process.executableURL = HarnessBinary.url
        process.arguments = [command] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try ProcessIO.launch(process)
        let buffer = ProcessIO.readLine(stdout.fileHandleForReading)
        guard let line = String(data: buffer, encoding: .utf8)?.split(separator: "\n").first,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            process.waitUntilExit()
            let errors = String(decoding: ProcessIO.readAll(stderr.fileHandleForReading), as: UTF8.self)
            throw StartFailure(description: "\(command) exited \(process.terminationStatus) without a ready line: \(errors)")
        }
        ready = object
        readyLine = String(line)
    }

    /// `ready[section][key]` as a string.
    public func url(_ section: String, _ key: String) -> String? {
        (ready[section] as? [String: Any])?[key] as? String
    }

    /// Sends SIGTERM (or `signal`), waits for the exit, returns the status and what went to
    /// stderr; what went to stdout after the ready line is then in ``stdoutAfterReady``.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> (status: Int32, stderr: String) {
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
