import Foundation

/// Credentials from an `Authorization: Basic …` (or `Proxy-Authorization`) header,
/// RFC 7617 §2: base64 of `user-id ":" password`. The mocks advertise `charset="UTF-8"`
/// (§2.1) and decode UTF-8; bytes that are not UTF-8 are read as ISO-8859-1, as servlet
/// containers do, and ``charset`` says so — python-requests, for one, sends Latin-1.
public struct AuthorizationBasic: Sendable, Equatable {
    public let username: String
    public let password: String
    /// `UTF-8`, or `ISO-8859-1` when the bytes were not UTF-8.
    public let charset: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
        self.charset = "UTF-8"
    }

    /// nil when the header is absent, not Basic, not base64, or has no colon.
    public init?(header: String?) {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Basic") == .orderedSame,
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)) else { return nil }
        let text: String
        if let utf8 = String(validating: Array(data), as: UTF8.self) {
            text = utf8
            charset = "UTF-8"
        } else {
            text = String(String.UnicodeScalarView(data.map { Unicode.Scalar($0) }))
            charset = "ISO-8859-1"
        }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        self.username = String(text[..<colon])
        self.password = String(text[text.index(after: colon)...])
    }

    /// The header value a client sends.
    public var headerValue: String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}
