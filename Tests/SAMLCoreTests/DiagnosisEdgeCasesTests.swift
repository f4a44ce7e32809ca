import Foundation
import Testing
@testable import SAMLCore

@Suite struct DiagnosisEdgeCasesTests {
    @Test func findsFirstCandidateWithPlusSlashAndOneEquals() throws {
        var calls: [Int] = []
        let found = EncodingEdgeCases.firstCandidate(padding: .one) { n in
            calls.append(n)
            return BindingsFixtures.responseCandidate(n)
        }
        let candidate = try #require(found)
        #expect(candidate.base64.contains("+") && candidate.base64.contains("/"))
        #expect(candidate.base64.hasSuffix("=") && !candidate.base64.hasSuffix("=="))
        #expect(candidate.base64 == SAMLBase64.encode(Array(candidate.xml.utf8)))
        #expect(calls.last == candidate.index)
        // Every earlier candidate failed the test.
        for n in 0..<candidate.index {
            let xml = BindingsFixtures.responseCandidate(n)
            #expect(!EncodingEdgeCases.qualifies(SAMLBase64.encode(Array(xml.utf8)), padding: .one))
        }
    }

    @Test func findsDoublePadding() throws {
        let candidate = try #require(EncodingEdgeCases.firstCandidate(padding: .two) { n in
            "<x>" + String(repeating: "?>", count: n) + "</x>"
        })
        #expect(candidate.index == 3)  // length 7+2n ≡ 1 (mod 3) first at n = 3
        #expect(candidate.base64.hasSuffix("=="))
        #expect(EncodingEdgeCases.qualifies(candidate.base64, padding: .two))
        #expect(!EncodingEdgeCases.qualifies(candidate.base64, padding: .one))
    }

    @Test func asciiXMLWithoutQuestionMarkNeverHasSlash() {
        // RFC 4648 §4: with ASCII input only a 0x3F/0x7F byte at offset ≡ 2 (mod 3) yields `/`.
        #expect(EncodingEdgeCases.firstCandidate(padding: .one, maxAttempts: 300) { n in
            "<a b=\"\(String(repeating: "x", count: n))\">ok</a>"
        } == nil)
    }

    @Test func givesUpAndRethrows() {
        #expect(EncodingEdgeCases.firstCandidate(padding: .one, maxAttempts: 5) { _ in "abc" } == nil)
        struct Boom: Error {}
        #expect(throws: Boom.self) { try EncodingEdgeCases.firstCandidate(padding: .one) { _ in throw Boom() } }
    }
}
