import Foundation
import SAMLCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``PrivateFile``: files with secrets are 0600 from their first byte, never 0644 for a moment;
/// directories 0700.
@Suite struct PrivateFileTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : 0o7777
    }

    @Test func writesModeSixHundredAndReplacesAWiderFile() throws {
        let directory = try Self.directory()
        let path = directory.appendingPathComponent("secret.pem").path
        try Data("old, public\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        try PrivateFile.write("-----BEGIN PRIVATE KEY-----\n", to: path)
        #expect(Self.mode(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "-----BEGIN PRIVATE KEY-----\n")
        // No temporary name is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["secret.pem"])
        // A symbolic link at the target is replaced, not followed.
        let elsewhere = directory.appendingPathComponent("elsewhere").path
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: elsewhere))
        let link = directory.appendingPathComponent("link.har").path
        symlink(elsewhere, link)
        try PrivateFile.write("secret", to: link)
        #expect(try String(contentsOfFile: elsewhere, encoding: .utf8) == "untouched")
        #expect(Self.mode(link) == 0o600)
    }

    @Test func aWriteIntoAMissingDirectoryFailsNamingIt() throws {
        let path = try Self.directory().appendingPathComponent("missing/secret").path
        #expect(throws: PrivateFile.Failure.self) { try PrivateFile.write("x", to: path) }
        do {
            try PrivateFile.write("x", to: path)
        } catch {
            #expect("\(error)".contains("missing") && "\(error)".contains("No such file"), "\(error)")
        }
    }

    /// A watcher thread lists the directory and stats every entry, over and over, while a
    /// 96 MiB file is written (long enough that the watcher sees the temporary name many times).
    /// Every mode it ever sees is 0600; the control, Foundation's `createFile(…attributes:
    /// 0600)`, shows the watcher can catch the window that helper closes.
    @Test func theFileIsNeverReadableByOthersWhileItIsWritten() throws {
        let directory = try Self.directory()
        let data = Data(repeating: 0x41, count: 96 << 20)

        // Always one entry to see: the watcher has started once it has seen it.
        try PrivateFile.write("", to: directory.appendingPathComponent(".marker").path)

        func watch(_ write: () throws -> Void) rethrows -> (seen: Int, names: Set<String>, wider: Set<String>) {
            let watcher = Watcher(directory: directory.path)
            Thread { watcher.run() }.start()
            defer { watcher.stop.store(true, ordering: .releasing) }
            while watcher.observed.withLock({ $0.seen }) == 0 { usleep(100) }
            watcher.observed.withLock { $0 = (0, [], []) }
            try write()
            return watcher.observed.withLock { $0 }
        }

        let ours = try watch { try PrivateFile.write(data, to: directory.appendingPathComponent("traffic.har").path) }
        // The watcher looked while the temporary file was being written.
        #expect(ours.names.contains { $0.hasPrefix(".traffic.har.") && $0.hasSuffix(".tmp") }, "seen: \(ours.names)")
        #expect(ours.wider.isEmpty, "readable by others during the write: \(ours.wider)")
        #expect(Self.mode(directory.appendingPathComponent("traffic.har").path) == 0o600)

        // The control: what the helper replaces does expose the file (on Linux's Foundation,
        // where createFile writes a temporary file with the default mode, then renames and chmods).
        #if os(Linux)
        let theirs = watch {
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("foundation.har").path, contents: data,
                                               attributes: [.posixPermissions: 0o600])
        }
        #expect(!theirs.wider.isEmpty, "the watcher saw \(theirs.seen) entries, none wider than 0600")
        #endif
    }

    /// Lists a directory and stats every entry until stopped.
    final class Watcher: Sendable {
        let directory: String
        let stop = Atomic<Bool>(false)
        let observed = LockedValue<(seen: Int, names: Set<String>, wider: Set<String>)>((0, [], []))

        init(directory: String) { self.directory = directory }

        func run() {
            while !stop.load(ordering: .acquiring) {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
                for name in names {
                    var status = stat()
                    guard lstat(directory + "/" + name, &status) == 0 else { continue }
                    let mode = status.st_mode & 0o7777
                    observed.withLock { seen in
                        seen.seen += 1
                        seen.names.insert(name)
                        if mode & 0o077 != 0 { seen.wider.insert("\(name) \(String(mode, radix: 8))") }
                    }
                }
            }
        }
    }

    @Test func directoriesAreMadeOrChangedToSevenHundred() throws {
        let base = try Self.directory()
        let made = base.appendingPathComponent("a/b/reports").path
        try PrivateFile.makeDirectory(made)
        #expect(Self.mode(made) == 0o700)
        let existing = base.appendingPathComponent("existing").path
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: false)
        chmod(existing, 0o755)
        try PrivateFile.makeDirectory(existing)
        #expect(Self.mode(existing) == 0o700)
        let file = base.appendingPathComponent("a-file").path
        try Data().write(to: URL(fileURLWithPath: file))
        #expect(throws: PrivateFile.Failure.self) { try PrivateFile.makeDirectory(file) }
    }

    @Test func createEmptyReplacesRatherThanTruncates() throws {
        let directory = try Self.directory()
        let path = directory.appendingPathComponent("results.jsonl").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        // Someone opened the old, readable file before it was replaced.
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? reader.close() }
        try PrivateFile.createEmpty(path)
        #expect(Self.mode(path) == 0o600)
        let appended = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        appended.write(Data("secret\n".utf8))
        try appended.close()
        // The old descriptor reads the old file, not the secret.
        #expect(String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) == "old\n")
    }
}
