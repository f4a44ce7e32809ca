import Foundation
import Testing
@testable import Harness

/// Issue 17 §9: every rendering of a secret is masked (hex of its Latin-1 bytes with and
/// without spaces, `%E9`-style Latin-1 percent-encoding, a Basic token quoted without its
/// header's name, the password's own base64), and the harness's own prose is never cut by
/// fragment masking.
@Suite struct RealClientDefectTestsMasking {
    static let password = "correct horse+battery=staple&100% Ünïcødé"

    static func latin1() throws -> [UInt8] { Array(try #require(password.data(using: .isoLatin1))) }

    static func hex(_ bytes: [UInt8], _ format: String = "%02X", separator: String = " ") -> String {
        bytes.map { String(format: format, $0) }.joined(separator: separator)
    }

    @Test func latin1HexOfThePasswordIsMaskedWithAndWithoutSpaces() throws {
        let masker = SecretMasker(secrets: [Self.password])
        let latin1 = try Self.latin1()
        for rendering in [Self.hex(latin1), Self.hex(latin1, separator: ""), Self.hex(latin1, "%02x"), Self.hex(latin1, "%02x", separator: "")] {
            // The Latin-1 bytes differ from the UTF-8 ones at Ü (DC, not C3 9C).
            #expect(rendering.uppercased().contains("DC"))
            let masked = masker.evidence("the client sent " + rendering + " in the request")
            #expect(masked == "the client sent [masked] in the request", "\(rendering) → \(masked)")
        }
        // The UTF-8 hex too, as the report once showed it ("sent 63 6F 72 72 65 63 74 20 …").
        let utf8 = Self.hex(Array(Self.password.utf8))
        #expect(masker.text("sent " + utf8) == "sent [masked]")
    }

    @Test func latin1PercentEncodingIsMasked() throws {
        let masker = SecretMasker(secrets: [Self.password])
        let encoded = try Self.latin1().map { SecretMasker.isUnreserved($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
        #expect(encoded.hasSuffix("%DCn%EFc%F8d%E9"))
        #expect(masker.text("j_username=alice&j_password=" + encoded + "&_eventId=proceed") == "j_username=alice&j_password=[masked]&_eventId=proceed")
        let lower = encoded.replacingOccurrences(of: "%E9", with: "%e9").replacingOccurrences(of: "%DC", with: "%dc")
            .replacingOccurrences(of: "%EF", with: "%ef").replacingOccurrences(of: "%F8", with: "%f8")
            .replacingOccurrences(of: "%2B", with: "%2b").replacingOccurrences(of: "%3D", with: "%3d")
        #expect(masker.text("pw=" + lower) == "pw=[masked]", "\(lower)")
    }

    @Test func base64RenderingsAreMaskedWithoutTheirHeaderName() throws {
        let masker = SecretMasker(secrets: [Self.password])
        let utf8Token = Data(Array("alice:".utf8) + Array(Self.password.utf8)).base64EncodedString()
        let latin1Token = Data(Array("alice:".utf8) + (try Self.latin1())).base64EncodedString()
        // Quoted bare (`Basic YWxpY2U6…`), as challenge-answered once did.
        #expect(masker.text("the client answered with Basic \(utf8Token) again") == "the client answered with Basic [masked] again")
        #expect(masker.text("credentials \(latin1Token)") == "credentials [masked]")
        // The password alone, base64-encoded in a body.
        let alone = Data(Self.password.utf8).base64EncodedString()
        #expect(masker.text("secret: \(alone);") == "secret: [masked];")
        #expect(masker.text("secret=\(alone);") == "secret=[masked];")
        #expect(masker.text("{\"p\":\"\(alone)\"}") == "{\"p\":\"[masked]\"}")
        // An unrelated base64 token stays.
        let other = Data("alice:something-else-entirely".utf8).base64EncodedString()
        #expect(masker.text("Basic-like \(other)") == "Basic-like \(other)")
    }

    @Test func theHarnessProseIsNotCutButQuotedPiecesAreMasked() {
        let masker = SecretMasker(secrets: ["plain-ascii-password"])
        let reason = "security.password-only-to-idp: the password went to the sp in #3 (the Basic Authorization header, UTF-8)"
        let result = ScenarioResult(
            scenario: "ecp.basic", flow: "ecp", status: .fail, reason: reason,
            verdicts: [Verdict(check: "security.password-only-to-idp", level: .required, status: .fail,
                               reason: "the password went to the sp in #3 (the Basic Authorization header, UTF-8)",
                               evidence: [Evidence(exchange: 3, mock: "sp", detail: "password in the body, UTF-8",
                                                   excerpt: "…j_pw=ascii-password&next=1")])],
            seconds: 1, exchanges: 4, client: nil)
        let masked = masker.result(result)
        // Before the fix: "security.[masked]-only-to-idp: the [masked] went to the sp".
        #expect(masked.reason == reason)
        #expect(masked.verdicts[0].reason == result.verdicts[0].reason)
        #expect(masked.verdicts[0].evidence[0].detail == "password in the body, UTF-8")
        let excerpt = masked.verdicts[0].evidence[0].excerpt ?? ""
        #expect(!excerpt.contains("ascii-password") && excerpt.contains("[masked]"), "\(excerpt)")
        // The whole secret is still masked in prose.
        #expect(masker.text("typed plain-ascii-password") == "typed [masked]")
    }
}
