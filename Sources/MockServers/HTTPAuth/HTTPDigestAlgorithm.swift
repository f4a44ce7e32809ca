import SAMLCore

/// A Digest `algorithm` (RFC 7616 §3.3, §6.1 registry) and the computations of
/// RFC 7616 §3.4.1–§3.4.3 and §3.5 it drives.
public enum HTTPDigestAlgorithm: String, Sendable, CaseIterable {
    case md5 = "MD5"
    case md5Sess = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Sess = "SHA-256-sess"
    case sha512_256 = "SHA-512-256"
    case sha512_256Sess = "SHA-512-256-sess"

    /// Reads the token a client sent; case-insensitive. RFC 7616 §3.4: "If this is not
    /// present, it is assumed to be MD5."
    public init?(token: String?) {
        guard let token else { self = .md5; return }
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == token.lowercased() }) else { return nil }
        self = match
    }

    /// The hash function `H` of RFC 7616 §3.4.
    public var digest: MessageDigest {
        switch self {
        case .md5, .md5Sess: .md5
        case .sha256, .sha256Sess: .sha256
        case .sha512_256, .sha512_256Sess: .sha512_256
        }
    }

    /// Whether `A1` carries the nonce and cnonce (the `-sess` variants, RFC 7616 §3.4.2).
    public var isSession: Bool { rawValue.hasSuffix("-sess") }

    /// `H(data)` as lowercase hex.
    public func h(_ data: String) -> String { digest.hex(data) }

    /// `KD(secret, data) = H(concat(secret, ":", data))` (RFC 7616 §3.4.1).
    public func kd(_ secret: String, _ data: String) -> String { h(secret + ":" + data) }

    /// The hashed username of RFC 7616 §3.4.4: `H(unq(username) ":" unq(realm))`.
    public func userhash(username: String, realm: String) -> String { h(username + ":" + realm) }

    /// `H(A1)` (RFC 7616 §3.4.2). Plain: `A1 = unq(username) ":" unq(realm) ":" passwd`;
    /// `-sess`: `A1 = H(that) ":" unq(nonce) ":" unq(cnonce)`.
    public func ha1(username: String, realm: String, password: String, nonce: String, cnonce: String) -> String {
        let base = h(username + ":" + realm + ":" + password)
        return isSession ? h(base + ":" + nonce + ":" + cnonce) : base
    }

    /// The `response` value for `qop=auth` (RFC 7616 §3.4.1):
    /// `KD(H(A1), unq(nonce) ":" nc ":" unq(cnonce) ":" unq(qop) ":" H(A2))` with
    /// `A2 = Method ":" request-uri` (§3.4.3).
    public func response(username: String, realm: String, password: String, method: String, uri: String,
                         nonce: String, nc: String, cnonce: String, qop: String = "auth") -> String {
        let ha1 = ha1(username: username, realm: realm, password: password, nonce: nonce, cnonce: cnonce)
        return kd(ha1, [nonce, nc, cnonce, qop, h(method + ":" + uri)].joined(separator: ":"))
    }

    /// ``response(username:realm:password:method:uri:nonce:nc:cnonce:qop:)`` with the password
    /// as the bytes a client hashed: RFC 7616 §4 wants UTF-8 under `charset=UTF-8`, but a
    /// client may hash another encoding (Latin-1), and only recomputing tells which.
    public func response(username: String, realm: String, passwordBytes: [UInt8], method: String, uri: String,
                         nonce: String, nc: String, cnonce: String, qop: String = "auth") -> String {
        var a1 = Array((username + ":" + realm + ":").utf8)
        a1 += passwordBytes
        let base = digest.hex(a1)
        let ha1 = isSession ? h(base + ":" + nonce + ":" + cnonce) : base
        return kd(ha1, [nonce, nc, cnonce, qop, h(method + ":" + uri)].joined(separator: ":"))
    }

    /// The `rspauth` of an `Authentication-Info` field (RFC 7616 §3.5): as ``response(username:realm:password:method:uri:nonce:nc:cnonce:qop:)``
    /// with `A2 = ":" request-uri`.
    public func rspauth(username: String, realm: String, password: String, uri: String,
                        nonce: String, nc: String, cnonce: String, qop: String = "auth") -> String {
        let ha1 = ha1(username: username, realm: realm, password: password, nonce: nonce, cnonce: cnonce)
        return kd(ha1, [nonce, nc, cnonce, qop, h(":" + uri)].joined(separator: ":"))
    }
}
