import Foundation

/// Credentials from an `Authorization: Basic …` (or `Proxy-Authorization`) header,
/// RFC 7617 §2: base64 of `user-id ":" password`, decoded as UTF-8 (§2.1 `charset="UTF-8"`).
public struct AuthorizationBasic: Sendable, Equatable {
    public let username: String
    public let password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// nil when the header is absent, not Basic, not base64, not UTF-8, or has no colon.
    public init?(header: String?) {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Basic") == .orderedSame,
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(validating: Array(data), as: UTF8.self),
              let colon = text.firstIndex(of: ":") else { return nil }
        self.username = String(text[..<colon])
        self.password = String(text[text.index(after: colon)...])
    }

    /// The header value a client sends.
    public var headerValue: String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}
