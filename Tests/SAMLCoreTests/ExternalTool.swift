import Foundation
import TestSupport

/// Runs an external program (xmlsec1, python3-saml scripts) and captures its outcome.
struct ExternalTool {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) async throws -> Outcome {
        let outcome = try await ClientProcess.run(executable, arguments, stdin: stdin)
        return Outcome(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
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
