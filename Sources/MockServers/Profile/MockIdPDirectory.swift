import Foundation

/// Finds the `MockIdP/` directory that holds the profiles, first found wins:
/// 1. an explicit path (`--mockidp-dir`);
/// 2. `$SAMLH_MOCKIDP_DIR`;
/// 3. `$SAMLH_HOME/MockIdP` (`SAMLH_HOME`: a directory holding `MockIdP/` and `Scenarios/`);
/// 4. the first `MockIdP/` with a `keys/` folder walking up from the working directory, then
///    from the executable's real location (a checkout's `.build/release/samlharness`, wherever
///    it is called from);
/// 5. an installed copy beside the executable: `PREFIX/share/samlharness/MockIdP` for
///    `PREFIX/bin/samlharness`, or for `PREFIX/lib/samlharness/samlharness` (the package's
///    layout: `bin/samlharness` is a symbolic link into `lib/samlharness/`, where the
///    executables sit beside their resource bundles);
/// 6. `/usr/share/samlharness/MockIdP` (the Debian package's, for a copy of the executable
///    found elsewhere).
public enum MockIdPDirectory {
    /// Where the Debian package keeps the data.
    public static let systemDataDirectory = URL(fileURLWithPath: "/usr/share/samlharness")

    public static func locate(explicit: String? = nil) throws -> URL {
        try locate(explicit: explicit, environment: ProcessInfo.processInfo.environment,
                   workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                   executableDirectory: ExecutableLocation.directory)
    }

    /// ``locate(explicit:)`` with the process's surroundings given (for tests).
    static func locate(explicit: String?, environment: [String: String], workingDirectory: URL, executableDirectory: URL,
                       systemDataDirectory: URL = systemDataDirectory) throws -> URL {
        if let explicit { return try check(URL(fileURLWithPath: explicit), source: "--mockidp-dir") }
        if let env = environment["SAMLH_MOCKIDP_DIR"], !env.isEmpty {
            return try check(URL(fileURLWithPath: env), source: "SAMLH_MOCKIDP_DIR")
        }
        if let home = environment["SAMLH_HOME"], !home.isEmpty {
            let candidate = URL(fileURLWithPath: home).appendingPathComponent("MockIdP")
            guard hasKeys(candidate) else {
                throw ConfigurationError(file: home, line: nil,
                                         message: "SAMLH_HOME names no directory holding MockIdP/ (with keys/) and Scenarios/")
            }
            return candidate
        }
        for start in [workingDirectory, executableDirectory] {
            var dir = start.standardizedFileURL
            for _ in 0..<8 {
                let candidate = dir.appendingPathComponent("MockIdP")
                if hasKeys(candidate) { return candidate }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        for installed in installedDirectories(executableDirectory: executableDirectory)
            + [systemDataDirectory.appendingPathComponent("MockIdP")] where hasKeys(installed) {
            return installed
        }
        throw ConfigurationError(file: "MockIdP", line: nil,
                                 message: "cannot find the MockIdP/ directory (with keys/) above \(workingDirectory.path), beside "
                                    + "\(executableDirectory.path) or in \(systemDataDirectory.path); pass --mockidp-dir, or set "
                                    + "SAMLH_HOME (a directory holding MockIdP/ and Scenarios/) or SAMLH_MOCKIDP_DIR")
    }

    /// Where an installed `samlharness` keeps its data: `PREFIX/share/samlharness/MockIdP` for
    /// an executable in `PREFIX/bin` or in `PREFIX/lib/samlharness`.
    public static func installedDirectories(executableDirectory: URL) -> [URL] {
        let parent = executableDirectory.standardizedFileURL.deletingLastPathComponent()
        return [parent, parent.deletingLastPathComponent()].map { $0.appendingPathComponent("share/samlharness/MockIdP") }
    }

    /// Whether `directory` is an installed copy, not a checkout: under `share/samlharness/`, or
    /// beside the `build-info` file that `scripts/package.sh` writes (a copy moved elsewhere and
    /// named by `SAMLH_HOME`). Nothing is written beside an installed copy.
    public static func isInstalled(_ directory: URL) -> Bool {
        let url = directory.standardizedFileURL
        return url.path.contains("/share/samlharness/")
            || FileManager.default.fileExists(atPath: url.deletingLastPathComponent().appendingPathComponent("build-info").path)
    }

    static func hasKeys(_ candidate: URL) -> Bool {
        FileManager.default.fileExists(atPath: candidate.appendingPathComponent("keys").path)
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
