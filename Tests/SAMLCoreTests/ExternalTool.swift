import Foundation
import TestSupport

/// Runs an external program (xmlsec1, python3-saml scripts) and captures its outcome.
struct ExternalTool {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try ProcessIO.launch(process)
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty tool cannot block.
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
        return Outcome(status: process.terminationStatus,
                       stdout: String(decoding: stdoutData, as: UTF8.self),
                       stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// Path of `name` on PATH, or nil.
    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func temporaryFile(_ contents: String, suffix: String = ".xml") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-\(UUID().uuidString)\(suffix)")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}
