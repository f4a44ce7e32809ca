import Foundation

/// The user-pass of a `Basic` credentials value (RFC 7617 §2):
/// `base64(user-id ":" password)`, UTF-8 when the challenge said `charset="UTF-8"`
/// (RFC 7617 §2.1).
public struct BasicCredentials: Sendable, Equatable {
    public var username: String
    public var password: String
    /// The decoded user-pass bytes exactly as sent, before any UTF-8 decoding.
    public var userPass: [UInt8]
    /// How the user-pass was read: `UTF-8`, or `ISO-8859-1` when ``init(authorization:)``
    /// fell back to it.
    public var charset = "UTF-8"

    public init(username: String, password: String) {
        self.username = username
        self.password = password
        self.userPass = Array(username.utf8) + [UInt8(ascii: ":")] + Array(password.utf8)
    }

    /// Why a Basic credentials value could not be read; 400 material.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case notBase64(String)
        case noColon
        case notUTF8

        public var description: String {
            switch self {
            case .notBase64(let token): "the Basic credentials `\(token)` are not base64 (RFC 7617 §2)"
            case .noColon: "the decoded user-pass has no `:` between user-id and password (RFC 7617 §2)"
            case .notUTF8: "the decoded user-pass is not UTF-8, though the challenge asked for charset=\"UTF-8\" (RFC 7617 §2.1)"
            }
        }
    }

    /// Decodes the token68 of a Basic credentials value. The user-id ends at the first colon
    /// (RFC 7617 §2: a user-id containing a colon is invalid; the password may contain one).
    public static func decode(_ token68: String) -> Result<BasicCredentials, Failure> {
        guard let data = Data(base64Encoded: token68) else { return .failure(.notBase64(token68)) }
        let bytes = Array(data)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.noColon) }
        guard let username = String(bytes: bytes[..<colon], encoding: .utf8),
              let password = String(bytes: bytes[(colon + 1)...], encoding: .utf8) else {
            return .failure(.notUTF8)
        }
        var credentials = BasicCredentials(username: username, password: password)
        credentials.userPass = bytes
        return .success(credentials)
    }

    /// Lenient reading of a whole `Authorization: Basic …` value, for the mock IdP: bytes that
    /// are not UTF-8 are read as ISO-8859-1, as servlet containers do, and ``charset`` says so
    /// (python-requests, for one, sends Latin-1 whatever the challenge's `charset`). nil when
    /// the header is absent, not Basic, not base64, or has no colon.
    public init?(authorization header: String?) {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Basic") == .orderedSame else { return nil }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        switch Self.decode(token) {
        case .success(let credentials):
            self = credentials
        case .failure(.notUTF8):
            guard let data = Data(base64Encoded: token) else { return nil }
            let text = String(String.UnicodeScalarView(data.map { Unicode.Scalar($0) }))
            guard let colon = text.firstIndex(of: ":") else { return nil }
            self.init(username: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
            userPass = Array(data)
            charset = "ISO-8859-1"
        case .failure:
            return nil
        }
    }

    /// The token68 a client sends for these credentials (UTF-8, RFC 7617 §2.1).
    public var token68: String { Data(userPass).base64EncodedString() }

    /// The whole field value: `Basic <token68>`.
    public var headerValue: String { "Basic \(token68)" }

    /// Whether these are `username` and `password`, compared byte for byte: a client that
    /// sent another Unicode normalization form than the one configured does not match
    /// (RFC 7617 §2.1 asks clients for NFC).
    public func matches(username: String, password: String) -> Bool {
        Array(self.username.utf8) == Array(username.utf8) && Array(self.password.utf8) == Array(password.utf8)
    }
}
