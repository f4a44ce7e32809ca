import Foundation

/// Reads input from outside (a file, standard input) without ever holding more than a limit
/// in memory: a 50 MB body is refused after `limit + 1` bytes, not read whole.
public enum BoundedInput {
    /// Why the input could not be read.
    public struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Reason: String, Sendable {
            case tooLarge = "input.too-large"
            case unreadable = "input.unreadable"
        }
        public let reason: Reason
        public let message: String
        public var description: String { "\(reason.rawValue): \(message)" }
    }

    /// Default limit for SAML messages read by the CLI: 4 MiB.
    public static let defaultLimit = 4 * 1024 * 1024

    /// Reads a file (`-` for standard input) up to `limit` bytes; more is an error naming the
    /// file and the limit. The bytes actually read are at most `limit + 1`.
    public static func read(path: String, limit: Int = defaultLimit) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Failure(reason: .unreadable, message: "\(path): no such file")
            }
            guard !isDirectory.boolValue else {
                throw Failure(reason: .unreadable, message: "\(path): is a directory")
            }
            guard let h = FileHandle(forReadingAtPath: path) else {
                throw Failure(reason: .unreadable, message: "\(path): cannot open for reading")
            }
            handle = h
        }
        defer { if path != "-" { try? handle.close() } }
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: min(64 * 1024, limit + 1 - bytes.count))
            } catch {
                throw Failure(reason: .unreadable, message: "\(path): \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            bytes.append(contentsOf: chunk)
        }
        if bytes.count > limit {
            let name = path == "-" ? "standard input" : path
            throw Failure(reason: .tooLarge, message: "\(name) is larger than the \(limit)-byte limit; refused without reading the rest")
        }
        return bytes
    }
}
