import Foundation
import Testing
@testable import SAMLCore

@Suite struct BindingsRedirectTests {
    let xml = Array(BindingsFixtures.authnRequest.utf8)
    let destination = "https://idp.example.org/idp/profile/SAML2/Redirect/SSO"

    @Test func unsignedRoundTrip() throws {
        let url = try RedirectBinding.url(destination: destination, message: xml, kind: .request,
                                          relayState: "https://sp.example.org/secure page?x=1")
        #expect(url.hasPrefix(destination + "?SAMLRequest="))
        #expect(url.contains("&RelayState=https%3A%2F%2Fsp.example.org%2Fsecure%20page%3Fx%3D1"))
        let decoded = try RedirectBinding.decode(url, mode: .strict)
        #expect(decoded.kind == .request)
        #expect(decoded.xml == xml)
        #expect(decoded.framing == .raw)
        #expect(decoded.relayState == "https://sp.example.org/secure page?x=1")
        #expect(!decoded.isSigned && decoded.signedOctets == nil)
        #expect(decoded.deviations.isEmpty)
        #expect(throws: BindingError.self) { try decoded.verify(with: ReversingVerifier()) }
    }

    @Test func signedOctetsAreExactlyWhatIsSent() throws {
        let query = try RedirectBinding.encode(xml, kind: .request, relayState: "token",
                                               signer: ReversingSigner())
        let pairs = QueryParameter.parse(query)
        #expect(pairs.map(\.name) == ["SAMLRequest", "RelayState", "SigAlg", "Signature"])
        let expectedOctets = Array("\(pairs[0].raw)&\(pairs[1].raw)&\(pairs[2].raw)".utf8)
        #expect(pairs[2].raw == "SigAlg=http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256")
        // The fake signature is the signed octets reversed: decode it and compare.
        let signature = try SAMLBase64.decode(PercentEncoding.formDecode(pairs[3].rawValue))
        #expect(Array(signature.reversed()) == expectedOctets)
        let decoded = try RedirectBinding.decode(query, mode: .strict)
        #expect(decoded.signedOctets == expectedOctets)
        #expect(decoded.sigAlg == "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256")
        #expect(try decoded.verify(with: ReversingVerifier()))
    }

    @Test func signedOctetsRecomputedWhateverTheParameterOrder() throws {
        let query = try RedirectBinding.encode(xml, kind: .response, relayState: "r s",
                                               signer: ReversingSigner())
        let pairs = QueryParameter.parse(query)
        // Signature first, SigAlg before the message, RelayState last.
        let shuffled = [pairs[3], pairs[2], pairs[0], pairs[1]].map(\.raw).joined(separator: "&")
        let decoded = try RedirectBinding.decode("https://sp.example.org/Shibboleth.sso/SLO/Redirect?" + shuffled)
        #expect(decoded.kind == .response)
        #expect(decoded.signedOctets == Array("\(pairs[0].raw)&\(pairs[1].raw)&\(pairs[2].raw)".utf8))
        #expect(try decoded.verify(with: ReversingVerifier()))
        #expect(decoded.relayState == "r s")
    }

    @Test func signedOctetsUseTheRawTextNotAReEncoding() throws {
        // A sender that writes lowercase hex: re-encoding would give `%2F`, the signature covers `%2f`.
        let query = try RedirectBinding.encode(xml, kind: .request, signer: ReversingSigner())
        let message = QueryParameter.parse(query)[0].raw
        let sigAlg = "SigAlg=http%3a%2f%2fwww.w3.org%2f2001%2f04%2fxmldsig-more%23rsa-sha256"
        let octets = Array("\(message)&\(sigAlg)".utf8)
        let signature = PercentEncoding.queryComponentEncode(SAMLBase64.encode(octets.reversed()))
        let decoded = try RedirectBinding.decode("\(sigAlg)&Signature=\(signature)&\(message)")
        #expect(decoded.signedOctets == octets)
        #expect(try decoded.verify(with: ReversingVerifier()))
    }

    @Test func tamperedQueryFailsVerification() throws {
        let query = try RedirectBinding.encode(xml, kind: .request, relayState: "abc", signer: ReversingSigner())
        let tampered = query.replacingOccurrences(of: "RelayState=abc", with: "RelayState=abd")
        #expect(try RedirectBinding.decode(tampered).verify(with: ReversingVerifier()) == false)
    }

    @Test func zlibFramingProducedAndReported() throws {
        let query = try RedirectBinding.encode(xml, kind: .request,
                                               options: .init(framing: .zlib))
        let decoded = try RedirectBinding.decode(query)
        #expect(decoded.xml == xml)
        #expect(decoded.framing == .zlib)
        #expect(decoded.deviations.map(\.code) == ["redirect.zlib-header"])
        #expect(RawDeflate.hasZlibHeader(decoded.compressed))
        let error = #expect(throws: BindingError.self) { try RedirectBinding.decode(query, mode: .strict) }
        #expect(error?.message.hasPrefix("redirect.zlib-header") == true)
    }

    @Test func lineWrappedAndUnencodedPlusProducedAndReported() throws {
        let query = try RedirectBinding.encode(xml, kind: .request,
                                               options: .init(base64LineLength: 76, leavePlusUnencoded: true))
        #expect(query.contains("%0D%0A"))
        #expect(query.contains("+"))  // (this fixture's base64 has a `+`)
        #expect(!query.contains("%2B"))
        let decoded = try RedirectBinding.decode(query)
        #expect(decoded.xml == xml)
        #expect(decoded.deviations.map(\.code) == ["redirect.unencoded-plus", "base64.line-wrapped"])
    }

    @Test func refusals() throws {
        let query = try RedirectBinding.encode(xml, kind: .request, signer: ReversingSigner())
        let duplicate = #expect(throws: BindingError.self) { try RedirectBinding.decode(query + "&" + QueryParameter.parse(query)[0].raw) }
        #expect(duplicate?.reason == .duplicateParameter)
        let noSignature = query.components(separatedBy: "&Signature=")[0]
        #expect((#expect(throws: BindingError.self) { try RedirectBinding.decode(noSignature) })?.reason == .incompleteSignature)
        #expect((#expect(throws: BindingError.self) { try RedirectBinding.decode("https://sp.example.org/acs") })?.reason == .missingMessage)
    }

    @Test func bombInURLRefused() throws {
        let zeros = [UInt8](repeating: 0x20, count: 20 * 1024 * 1024)
        let query = try RedirectBinding.encode(zeros, kind: .request)
        let error = #expect(throws: BindingError.self) { try RedirectBinding.decode(query) }
        #expect(error?.reason == .inflateLimitExceeded)
    }

    @Test func relayStateOverEightyBytesIsADeviation() throws {
        let long = String(repeating: "r", count: 81)
        let query = try RedirectBinding.encode(xml, kind: .request, relayState: long)
        #expect(try RedirectBinding.decode(query).deviations.map(\.code) == ["redirect.relaystate-too-long"])
        #expect(throws: BindingError.self) { try RedirectBinding.decode(query, mode: .strict) }
    }
}
