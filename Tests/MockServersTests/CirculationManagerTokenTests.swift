import TestSupport
import Foundation
@testable import MockServers
import SAMLCore
import Testing

/// The circulation manager's bearer token: HMAC-SHA-256 against RFC 4231, the JWT against
/// PyJWT (what the real circulation manager signs and verifies with).
struct CirculationManagerTokenTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// RFC 4231 §4.3 (test case 2), §4.7 (case 6: a key longer than the block).
    @Test func hmacSHA256MatchesRFC4231() {
        #expect(MessageDigest.lowercaseHex(HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let longKey = [UInt8](repeating: 0xaa, count: 131)
        #expect(MessageDigest.lowercaseHex(HMACSHA256.mac(key: longKey, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func aTokenVerifiesUntilItsExpiryAndNotWithAnotherSecret() throws {
        let issued = Date(timeIntervalSince1970: 1_700_000_000)
        let token = CMBearerToken(issuer: "SAML 2.0 Web SSO", credentialID: "cred-1", issuedAt: issued,
                                  expires: issued.addingTimeInterval(60))
        let jwt = token.encode(secret: Array("secret".utf8))
        #expect(try CMBearerToken.verify(jwt, secret: Array("secret".utf8), now: issued.addingTimeInterval(59)) == token)
        #expect(throws: CMBearerToken.Rejection.expired) {
            try CMBearerToken.verify(jwt, secret: Array("secret".utf8), now: issued.addingTimeInterval(60))
        }
        #expect(throws: CMBearerToken.Rejection.signature) {
            try CMBearerToken.verify(jwt, secret: Array("other".utf8), now: issued)
        }
    }

    @Test(.enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
    func pyJWTVerifiesTheTokenAsHS256() async throws {
        let issued = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let secret = String(repeating: "s3cret-", count: 5)
        let jwt = CMBearerToken(issuer: "SAML 2.0 Web SSO", credentialID: "cred-7", issuedAt: issued,
                                expires: issued.addingTimeInterval(3600)).encode(secret: Array(secret.utf8))
        let script = """
        import jwt, json, sys
        print(json.dumps(jwt.decode(sys.argv[1], sys.argv[2], algorithms=["HS256"])))
        """
        let outcome = try await ClientProcess.run(ClientProcess.venvPython, ["-c", script, jwt, secret])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let claims = CirculationManagerFixture.json(outcome.stdout)
        #expect(claims["iss"] as? String == "SAML 2.0 Web SSO")
        #expect(claims["token"] as? String == "cred-7")
        #expect(claims["exp"] as? Int == Int(issued.timeIntervalSince1970) + 3600)
    }
}
