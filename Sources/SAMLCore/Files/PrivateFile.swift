import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets (keys, unredacted traffic, unmasked reports, passwords), private to
/// this user from the first byte: never a moment when another user can read them.
///
/// `FileManager.createFile(atPath:contents:attributes:)` and `Data.write(to:options: .atomic)`
/// on Linux write a temporary file with the default mode (0644 under the usual umask 0022),
/// rename it, and only then chmod it: in that window anyone on the machine can open it and
/// keep the descriptor. ``write(_:to:)`` instead opens a temporary name in the target's own
/// directory with `O_CREAT|O_EXCL` and mode 0600 (a umask can only narrow it), writes
/// everything, fsyncs, and renames it over the target (POSIX `rename(2)`: atomic, and it
/// replaces a symbolic link at the target rather than following it).
public enum PrivateFile {
    /// The mode of the files written here: read and write for the owner only.
    public static let fileMode: mode_t = 0o600
    /// The mode of the directories made here.
    public static let directoryMode: mode_t = 0o700

    /// What could not be done, and the system's reason (`strerror`).
    public struct Failure: Error, CustomStringConvertible, LocalizedError, Sendable {
        public let description: String
        public init(_ description: String) { self.description = description }
        public var errorDescription: String? { description }
    }

    /// Writes `data` to `path`, mode 0600 from its creation, replacing what was there.
    public static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let temporary = (directory as NSString).appendingPathComponent(".\(url.lastPathComponent).\(suffix).tmp")
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var done = false
        defer {
            if !done { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            // A umask such as 0277 leaves 0400; the owner still writes through this descriptor.
            // fchmod makes it exactly 0600, never wider.
            guard fchmod(fd, fileMode) == 0 else { throw failure("cannot set the mode of \(temporary)") }
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let count = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw failure("cannot write \(temporary)")
                    }
                    offset += count
                }
            }
            guard fsync(fd) == 0 else { throw failure("cannot flush \(temporary)") }
        }
        guard rename(temporary, path) == 0 else { throw failure("cannot rename \(temporary) to \(path)") }
        done = true
        // The rename itself, on disk.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// ``write(_:to:)`` of a string's UTF-8.
    public static func write(_ text: String, to path: String) throws {
        try write(Data(text.utf8), to: path)
    }

    /// Makes `path` a directory of mode 0700: made so (its missing parents with the usual
    /// mode), or, when it exists and belongs to this user, its mode changed to 0700. A
    /// directory that belongs to another user, or a file that is not a directory, is an error.
    public static func makeDirectory(_ path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw Failure("cannot make the directory \(parent): \(error.localizedDescription)")
            }
        }
        if mkdir(path, directoryMode) == 0 {
            // A umask could have narrowed it below 0700: make it exactly 0700.
            guard chmod(path, directoryMode) == 0 else { throw failure("cannot set the mode of \(path)") }
            return
        }
        guard errno == EEXIST else { throw failure("cannot make the directory \(path)") }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw failure("cannot read \(path)") }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure("\(path) exists and is not a directory")
        }
        guard status.st_uid == getuid() else {
            throw Failure("\(path) belongs to another user (uid \(status.st_uid)): it cannot be made private; choose a directory of your own")
        }
        if status.st_mode & 0o7777 != directoryMode {
            guard chmod(path, directoryMode) == 0 else { throw failure("cannot set the mode of \(path) to 0700") }
        }
    }

    /// Creates an empty file at `path`, mode 0600 from its creation, for a writer that appends
    /// to it. A file already there is removed first, not truncated: whoever opened the old one
    /// keeps reading the old one, never what is written next.
    public static func createEmpty(_ path: String) throws {
        if unlink(path) != 0, errno != ENOENT { throw failure("cannot replace \(path)") }
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard fd >= 0 else { throw failure("cannot create \(path)") }
        defer { close(fd) }
        guard fchmod(fd, fileMode) == 0 else { throw failure("cannot set the mode of \(path)") }
    }

    private static func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, bytes, count)
        #else
        Darwin.write(fd, bytes, count)
        #endif
    }

    private static func failure(_ what: String) -> Failure {
        Failure("\(what): \(String(cString: strerror(errno)))")
    }
}
