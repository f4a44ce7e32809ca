import Foundation

/// The parameters of a `Digest` credentials value (RFC 7616 §3.4), read and checked for form
/// only: whether they are *right* (user, password, nonce, counter) is the mock's business.
public struct DigestCredentials: Sendable, Equatable {
    /// The username as sent: plain, decoded from `username*` (RFC 7616 §3.4 with RFC 8187),
    /// or the hex hash when ``userhash`` is true (RFC 7616 §3.4.4).
    public var username: String
    public var userhash: Bool
    public var realm: String
    public var nonce: String
    /// The request-target the client hashed (RFC 7616 §3.4: `uri`).
    public var uri: String
    public var response: String
    public var algorithm: HTTPDigestAlgorithm
    public var qop: String
    /// The nonce count as sent: eight hex digits (RFC 7616 §3.4).
    public var nc: String
    public var cnonce: String
    public var opaque: String?

    /// The nonce count as a number.
    public var nonceCount: UInt32 { UInt32(nc, radix: 16) ?? 0 }

    /// Reads and form-checks the parameters of a Digest credentials value.
    public static func read(_ credentials: AuthParameters) throws -> DigestCredentials {
        typealias Failure = AuthParameters.ParseError
        func required(_ name: String) throws -> String {
            guard let value = credentials[name] else { throw Failure("the Digest credentials have no `\(name)` (RFC 7616 §3.4)") }
            return value
        }
        let username: String
        switch (credentials["username"], credentials["username*"]) {
        case (let plain?, nil):
            username = plain
        case (nil, let extended?):
            guard let decoded = Self.decodeExtValue(extended) else {
                throw Failure("`username*` is not an RFC 8187 ext-value such as UTF-8''J%C3%A4ger")
            }
            username = decoded
        case (.some, .some):
            throw Failure("the Digest credentials carry both `username` and `username*` (RFC 7616 §3.4: MUST NOT)")
        case (nil, nil):
            throw Failure("the Digest credentials have no `username` (RFC 7616 §3.4)")
        }
        let userhash: Bool
        switch credentials["userhash"]?.lowercased() {
        case nil, "false": userhash = false
        case "true": userhash = true
        case let other?: throw Failure("`userhash=\(other)` is neither true nor false (RFC 7616 §3.4)")
        }
        if userhash, credentials["username*"] != nil {
            throw Failure("`username*` cannot be combined with userhash=true (RFC 7616 §3.4)")
        }
        guard let algorithm = HTTPDigestAlgorithm(token: credentials["algorithm"]) else {
            throw Failure("unknown algorithm `\(credentials["algorithm"] ?? "")` (RFC 7616 §3.3 lists MD5, SHA-256, SHA-512-256 and their -sess variants)")
        }
        let qop = try required("qop")
        guard qop == "auth" else {
            throw Failure("qop=\(qop) was not offered; the challenge offered qop=\"auth\" only")
        }
        let nc = try required("nc")
        // RFC 7616 §3.4: nc-value = 8LHEX
        guard nc.utf8.count == 8, nc.allSatisfy(\.isHexDigit) else {
            throw Failure("nc=\(nc) is not eight hex digits (RFC 7616 §3.4: nc-value = 8LHEX)")
        }
        let cnonce = try required("cnonce")
        guard !cnonce.isEmpty else { throw Failure("cnonce is empty (RFC 7616 §3.4: required with qop)") }
        return DigestCredentials(
            username: username, userhash: userhash, realm: try required("realm"), nonce: try required("nonce"),
            uri: try required("uri"), response: try required("response"), algorithm: algorithm, qop: qop,
            nc: nc, cnonce: cnonce, opaque: credentials["opaque"])
    }

    /// RFC 8187 §3.2.1: `ext-value = charset "'" [ language ] "'" value-chars`, UTF-8 only.
    static func decodeExtValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        var bytes: [UInt8] = []
        var iterator = Array(parts[2].utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let decoded = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(decoded)
            } else {
                bytes.append(byte)
            }
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else { return nil }
        return text
    }
}
