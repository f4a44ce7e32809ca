import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starting child processes and reading their pipes safely from many tests at once.
/// swift-corelibs-foundation's `Process.run()` is not safe to call from several threads at
/// the same time (it crashed in a memcpy under load), and `FileHandle.availableData` /
/// `readDataToEndOfFile()` end in a `try!` that traps on `EINTR` — which SIGCHLD from the
/// many short-lived clients the suites start makes likely. So: one launch at a time, and
/// reads on the raw descriptor that retry on `EINTR`.
public enum ProcessIO {
    private static let launchLock = NSLock()

    /// `process.run()`, one at a time across the test process.
    public static func launch(_ process: Process) throws {
        try launchLock.withLock { try process.run() }
    }

    /// Reads until end of file.
    public static func readAll(_ handle: FileHandle) -> Data {
        var data = Data()
        while let chunk = read(handle), !chunk.isEmpty { data.append(chunk) }
        return data
    }

    /// Reads until a newline has arrived (or end of file); returns everything read.
    public static func readLine(_ handle: FileHandle) -> Data {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")), let chunk = read(handle), !chunk.isEmpty { data.append(chunk) }
        return data
    }

    /// Reads until a newline has arrived, end of file, or `deadline`; returns everything read
    /// and whether the deadline ended it. Blocks its thread: call it from a thread of its own.
    public static func readLine(_ handle: FileHandle, deadline: Date) -> (data: Data, timedOut: Bool) {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (data, true) }
            var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { continue }
            guard let chunk = read(handle), !chunk.isEmpty else { break }
            data.append(chunk)
        }
        return (data, false)
    }

    /// One `read(2)`, retried on `EINTR`; nil on an error, empty at end of file.
    static func read(_ handle: FileHandle) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return nil }
        }
    }
}
