import Foundation

/// The outcome of one run: what the runner reads from `SAMLH_RESULT_FILE`.
///
/// `resource` holds the bytes actually obtained (the protected page, the CAS validation
/// answer, the WS-Trust RSTR, the book's SHA-256 and Content-Type) — never a claim.
public struct ClientResult: Sendable, Equatable, Codable {
    /// `success` or `failure`.
    public enum Outcome: String, Sendable, Codable {
        case success, failure
    }

    public var outcome: Outcome
    /// What went wrong, in the server's words; empty on success.
    public var error: String
    /// The payload where the obtained resource is.
    public var resource: String
    /// Extra facts (final URL, status, counts).
    public var details: [String: String]

    /// Creates a result.
    public init(outcome: Outcome, error: String = "", resource: String = "", details: [String: String] = [:]) {
        self.outcome = outcome
        self.error = error
        self.resource = resource
        self.details = details
    }

    /// Exit code for the executable: 0 success, 1 failure.
    public var exitCode: Int32 { outcome == .success ? 0 : 1 }

    /// The result file's JSON (keys sorted).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes the JSON result atomically to `path`.
    public func write(to path: String) throws {
        try json().write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// A clean, reported failure: its message becomes the result's `error`.
struct ClientFailure: Error, CustomStringConvertible {
    var description: String
    var resource: String

    init(_ description: String, resource: String = "") {
        self.description = description
        self.resource = resource
    }
}
