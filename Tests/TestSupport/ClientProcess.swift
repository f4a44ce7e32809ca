import Foundation

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

    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                let out = Pipe()
                let err = Pipe()
                process.standardOutput = out
                process.standardError = err
                process.standardInput = FileHandle.nullDevice
                do {
                    try ProcessIO.launch(process)
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
                nonisolated(unsafe) var stderrData = Data()
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().async {
                    stderrData = ProcessIO.readAll(err.fileHandleForReading)
                    group.leave()
                }
                let stdoutData = ProcessIO.readAll(out.fileHandleForReading)
                group.wait()
                process.waitUntilExit()
                killer.cancel()
                continuation.resume(returning: Outcome(status: process.terminationStatus,
                                                       stdout: String(decoding: stdoutData, as: UTF8.self),
                                                       stderr: String(decoding: stderrData, as: UTF8.self)))
            }
        }
    }
}
