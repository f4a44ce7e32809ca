import Foundation
import Harness

/// Runs a third-party client (python, curl…) off the cooperative thread pool, so the
/// in-process mocks keep answering while the test waits for it.
public enum ClientProcess {
    public struct Outcome: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public static let repository = SuiteFixture.repository

    public static var venvPython: String {
        let venv = ProcessInfo.processInfo.environment["SAMLH_INTEROP_VENV"].map {
            $0.hasPrefix("/") ? $0 : repository.appendingPathComponent($0).path
        } ?? repository.appendingPathComponent(".venv-interop").path
        return venv + "/bin/python"
    }

    public static var venvBin: String { URL(fileURLWithPath: venvPython).deletingLastPathComponent().path }

    /// The interop venv exists (or CI promises it; then a missing venv fails loudly).
    public static var interopAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: venvPython) || ProcessInfo.processInfo.environment["CI"] != nil
    }

    public static func script(_ name: String) -> String {
        repository.appendingPathComponent("Tests/Interop/\(name)").path
    }

    /// Runs `executable` with `arguments` (and `stdin`), stopped after `timeout` seconds.
    /// Started with `posix_spawn` in a process group of its own on a thread of its own
    /// (Harness's ClientProcessRunner): swift-corelibs-foundation's `Process.run()` crashed
    /// (a memcpy inside it) while many clients ran in this test process.
    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60,
                           stdin: String? = nil) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runSync(executable, arguments, timeout: timeout, stdin: stdin) })
            }
            thread.start()
        }
    }

    /// ``run(_:_:timeout:stdin:)`` on the calling thread, which it blocks: never from async
    /// code (a blocked thread of the cooperative pool stalls every in-process mock; issue 37).
    @available(*, noasync, message: "blocks a thread of the cooperative pool: use `try await ClientProcess.run(…)`")
    public static func runSync(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60,
                               stdin: String? = nil) throws -> Outcome {
        var input: URL?
        if let stdin {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("stdin-\(UUID().uuidString)")
            try Data(stdin.utf8).write(to: url)
            input = url
        }
        defer { if let input { try? FileManager.default.removeItem(at: input) } }
        let command = ([executable] + arguments).map(ClientProcessRunner.shellQuoted).joined(separator: " ")
        var runner = ClientProcessRunner()
        runner.outputLimit = 32 << 20
        let outcome = runner.runBlocking(command: "exec " + command, directory: nil,
                                         environment: ProcessInfo.processInfo.environment,
                                         timeout: timeout, stdinFile: input?.path)
        if let launchError = outcome.launchError { throw LaunchError(description: launchError) }
        return Outcome(status: outcome.status ?? -1, stdout: outcome.stdout, stderr: outcome.stderr)
    }

    public struct LaunchError: Error, CustomStringConvertible {
        public let description: String
    }
}
