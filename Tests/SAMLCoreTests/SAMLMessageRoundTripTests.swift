import Foundation
import Testing
@testable import SAMLCore

@Suite struct SAMLMessageRoundTripTests {
    @Test func authnRequest() throws {
        var request = SAMLMessageSamples.authnRequest()
        request.forceAuthn = true
        request.isPassive = false
        request.assertionConsumerServiceIndex = 3
        request.attributeConsumingServiceIndex = 0
        request.consent = "urn:oasis:names:tc:SAML:2.0:consent:obtained"
        request.nameIDPolicy = NameIDPolicy(format: NameIDFormat.persistent, spNameQualifier: "urn:aff", allowCreate: false)
        #expect(try AuthnRequest(xml: request.xml()) == request)
    }

    @Test func assertion() throws {
        var assertion = SAMLMessageSamples.assertion()
        assertion.conditions?.oneTimeUse = true
        assertion.conditions?.proxyRestriction = .init(count: 2, audiences: ["https://proxy.example.org"])
        assertion.conditions?.audienceRestrictions.append(.init(["urn:a", "urn:b"]))
        assertion.authnStatements[0].sessionNotOnOrAfter = SAMLMessageSamples.noon.addingTimeInterval(28_800)
        assertion.subject?.confirmations[0].data?.address = "192.0.2.10"
        assertion.subject?.nameID?.spProvidedID = "sp-alias"
        #expect(try Assertion(xml: assertion.xml()) == assertion)
    }

    @Test func response() throws {
        let response = SAMLMessageSamples.response()
        #expect(try Response(xml: response.xml()) == response)
        #expect(try Response(xml: Array(response.xml().utf8)) == response)
    }

    @Test func logoutMessages() throws {
        let request = SAMLMessageSamples.logoutRequest()
        #expect(try LogoutRequest(xml: request.xml()) == request)
        var withExpiry = request
        withExpiry.notOnOrAfter = SAMLMessageSamples.noon.addingTimeInterval(60)
        #expect(try LogoutRequest(xml: withExpiry.xml()) == withExpiry)
        let response = SAMLMessageSamples.logoutResponse()
        #expect(try LogoutResponse(xml: response.xml()) == response)
    }

    @Test func metadata() throws {
        let idp = SAMLMessageSamples.idpMetadata()
        let sp = SAMLMessageSamples.spMetadata()
        #expect(try EntityDescriptor(xml: idp.xml()) == idp)
        #expect(try EntityDescriptor(xml: sp.xml()) == sp)
        let aggregate = EntitiesDescriptor(name: "fed", validUntil: SAMLMessageSamples.noon, cacheDuration: "PT6H",
                                           entities: [idp, sp])
        #expect(try EntitiesDescriptor(xml: aggregate.xml()) == aggregate)
    }

    @Test func standaloneParts() throws {
        let status = Status(code: StatusCode(StatusCode.requester, nested: [StatusCode.invalidNameIDPolicy, "urn:x:deeper"]),
                            message: "no such format")
        #expect(try Status(xml: status.xml()) == status)
        let key = KeyDescriptor(use: .encryption, certificates: ["QUJD", "REVG"], encryptionMethods: ["urn:alg"])
        #expect(try KeyDescriptor(xml: key.xml()) == key)
        let subject = Subject(nameID: nil, confirmations: [SubjectConfirmation()])
        #expect(try Subject(xml: subject.xml()) == subject)
        let conditions = Conditions()
        #expect(try Conditions(xml: conditions.xml()) == conditions)
        let statement = AuthnStatement(authnInstant: SAMLMessageSamples.noon, authnContextClassRef: nil)
        #expect(try AuthnStatement(xml: statement.xml()) == statement)
    }

    @Test func escapingOfMarkupCharactersRoundTrips() throws {
        let tricky = "a<b&c\"d'e>f\tg\nh"
        var assertion = SAMLMessageSamples.assertion()
        assertion.subject?.nameID?.value = tricky
        assertion.subject?.nameID?.nameQualifier = tricky
        assertion.attributeStatements[0].attributes[0].values = [.init(tricky), .init("<&\"", type: "xs:string")]
        assertion.attributeStatements[0].attributes[0].friendlyName = "<&\""
        let text = assertion.xml()
        #expect(text.contains("a&lt;b&amp;c\"d'e&gt;f\tg\nh</saml:NameID>"))
        #expect(text.contains("NameQualifier=\"a&lt;b&amp;c&quot;d'e&gt;f&#x9;g&#xA;h\""))
        #expect(try Assertion(xml: text) == assertion)
    }

    @Test func signedAssertionTextIsEmbeddedByteForByte() throws {
        let response = SAMLMessageSamples.response()
        // Embedding the values' own text gives the same bytes as the plain builder.
        #expect(response.xml(assertionsXML: response.assertions.map { $0.xml() }) == response.xml())
        // A "signed" assertion, with whitespace and a signature the builder would never write.
        let signed = response.assertions[0].xml(signature:
            "<ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\">\n  <ds:SignatureValue>c2ln\n</ds:SignatureValue></ds:Signature>")
        let text = response.xml(assertionsXML: [signed])
        #expect(text.contains(signed))
        #expect(text.hasSuffix(signed + "</samlp:Response>"))
        #expect(try Response(xml: text) == response)
    }

    @Test func encryptedAssertionsAreKeptAsStandaloneText() throws {
        let text = """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        xmlns:xenc="http://www.w3.org/2001/04/xmlenc#" ID="_r" Version="2.0" IssueInstant="2024-05-01T12:00:00Z">\
        <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
        <saml:EncryptedAssertion><xenc:EncryptedData Type="http://www.w3.org/2001/04/xmlenc#Element">\
        <xenc:CipherData><xenc:CipherValue>QUJD</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>\
        </saml:EncryptedAssertion></samlp:Response>
        """
        let response = try Response(xml: text)
        #expect(response.assertions.isEmpty)
        #expect(response.encryptedAssertions.count == 1)
        let encrypted = try XMLDocument(parsing: response.encryptedAssertions[0])
        #expect(encrypted.root.is("EncryptedAssertion", SAMLNamespace.assertion))
        #expect(encrypted.root.descendants("CipherValue", SAMLNamespace.xenc).first?.text == "QUJD")
        #expect(try Response(xml: response.xml()) == response)
    }
}
