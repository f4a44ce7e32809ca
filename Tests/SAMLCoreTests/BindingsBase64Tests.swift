import Foundation
import Testing
@testable import SAMLCore

@Suite struct BindingsBase64Tests {
    @Test func strictEncodingVectors() {
        // RFC 4648 §10 test vectors.
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==",
                       "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(SAMLBase64.encode(Array(plain.utf8)) == encoded)
            #expect((try? SAMLBase64.decode(encoded)) == Array(plain.utf8))
        }
        #expect(SAMLBase64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test func encodingMatchesFoundationAndHasNoLineBreaks() {
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        let encoded = SAMLBase64.encode(bytes)
        #expect(encoded == Data(bytes).base64EncodedString())
        #expect(!encoded.contains("\n") && !encoded.contains("\r"))
        // Every tail length (0, 1, 2 bytes past a whole group) and every byte value.
        for count in 0...70 {
            let prefix = Array((0..<count).map { UInt8(truncatingIfNeeded: 255 - $0 &* 37) })
            #expect(SAMLBase64.encode(prefix) == Data(prefix).base64EncodedString(), "\(count) bytes")
        }
        let all = (0...255).map { UInt8($0) }
        #expect(SAMLBase64.encode(all) == Data(all).base64EncodedString())
    }

    @Test func wrappedEncodingIsLenientlyDecodedWithDeviation() throws {
        let bytes = Array(BindingsFixtures.response.utf8)
        let wrapped = SAMLBase64.encode(bytes, wrappingAt: 76)
        #expect(wrapped.split(separator: "\r\n").first?.count == 76)
        let decoded = try LenientBase64.decode(wrapped)
        #expect(decoded.bytes == bytes)
        #expect(decoded.codes == ["base64.line-wrapped"])
        #expect(decoded.deviations[0].offset == 76)
        #expect(decoded.deviations[0].message.contains("CRLF"))
        #expect(decoded.deviations[0].message.contains("76 columns"))
        let lf = try LenientBase64.decode(SAMLBase64.encode(bytes, wrappingAt: 64, lineEnding: "\n"))
        #expect(lf.bytes == bytes)
        #expect(lf.deviations[0].message.contains("LF") && lf.deviations[0].message.contains("64 columns"))
        let error = #expect(throws: BindingError.self) { try SAMLBase64.decode(wrapped) }
        #expect(error?.reason == .deviationRefused)
        #expect(error?.offset == 76)
        #expect(error?.message.hasPrefix("base64.line-wrapped") == true)
    }

    @Test func missingPaddingAndURLSafeAlphabet() throws {
        let missing = try LenientBase64.decode("Zm9vYg")
        #expect(missing.bytes == Array("foob".utf8))
        #expect(missing.codes == ["base64.padding-missing"])
        let urlSafe = try LenientBase64.decode("-_8")
        #expect(urlSafe.bytes == [0xFB, 0xFF])
        #expect(urlSafe.codes == ["base64.url-safe-alphabet", "base64.padding-missing"])
        #expect(urlSafe.deviations[0].offset == 0)
        #expect(throws: BindingError.self) { try LenientBase64.decode("-_8=", strict: true) }
    }

    @Test func spaceForPlusAndStrayWhitespace() throws {
        let spaced = try LenientBase64.decode("Zm9v +/8=")
        #expect(spaced.codes == ["base64.whitespace"])  // a `+` is present, so the space is whitespace
        #expect(spaced.bytes == Array("foo".utf8) + [0xFB, 0xFF])
        let lostPlus = try LenientBase64.decode("Zm9v /8=")
        #expect(lostPlus.codes == ["base64.space-for-plus"])
        #expect(lostPlus.deviations[0].offset == 4)
        #expect(lostPlus.bytes == Array("foo".utf8) + [0xFB, 0xFF])
        let padded = try LenientBase64.decode("  Zm9v\t\n")
        #expect(padded.bytes == Array("foo".utf8))
        #expect(Set(padded.codes) == ["base64.whitespace", "base64.line-wrapped"])
    }

    @Test func invalidCharactersAndPercentEscapes() throws {
        let invalid = try LenientBase64.decode("Zm9v!")
        #expect(invalid.bytes == Array("foo".utf8))
        #expect(invalid.codes == ["base64.invalid-character"])
        #expect(invalid.deviations[0].offset == 4)
        let escaped = try LenientBase64.decode("%2B%2f8%3D")
        #expect(escaped.bytes == [0xFB, 0xFF])
        #expect(escaped.codes == ["base64.percent-encoded"])
    }

    @Test func impossibleLengthsAndDataAfterPadding() {
        let one = #expect(throws: BindingError.self) { try LenientBase64.decode("Zm9vY") }
        #expect(one?.reason == .invalidBase64)
        #expect(one?.message.contains("truncated") == true)
        let after = #expect(throws: BindingError.self) { try LenientBase64.decode("Zg==Zg==") }
        #expect(after?.offset == 4)
        let wrongPadding = try? LenientBase64.decode("Zg=")
        #expect(wrongPadding?.codes == ["base64.padding-wrong"])
    }
}
