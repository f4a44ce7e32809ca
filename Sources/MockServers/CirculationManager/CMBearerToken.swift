import Foundation
import SAMLCore

/// The circulation manager's bearer token: a JSON Web Token signed HS256, as the Library
/// Simplified circulation manager makes it (`Authenticator.create_bearer_token`:
/// `jwt.encode({"token": provider_token, "iss": provider_name}, secret, algorithm="HS256")`).
/// The mock adds `iat` and `exp` (RFC 7519 §4.1.4, §4.1.6) so the lifetime can be read off
/// the token; the real one keeps the expiry only in its database credential.
struct CMBearerToken: Sendable, Equatable {
    /// `iss`: the provider name (`SAML 2.0 Web SSO`).
    let issuer: String
    /// `token`: the id of the credential the circulation manager keeps server-side.
    let credentialID: String
    let issuedAt: Date
    let expires: Date

    /// Why a token was refused (annotated as `cm.token-rejected`).
    enum Rejection: String, Error {
        case malformed = "token.malformed"
        case algorithm = "token.algorithm"
        case signature = "token.signature"
        case expired = "token.expired"
        case unknown = "token.unknown-credential"
        case revoked = "token.revoked"
    }

    /// `header.payload.signature`, each part base64url without padding (RFC 7515 §7.1).
    func encode(secret: [UInt8]) -> String {
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        let exp = Int(expires.timeIntervalSince1970)
        let iat = Int(issuedAt.timeIntervalSince1970)
        let payload = "{\"exp\":\(exp),\"iat\":\(iat),\"iss\":\(Self.jsonString(issuer)),\"token\":\(Self.jsonString(credentialID))}"
        let signingInput = Self.base64URL(Array(header.utf8)) + "." + Self.base64URL(Array(payload.utf8))
        return signingInput + "." + Self.base64URL(HMACSHA256.mac(key: secret, message: Array(signingInput.utf8)))
    }

    /// Verifies a token strictly: three parts, `alg` exactly HS256 (RFC 8725 §3.1: never
    /// `none`, never the algorithm the token picks), the MAC, then `exp` against `now`.
    static func verify(_ token: String, secret: [UInt8], now: Date) throws(Rejection) -> CMBearerToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = fromBase64URL(parts[0]), let payloadBytes = fromBase64URL(parts[1]),
              let signature = fromBase64URL(parts[2]) else { throw .malformed }
        guard let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any] else { throw .malformed }
        guard header["alg"] as? String == "HS256" else { throw .algorithm }
        let expected = HMACSHA256.mac(key: secret, message: Array((parts[0] + "." + parts[1]).utf8))
        guard HMACSHA256.constantTimeEqual(expected, signature) else { throw .signature }
        guard let payload = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any],
              let issuer = payload["iss"] as? String, let credential = payload["token"] as? String,
              let exp = (payload["exp"] as? NSNumber)?.doubleValue, let iat = (payload["iat"] as? NSNumber)?.doubleValue
        else { throw .malformed }
        let expires = Date(timeIntervalSince1970: exp)
        guard now < expires else { throw .expired }
        return CMBearerToken(issuer: issuer, credentialID: credential, issuedAt: Date(timeIntervalSince1970: iat), expires: expires)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func fromBase64URL(_ text: Substring) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }

    static func jsonString(_ value: String) -> String {
        let data = (try? JSONEncoder().encode(value)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// HMAC-SHA-256 (RFC 2104 with FIPS 180-4 SHA-256, block size 64), over SAMLCore's digest.
enum HMACSHA256 {
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // RFC 2104 §2: keys longer than the block are hashed first, then zero-padded.
        var block = key.count > 64 ? MessageDigest.sha256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = MessageDigest.sha256.hash(block.map { $0 ^ 0x36 } + message)
        return MessageDigest.sha256.hash(block.map { $0 ^ 0x5c } + inner)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
