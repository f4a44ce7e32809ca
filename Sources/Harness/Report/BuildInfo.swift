import Foundation
import MockServers

/// What `samlharness --version` says: `samlharness VERSION (COMMIT)`. VERSION is
/// ``HarnessVersion/current``; COMMIT comes from the `build-info` file that `scripts/package.sh`
/// writes into an installed copy's `share/samlharness/`, else, for a binary built in a checkout,
/// from git (`git rev-parse --short HEAD`, `-dirty` when tracked files differ from it), else
/// `unknown`.
public enum BuildInfo {
    /// The name of the file `scripts/package.sh` writes beside the installed data (`KEY=VALUE`
    /// lines: `version`, `commit`, `built`).
    public static let fileName = "build-info"

    /// `samlharness VERSION (COMMIT)`.
    public static func versionLine(executableDirectory: URL = ExecutableLocation.directory) -> String {
        "samlharness \(HarnessVersion.current) (\(commit(executableDirectory: executableDirectory)))"
    }

    /// The commit this executable was built from (see ``BuildInfo``).
    public static func commit(executableDirectory: URL) -> String {
        for data in MockIdPDirectory.installedDirectories(executableDirectory: executableDirectory) {
            let file = data.deletingLastPathComponent().appendingPathComponent(fileName)
            if let text = try? String(contentsOf: file, encoding: .utf8), let commit = value(of: "commit", in: text) {
                return commit
            }
        }
        return checkoutCommit(of: executableDirectory) ?? "unknown"
    }

    /// `KEY=VALUE` lines: the value of `key`, trimmed; nil when absent or empty.
    static func value(of key: String, in text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix(key + "=") {
            let value = line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The short commit of the SAMLHarness checkout `directory` is in (`-dirty` when tracked
    /// files differ from it); nil outside one, or without git.
    static func checkoutCommit(of directory: URL) -> String? {
        guard let top = git(["rev-parse", "--show-toplevel"], in: directory),
              FileManager.default.fileExists(atPath: URL(fileURLWithPath: top).appendingPathComponent("Sources/samlharness").path),
              let head = git(["rev-parse", "--short", "HEAD"], in: directory) else { return nil }
        // Exit status 1: tracked files differ from HEAD.
        let clean = git(["diff", "--quiet", "HEAD", "--"], in: directory) != nil
        return clean ? head : head + "-dirty"
    }

    /// Runs `git -C DIRECTORY ARGUMENTS…`: its trimmed output when it exits 0, else nil.
    /// Through ``ClientProcessRunner`` (posix_spawn), not Foundation's `Process`, which has
    /// crashed in processes running many children (the tests').
    static func git(_ arguments: [String], in directory: URL) -> String? {
        let command = (["git", "-C", directory.path] + arguments).map(ClientProcessRunner.shellQuoted).joined(separator: " ")
        let outcome = ClientProcessRunner().runBlocking(command: "exec " + command + " 2>/dev/null </dev/null", directory: nil,
                                                        environment: ProcessInfo.processInfo.environment, timeout: 20)
        guard outcome.launchError == nil, outcome.status == 0 else { return nil }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
