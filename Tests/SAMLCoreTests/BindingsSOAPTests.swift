import Foundation
import Testing
@testable import SAMLCore

@Suite struct BindingsSOAPTests {
    let request = BindingsFixtures.authnRequest
    let response = BindingsFixtures.response

    @Test func envelopeEmbedsTheMessageByteForByte() throws {
        // Odd but legal serialization details a re-serializer would change.
        let signedLooking = "<?xml version=\"1.0\"?>\n<samlp:Response  xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" ID='_x' >\n  <!-- c --><samlp:Status/></samlp:Response>"
        let envelope = SOAPBinding.envelope(body: signedLooking)
        #expect(envelope == "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Body><samlp:Response  xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" ID='_x' >\n  <!-- c --><samlp:Status/></samlp:Response></SOAP-ENV:Body></SOAP-ENV:Envelope>")
        let parsed = try SOAPBinding.parse(Array(envelope.utf8))
        #expect(parsed.bodyName == "Response" && parsed.bodyNamespace == SAMLNamespace.protocol_)
        #expect(parsed.fault == nil)
        let inner = try XMLDocument(parsing: parsed.body)
        #expect(inner.root.attribute("ID") == "_x")
    }

    @Test func innerMessageStandsAloneWhenNamespacesAreOnTheEnvelope() throws {
        let envelope = "<S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\"><S:Body><samlp:ArtifactResolve ID=\"_1\"/></S:Body></S:Envelope>"
        let parsed = try SOAPBinding.parse(Array(envelope.utf8))
        let inner = try XMLDocument(parsing: parsed.body)
        #expect(inner.root.is("ArtifactResolve", SAMLNamespace.protocol_))
    }

    @Test func envelopeRefusals() {
        let notSoap = #expect(throws: BindingError.self) { try SOAPBinding.parse(Array("<a/>".utf8)) }
        #expect(notSoap?.reason == .invalidEnvelope)
        let two = "<S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\"><S:Body><a/><b/></S:Body></S:Envelope>"
        #expect((#expect(throws: BindingError.self) { try SOAPBinding.parse(Array(two.utf8)) })?.message.contains("2 elements") == true)
        let doctype = "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\"><S:Body>&e;</S:Body></S:Envelope>"
        #expect((#expect(throws: XMLError.self) { try SOAPBinding.parse(Array(doctype.utf8)) })?.reason == .doctypeRefused)
    }

    @Test func faultRoundTrip() throws {
        let fault = SOAPFault(code: .client, string: "bad <request> & more", actor: "https://idp.example.org", detail: "d")
        let parsed = try SOAPBinding.parse(Array(fault.envelope().utf8))
        #expect(parsed.fault == fault)
        #expect(parsed.fault?.code == .client)
        #expect(parsed.bodyName == "Fault")
        let error = #expect(throws: BindingError.self) { try ECPResponse.parse(Array(fault.envelope().utf8)) }
        #expect(error?.message.contains("SOAP-ENV:Client: bad <request> & more") == true)
    }

    @Test func paosRequestEnvelopeRoundTrip() throws {
        let paos = PAOSRequest(responseConsumerURL: "https://sp.example.org/Shibboleth.sso/SAML2/ECP",
                               messageID: "_m1", issuer: "https://sp.example.org/shibboleth", isPassive: false,
                               providerName: "SP & Co", relayState: "ss:mem:42", authnRequest: request)
        let envelope = paos.envelope()
        #expect(envelope.contains("<paos:Request xmlns:paos=\"urn:liberty:paos:2003-08\" SOAP-ENV:mustUnderstand=\"1\" SOAP-ENV:actor=\"http://schemas.xmlsoap.org/soap/actor/next\" responseConsumerURL=\"https://sp.example.org/Shibboleth.sso/SAML2/ECP\" service=\"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp\" messageID=\"_m1\"/>"))
        #expect(envelope.contains("IsPassive=\"false\" ProviderName=\"SP &amp; Co\"><saml:Issuer xmlns:saml=\"urn:oasis:names:tc:SAML:2.0:assertion\">https://sp.example.org/shibboleth</saml:Issuer></ecp:Request>"))
        #expect(envelope.contains("<SOAP-ENV:Body>\(request)</SOAP-ENV:Body>"))
        let parsed = try PAOSRequest.parse(Array(envelope.utf8))
        #expect(parsed.responseConsumerURL == paos.responseConsumerURL)
        #expect(parsed.messageID == "_m1")
        #expect(parsed.issuer == paos.issuer)
        #expect(parsed.providerName == "SP & Co")
        #expect(parsed.relayState == "ss:mem:42")
        #expect(parsed.isPassive == false)
        let inner = try XMLDocument(parsing: parsed.authnRequest)
        #expect(inner.root.attribute("ID") == "_a1b2c3")
    }

    @Test func paosRequestRefusals() throws {
        let good = PAOSRequest(responseConsumerURL: "https://sp/ecp", issuer: "https://sp", authnRequest: request).envelope()
        let noMustUnderstand = good.replacingFirst("SOAP-ENV:mustUnderstand=\"1\" ", with: "")
        #expect((#expect(throws: BindingError.self) { try PAOSRequest.parse(Array(noMustUnderstand.utf8)) })?.message.contains("paos:Request lacks") == true)
        let wrongService = good.replacingFirst("service=\"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp\"", with: "service=\"x\"")
        #expect((#expect(throws: BindingError.self) { try PAOSRequest.parse(Array(wrongService.utf8)) })?.message.contains("service is `x`") == true)
        let wrongBody = PAOSRequest(responseConsumerURL: "https://sp/ecp", issuer: "https://sp", authnRequest: response).envelope()
        #expect((#expect(throws: BindingError.self) { try PAOSRequest.parse(Array(wrongBody.utf8)) })?.message.contains("not a samlp:AuthnRequest") == true)
    }

    @Test func ecpResponseRoundTripAndACSCheck() throws {
        let ecp = ECPResponse(assertionConsumerServiceURL: "https://sp.example.org/Shibboleth.sso/SAML2/ECP", response: response)
        let envelope = ecp.envelope()
        #expect(envelope.contains("<ecp:Response xmlns:ecp=\"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp\" SOAP-ENV:mustUnderstand=\"1\" SOAP-ENV:actor=\"http://schemas.xmlsoap.org/soap/actor/next\" AssertionConsumerServiceURL=\"https://sp.example.org/Shibboleth.sso/SAML2/ECP\"/>"))
        let parsed = try ECPResponse.parse(Array(envelope.utf8))
        #expect(parsed.assertionConsumerServiceURL == ecp.assertionConsumerServiceURL)
        #expect(try XMLDocument(parsing: parsed.response).root.attribute("ID") == "_r1")
        let request = PAOSRequest(responseConsumerURL: "https://sp.example.org/Shibboleth.sso/SAML2/ECP", issuer: "https://sp", authnRequest: self.request)
        #expect(parsed.matches(request))
        let evil = ECPResponse(assertionConsumerServiceURL: "https://evil.example.net/ecp", response: response)
        #expect(!evil.matches(request))
    }

    @Test func paosHTTPHeaders() {
        #expect(PAOSHTTP.paosHeader == "ver=\"urn:liberty:paos:2003-08\";\"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp\"")
        #expect(PAOSHTTP.accept == "text/html; application/vnd.paos+xml")
        #expect(PAOSHTTP.contentType == "application/vnd.paos+xml")
        #expect(PAOSHTTP.announcesECP(accept: PAOSHTTP.accept, paos: PAOSHTTP.paosHeader))
        #expect(!PAOSHTTP.announcesECP(accept: "text/html", paos: PAOSHTTP.paosHeader))
        #expect(!PAOSHTTP.announcesECP(accept: PAOSHTTP.accept, paos: nil))
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
