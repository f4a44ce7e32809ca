import Foundation

/// The user and password `samlharness record` asks of its clients (`Proxy-Authorization: Basic`,
/// RFC 9110 §11.7.2 and RFC 7617). Given with `--proxy-user USER:PASS`, or made at random for
/// the session when the proxy listens beyond loopback.
public struct ProxyCredentials: Sendable, Equatable {
    public let user: String
    public let password: String

    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `USER:PASS` (the first colon separates them, RFC 7617 §2: a user-id has no colon).
    public init(_ text: String) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw Invalid(description: "--proxy-user \(text.isEmpty ? "''" : "…"): expected USER:PASSWORD")
        }
        let user = String(text[..<colon])
        let password = String(text[text.index(after: colon)...])
        guard !user.isEmpty, !password.isEmpty else {
            throw Invalid(description: "--proxy-user: expected USER:PASSWORD, both non-empty")
        }
        guard !(user + password).unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Invalid(description: "--proxy-user: control characters are not allowed in the user or the password")
        }
        self.init(user: user, password: password)
    }

    /// A user `samlh` and a password of 22 letters and digits (about 130 bits) from the system's
    /// random source: no character needs escaping in `http://USER:PASSWORD@HOST:PORT`.
    public static func random() -> ProxyCredentials {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let password = String((0..<22).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
        return ProxyCredentials(user: "samlh", password: password)
    }

    /// The challenge a 407 carries (RFC 9110 §11.7.1).
    static let challenge = "Basic realm=\"samlharness record\", charset=\"UTF-8\""

    /// Whether one of the `Proxy-Authorization` values is Basic with this user and password.
    /// Compared in constant time over the decoded bytes.
    func accepts(_ values: [String]) -> Bool {
        let expected = Array("\(user):\(password)".utf8)
        var accepted = false
        for value in values {
            let parts = value.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "basic",
                  let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)) else { continue }
            accepted = Self.constantTimeEqual(Array(decoded), expected) || accepted
        }
        return accepted
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0 && a.count == b.count
    }
}
