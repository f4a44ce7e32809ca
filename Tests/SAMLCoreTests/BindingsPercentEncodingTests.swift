import Testing
@testable import SAMLCore

@Suite struct BindingsPercentEncodingTests {
    @Test func escapesLowercasedAsSomeEncodersWriteThem() {
        #expect(PercentEncoding.lowercasingEscapes("a%2Fb%3D+%C3%A9X") == "a%2fb%3d+%c3%a9X")
        #expect(PercentEncoding.lowercasingEscapes("no escapes") == "no escapes")
    }

    @Test func formEncodingAsBrowsersDoIt() {
        #expect(PercentEncoding.formEncode("a+b=/c") == "a%2Bb%3D%2Fc")
        #expect(PercentEncoding.formEncode("a b*-._~") == "a+b*-._%7E")
        #expect(PercentEncoding.formEncode("é&") == "%C3%A9%26")
    }

    @Test func queryComponentEncodingRFC3986() {
        #expect(PercentEncoding.queryComponentEncode("a+b=/c d~*") == "a%2Bb%3D%2Fc%20d~%2A")
        #expect(PercentEncoding.queryComponentEncode("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256")
            == "http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256")
    }

    @Test func formDecoding() {
        #expect(PercentEncoding.formDecode("a%2Bb+c%3d") == "a+b c=")
        #expect(PercentEncoding.formDecode("100%") == "100%")  // WHATWG: a lone `%` stays
        #expect(PercentEncoding.formDecode("%zz") == "%zz")
        #expect(PercentEncoding.percentDecode("a+b", plusAsSpace: false) == Array("a+b".utf8))
        #expect(PercentEncoding.firstMalformedEscape(in: "ab%2Bc%g1") == 6)
        #expect(PercentEncoding.firstLowercaseEscape(in: "%2B%2f") == 3)
    }

    @Test func parsingKeepsRawTextOrderAndDuplicates() {
        let pairs = QueryParameter.parse("?b=1&&a=x+y%2B&flag&b=2")
        #expect(pairs.map(\.name) == ["b", "a", "flag", "b"])
        #expect(pairs[1].value == "x y+")
        #expect(pairs[1].rawValue == "x+y%2B")
        #expect(pairs[1].raw == "a=x+y%2B")
        #expect(pairs[1].offset == 6)
        #expect(pairs[2].value == "" && pairs[2].raw == "flag")
        #expect(pairs.all(named: "b").map(\.value) == ["1", "2"])
        #expect(QueryParameter.formEncoded([("RelayState", "a b"), ("SAMLResponse", "+/=")])
            == "RelayState=a+b&SAMLResponse=%2B%2F%3D")
    }
}
