import Foundation

/// Finds the `MockIdP/` directory that holds the profiles: an explicit path, else
/// `$SAMLH_MOCKIDP_DIR`, else the first `MockIdP/` with a `keys/` folder found walking up from
/// the working directory and then from the executable's real location (a checkout's
/// `.build/release/samlharness`, wherever it is called from), else an installed copy in
/// `PREFIX/share/samlharness/MockIdP` beside `PREFIX/bin/samlharness`.
public enum MockIdPDirectory {
    public static func locate(explicit: String? = nil) throws -> URL {
        if let explicit { return try check(URL(fileURLWithPath: explicit), source: "--mockidp-dir") }
        if let env = ProcessInfo.processInfo.environment["SAMLH_MOCKIDP_DIR"], !env.isEmpty {
            return try check(URL(fileURLWithPath: env), source: "SAMLH_MOCKIDP_DIR")
        }
        let executableDirectory = ExecutableLocation.directory
        let starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), executableDirectory]
        for start in starts {
            var dir = start.standardizedFileURL
            for _ in 0..<8 {
                let candidate = dir.appendingPathComponent("MockIdP")
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("keys").path) { return candidate }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        let installed = installedDirectory(executableDirectory: executableDirectory)
        if FileManager.default.fileExists(atPath: installed.appendingPathComponent("keys").path) { return installed }
        throw ConfigurationError(file: "MockIdP", line: nil,
                                 message: "cannot find the MockIdP/ directory (with keys/) above \(FileManager.default.currentDirectoryPath); pass --mockidp-dir or set SAMLH_MOCKIDP_DIR")
    }

    /// Where an installed `samlharness` (`PREFIX/bin`) keeps its data: `PREFIX/share/samlharness/MockIdP`.
    public static func installedDirectory(executableDirectory: URL) -> URL {
        executableDirectory.deletingLastPathComponent().appendingPathComponent("share/samlharness/MockIdP")
    }

    /// Whether `directory` is an installed copy (under `share/samlharness/`), not a checkout:
    /// nothing is written beside it.
    public static func isInstalled(_ directory: URL) -> Bool {
        directory.standardizedFileURL.path.contains("/share/samlharness/")
    }

    static func check(_ url: URL, source: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError(file: url.path, line: nil, message: "\(source) names no directory")
        }
        return url
    }

    /// The profile names under `directory` (folders with a `profile.yaml`), sorted.
    public static func profileNames(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).appendingPathComponent("profile.yaml").path)
        }.sorted()
    }
}
