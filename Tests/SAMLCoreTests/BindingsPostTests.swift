import Testing
@testable import SAMLCore

@Suite struct BindingsPostTests {
    let edge = BindingsFixtures.edgeResponse

    @Test func formBodyPercentEncodesPlusSlashEquals() throws {
        let body = PostBinding.formBody(message: Array(edge.xml.utf8), kind: .response, relayState: "ss:mem:1 2")
        #expect(body.hasPrefix("RelayState=ss%3Amem%3A1+2&SAMLResponse="))
        #expect(body.hasSuffix("%3D"))
        #expect(!body.dropFirst("RelayState=ss%3Amem%3A1+2".count).contains("+"))
        #expect(body.contains("%2B") && body.contains("%2F"))
        let decoded = try PostBinding.decode(formBody: body, mode: .strict)
        #expect(decoded.kind == .response)
        #expect(decoded.xmlString == edge.xml)
        #expect(decoded.relayState == "ss:mem:1 2")
        #expect(decoded.deviations.isEmpty)
    }

    @Test func unencodedFormBodyIsRecoveredLenientlyAndRefusedStrictly() throws {
        let broken = "SAMLResponse=" + edge.base64  // `+` unencoded: form decoding makes spaces
        let decoded = try PostBinding.decode(formBody: broken)
        #expect(decoded.xmlString == edge.xml)
        #expect(decoded.deviations.map(\.code) == ["base64.space-for-plus"])
        #expect(throws: BindingError.self) { try PostBinding.decode(formBody: broken, mode: .strict) }
    }

    @Test func deflatedValueOnPostIsReported() throws {
        let value = SAMLBase64.encode(try RawDeflate.compress(Array(edge.xml.utf8)))
        let decoded = try PostBinding.decode(value)
        #expect(decoded.xmlString == edge.xml)
        #expect(decoded.deviations.map(\.code) == ["post.deflated"])
        #expect(throws: BindingError.self) { try PostBinding.decode(value, mode: .strict) }
    }

    @Test func autoSubmitFormEscapesEveryValue() {
        let html = PostBinding.autoSubmitForm(action: "https://sp.example.org/acs?a=1&b=\"><script>alert(1)</script>",
                                              message: Array(edge.xml.utf8), kind: .response,
                                              relayState: "\"><script>x</script>'")
        #expect(!html.contains("<script>"))
        #expect(html.contains("action=\"https://sp.example.org/acs?a=1&amp;b=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""))
        #expect(html.contains("value=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;&#39;\""))
        #expect(html.contains("<body onload=\"document.forms[0].submit()\">"))
        #expect(html.contains("<noscript><div><input type=\"submit\" value=\"Continue\"/></div></noscript>"))
        #expect(html.contains("<form method=\"post\" action="))
        // Our own parser reads back exactly what went in.
        let form = HTMLFormParser.forms(in: html).first
        #expect(form?.action == "https://sp.example.org/acs?a=1&b=\"><script>alert(1)</script>")
        #expect(form?.method == "post")
        #expect(form?.value("RelayState") == "\"><script>x</script>'")
        #expect(form?.value("SAMLResponse") == edge.base64)
    }

    @Test func missingOrDoubledMessageRefused() {
        #expect((#expect(throws: BindingError.self) { try PostBinding.decode(formBody: "RelayState=x") })?.reason == .missingMessage)
        #expect((#expect(throws: BindingError.self) { try PostBinding.decode(formBody: "SAMLResponse=PGEvPg%3D%3D&SAMLResponse=PGEvPg%3D%3D") })?.reason == .duplicateParameter)
    }
}
