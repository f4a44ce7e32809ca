import Foundation
import MockServers

/// Finds the catalog folder: `$SAMLH_SCENARIOS_DIR`, else the `Scenarios/` beside the
/// `MockIdP/` directory in use, else the first `Scenarios/` walking up from the working
/// directory.
public enum ScenariosDirectory {
    public static func locate(mockIdP: URL?) throws -> URL {
        if let env = ProcessInfo.processInfo.environment["SAMLH_SCENARIOS_DIR"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        if let mockIdP {
            let sibling = mockIdP.deletingLastPathComponent().appendingPathComponent("Scenarios")
            if FileManager.default.fileExists(atPath: sibling.path) { return sibling }
        }
        var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
        for _ in 0..<8 {
            let candidate = dir.appendingPathComponent("Scenarios")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        throw ConfigurationError(file: "Scenarios", line: nil,
                                 message: "cannot find the Scenarios/ folder above \(FileManager.default.currentDirectoryPath); pass paths or set SAMLH_SCENARIOS_DIR")
    }
}
