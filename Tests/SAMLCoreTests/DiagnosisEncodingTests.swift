import Foundation
import Testing
@testable import SAMLCore

@Suite struct DiagnosisEncodingTests {
    let edge = BindingsFixtures.edgeResponse
    var firstPlus: Int { Array(edge.base64.utf8).firstIndex(of: UInt8(ascii: "+"))! }

    @Test func cleanValueHasNoFindings() {
        let diagnosis = EncodingDiagnoser.diagnose(edge.base64, binding: .post, expected: edge.base64)
        #expect(diagnosis.isClean)
        #expect(diagnosis.report == "encoding: ok")
        #expect(diagnosis.recoveredXML == Array(edge.xml.utf8))
    }

    @Test func plusAsSpaceFoundAtTheRightOffsetWithoutExpected() {
        let arrived = edge.base64.replacingOccurrences(of: "+", with: " ")
        let diagnosis = EncodingDiagnoser.diagnose(arrived, binding: .post)
        let finding = diagnosis.finding("encoding.plus-as-space")
        #expect(finding?.offset == firstPlus)
        #expect(finding?.message.hasPrefix("`+` arrived as a space at offset \(firstPlus): the form body was not percent-encoded") == true)
        #expect(diagnosis.codes == ["encoding.plus-as-space"])
        #expect(diagnosis.recoveredXML == Array(edge.xml.utf8))
    }

    @Test func plusAsSpaceWithExpectedNamesTheDifference() {
        let arrived = edge.base64.replacingOccurrences(of: "+", with: " ")
        let diagnosis = EncodingDiagnoser.diagnose(arrived, binding: .post, expected: edge.base64)
        #expect(diagnosis.codes == ["encoding.plus-as-space", "encoding.differs", "encoding.recoverable"])
        #expect(diagnosis.finding("encoding.differs")?.offset == firstPlus)
        #expect(diagnosis.finding("encoding.differs")?.message.contains("at offset \(firstPlus)") == true)
        #expect(diagnosis.finding("encoding.differs")?.message.contains("`+` became a space") == true)
    }

    @Test func paddingStripped() {
        let arrived = String(edge.base64.dropLast())
        let diagnosis = EncodingDiagnoser.diagnose(arrived, binding: .post)
        #expect(diagnosis.codes == ["encoding.padding-stripped"])
        #expect(diagnosis.findings[0].message.contains("base64 padding `=` stripped"))
        let withExpected = EncodingDiagnoser.diagnose(arrived, expected: edge.base64)
        #expect(withExpected.finding("encoding.differs")?.message.contains("the trailing `=` is missing") == true)
        #expect(withExpected.codes.contains("encoding.recoverable"))
    }

    @Test func doubleAndStillURLEncoded() {
        let once = PercentEncoding.formEncode(edge.base64)
        let still = EncodingDiagnoser.diagnose(once, binding: .post)
        #expect(still.codes.first == "encoding.still-url-encoded")
        #expect(still.codes.contains("encoding.padding-url-encoded"))
        #expect(still.finding("encoding.padding-url-encoded")?.message.hasPrefix("`=` arrived as `%3D` undecoded") == true)
        #expect(still.recoveredXML == Array(edge.xml.utf8))
        let twice = PercentEncoding.formEncode(once)
        #expect(twice.contains("%252B"))
        let double = EncodingDiagnoser.diagnose(twice, binding: .post)
        #expect(double.codes.first == "encoding.double-url-encoded")
        #expect(double.findings[0].message.contains("`%252B`") || double.findings[0].message.contains("`%252F`"))
        #expect(double.recoveredXML == Array(edge.xml.utf8))
    }

    @Test func onlyPaddingLeftEncoded() {
        let arrived = String(edge.base64.dropLast()) + "%3D"
        let diagnosis = EncodingDiagnoser.diagnose(arrived, binding: .post)
        #expect(diagnosis.codes == ["encoding.padding-url-encoded"])
        #expect(diagnosis.findings[0].offset == edge.base64.utf8.count - 1)
    }

    @Test func zlibHeaderInRedirect() throws {
        let zlib = SAMLBase64.encode(try RawDeflate.compress(Array(edge.xml.utf8), framing: .zlib))
        let diagnosis = EncodingDiagnoser.diagnose(zlib, binding: .redirect)
        #expect(diagnosis.codes == ["encoding.zlib-header"])
        #expect(diagnosis.findings[0].message.hasPrefix("zlib header present in Redirect binding"))
        #expect(diagnosis.recoveredXML == Array(edge.xml.utf8))
        let raw = SAMLBase64.encode(try RawDeflate.compress(Array(edge.xml.utf8)))
        #expect(EncodingDiagnoser.diagnose(raw, binding: .redirect).isClean)
    }

    @Test func deflateOnPostAndPlainOnRedirect() throws {
        let raw = SAMLBase64.encode(try RawDeflate.compress(Array(edge.xml.utf8)))
        let post = EncodingDiagnoser.diagnose(raw, binding: .post)
        #expect(post.codes == ["encoding.deflated-post"])
        #expect(post.findings[0].message.hasPrefix("raw DEFLATE where the POST binding wants plain base64"))
        #expect(EncodingDiagnoser.diagnose(edge.base64, binding: .redirect).codes == ["encoding.not-deflated"])
    }

    @Test func lineBreaksAndURLSafe() {
        let wrapped = SAMLBase64.encode(Array(edge.xml.utf8), wrappingAt: 64, lineEnding: "\n")
        let diagnosis = EncodingDiagnoser.diagnose(wrapped, binding: .post)
        #expect(diagnosis.codes == ["encoding.line-breaks"])
        #expect(diagnosis.findings[0].offset == 64)
        let urlSafe = edge.base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(EncodingDiagnoser.diagnose(urlSafe, binding: .post).codes == ["encoding.url-safe-alphabet"])
    }

    @Test func truncatedValues() {
        // Cut to a multiple of 4: base64 is fine, the XML is not closed.
        let cut = String(edge.base64.prefix(edge.base64.count / 8 * 4))
        let diagnosis = EncodingDiagnoser.diagnose(cut, binding: .post)
        #expect(diagnosis.codes == ["encoding.truncated"])
        #expect(diagnosis.findings[0].message.contains("ends before its root element <samlp:Response> is closed"))
        // One character over a multiple of 4.
        let odd = String(edge.base64.prefix(edge.base64.count / 8 * 4 + 1))
        #expect(EncodingDiagnoser.diagnose(odd).codes.first == "encoding.truncated")
        let withExpected = EncodingDiagnoser.diagnose(cut, expected: edge.base64)
        #expect(withExpected.finding("encoding.differs")?.message.contains("\(cut.count) of \(edge.base64.count) bytes arrived") == true)
    }

    @Test func notBase64AtAll() {
        let xml = EncodingDiagnoser.diagnose(edge.xml, binding: .post)
        #expect(xml.codes == ["encoding.not-base64-xml"])
        let html = EncodingDiagnoser.diagnose("<!DOCTYPE html><html><body>Login failed</body></html>")
        #expect(html.codes == ["encoding.not-base64-html"])
        #expect(html.recoveredXML == nil)
        let garbage = EncodingDiagnoser.diagnose("AAAAAAAA")
        #expect(garbage.codes == ["encoding.not-saml"])
    }

    @Test func comparisonAgainstOriginalXML() {
        let arrived = SAMLBase64.encode(Array(edge.xml.replacingOccurrences(of: "Success", with: "Requester").utf8))
        let diagnosis = EncodingDiagnoser.diagnose(arrived, binding: .post, expected: edge.xml)
        #expect(diagnosis.codes == ["encoding.differs"])
        let offset = Array(edge.xml.utf8).firstIndex(of: UInt8(ascii: "S"))!
        #expect(offset > 0)
        #expect(diagnosis.findings[0].message.contains("differs from the original at byte"))
    }
}
