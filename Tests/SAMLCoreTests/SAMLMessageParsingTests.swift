import Foundation
import Testing
@testable import SAMLCore

@Suite struct SAMLMessageParsingTests {
    func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try Array(Data(contentsOf: url))
    }

    func samlError(_ body: () throws -> Void) -> SAMLError? {
        do {
            try body()
            return nil
        } catch let error as SAMLError {
            return error
        } catch {
            Issue.record("not a SAMLError: \(error)")
            return nil
        }
    }

    @Test func shibbolethIdPResponse() throws {
        let response = try Response(xml: fixture("shibboleth-idp-response.xml"))
        #expect(response.id == "_2b8f3c5e8c1d9a7e6f5b4a3c2d1e0f9a")
        #expect(response.inResponseTo == "_c7055387af614fce8b98e2927324b306")
        #expect(response.issuer == Issuer("https://idp.example.org/idp/shibboleth"))
        #expect(response.status.isSuccess)
        #expect(SAMLDateTime.string(from: response.issueInstant, precision: .milliseconds) == "2024-05-01T12:00:00.123Z")
        let assertion = try #require(response.assertions.first)
        #expect(assertion.issuer.value == "https://idp.example.org/idp/shibboleth")
        #expect(assertion.subject?.nameID == NameID("AAdzZWNyZXQxeyJhbGciOiJ", format: NameIDFormat.transient,
                                                    nameQualifier: "https://idp.example.org/idp/shibboleth",
                                                    spNameQualifier: "https://sp.example.org/shibboleth"))
        let data = try #require(assertion.subject?.confirmations.first?.data)
        #expect(data.recipient == "https://sp.example.org/Shibboleth.sso/SAML2/POST")
        #expect(data.address == "192.0.2.10")
        #expect(data.notOnOrAfter.map { SAMLDateTime.string(from: $0) } == "2024-05-01T12:05:00Z")
        #expect(assertion.conditions?.audiences == ["https://sp.example.org/shibboleth"])
        #expect(assertion.authnStatements.first?.sessionIndex == "_9f8e7d6c5b4a39281706f5e4d3c2b1a0")
        #expect(assertion.authnStatements.first?.authnContextClassRef == AuthnContextClass.passwordProtectedTransport)
        let eppn = try #require(assertion.attributeStatements.first?.attribute(named: "eduPersonPrincipalName"))
        #expect(eppn.name == "urn:oid:1.3.6.1.4.1.5923.1.1.1.6")
        #expect(eppn.values == [.init("jdoe@example.org", type: "xs:string")])  // xsd:string normalised
        let affiliation = try #require(assertion.attributeStatements.first?.attribute(named: "urn:oid:1.3.6.1.4.1.5923.1.1.1.1"))
        #expect(affiliation.stringValues == ["member", "staff"])
        let targeted = try #require(assertion.attributeStatements.first?.attribute(named: "eduPersonTargetedID"))
        #expect(targeted.stringValues == ["Q2hhbmdlTWU="])
    }

    @Test func azureADStyleResponseWithSevenDigitFractionsAndDefaultNamespace() throws {
        let response = try Response(xml: fixture("azure-ad-response.xml"))
        #expect(response.consent == "urn:oasis:names:tc:SAML:2.0:consent:unspecified")
        let assertion = try #require(response.assertions.first)
        #expect(abs(assertion.issueInstant.timeIntervalSince1970 - 1_714_564_800.1234567) < 1e-6)
        #expect(assertion.issuer.value == "https://sts.windows.net/00000000-0000-0000-0000-000000000000/")
        #expect(assertion.subject?.nameID?.value == "jdoe@example.com")
        // AD FS writes the AttributeStatement before the AuthnStatement: both are read.
        #expect(assertion.authnStatements.count == 1)
        #expect(assertion.attributes.map(\.name) == [
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
            "http://schemas.microsoft.com/identity/claims/displayname",
        ])
        #expect(assertion.attributes[0].values == [.init("jdoe@example.com")])
        // `+00:00` offsets (some Java and PHP stacks) read as UTC.
        #expect(assertion.conditions?.notOnOrAfter == Date(timeIntervalSince1970: 1_714_568_400))
    }

    @Test func failedStatusWithNestedCodeAndMessage() throws {
        let text = """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_f" Version="2.0" IssueInstant="2024-05-01T12:00:00Z">
          <samlp:Status>
            <samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder">
              <samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:AuthnFailed"/>
            </samlp:StatusCode>
            <samlp:StatusMessage>Authentication failed</samlp:StatusMessage>
          </samlp:Status>
        </samlp:Response>
        """
        let response = try Response(xml: text)
        #expect(response.status == Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.authnFailed]),
                                          message: "Authentication failed"))
        #expect(!response.status.isSuccess)
        #expect(response.status.code.hasStandardTopLevelValue)
        #expect(response.issuer == nil)
    }

    @Test func nameIDWithACommentIsReadWhole() throws {
        let text = #"<saml:NameID xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">admin@evil.com<!---->.example.org</saml:NameID>"#
        #expect(try NameID(xml: text).value == "admin@evil.com.example.org")
        let attribute = try Attribute(xml: """
            <saml:Attribute xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" Name="mail">\
            <saml:AttributeValue>admin@evil.com<!-- x -->.example.org</saml:AttributeValue></saml:Attribute>
            """)
        #expect(attribute.stringValues == ["admin@evil.com.example.org"])
    }

    @Test func signatureChildIsIgnored() throws {
        let assertion = SAMLMessageSamples.assertion()
        let signed = assertion.xml(signature: #"<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo/></ds:Signature>"#)
        #expect(try Assertion(xml: signed) == assertion)
    }

    @Test func missingRequiredAttributeIsNamedWithElementAndLine() {
        let text = """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"
            ID="_x" Version="2.0">
          <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>
        </samlp:Response>
        """
        let error = samlError { _ = try Response(xml: text) }
        #expect(error?.reason == .missingAttribute)
        #expect(error?.attribute == "IssueInstant")
        #expect(error?.element == "samlp:Response")
        // libxml2 numbers an element by the line its start tag ends on.
        #expect(error?.line == 2)
        #expect(error?.description == "saml.missing-attribute: required attribute IssueInstant is missing (element samlp:Response, attribute IssueInstant) at line 2")
    }

    @Test func nestedErrorsPointAtTheInnerElement() {
        let text = """
        <saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a" Version="2.0" IssueInstant="2024-05-01T12:00:00Z">
          <saml:Issuer>https://idp.example.org</saml:Issuer>
          <saml:Subject>
            <saml:SubjectConfirmation/>
          </saml:Subject>
        </saml:Assertion>
        """
        let error = samlError { _ = try Assertion(xml: text) }
        #expect(error?.reason == .missingAttribute)
        #expect(error?.attribute == "Method")
        #expect(error?.element == "saml:SubjectConfirmation")
        #expect(error?.line == 4)
    }

    @Test func badTimestampNamesAttributeAndValue() {
        let text = #"<saml:Conditions xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" NotOnOrAfter="2024-05-01 12:00"/>"#
        let error = samlError { _ = try Conditions(xml: text) }
        #expect(error?.reason == .invalidDateTime)
        #expect(error?.attribute == "NotOnOrAfter")
        #expect(error?.element == "saml:Conditions")
        #expect(error?.message.contains("'2024-05-01 12:00'") == true)
    }

    @Test func otherStructuralErrors() {
        let p = #"xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion""#
        let success = #"<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>"#
        #expect(samlError { _ = try Response(xml: "<samlp:Response \(p) ID=\"_r\" Version=\"1.1\" IssueInstant=\"2024-05-01T12:00:00Z\">\(success)</samlp:Response>") }?.reason
                == .unsupportedVersion)
        #expect(samlError { _ = try Response(xml: "<samlp:Response \(p) ID=\"_r\" Version=\"2.0\" IssueInstant=\"2024-05-01T12:00:00Z\"/>") }?.reason
                == .missingElement)
        #expect(samlError { _ = try Response(xml: "<saml:Response \(p) ID=\"_r\" Version=\"2.0\" IssueInstant=\"2024-05-01T12:00:00Z\">\(success)</saml:Response>") }?.reason
                == .unexpectedElement)
        let twoIssuers = "<samlp:Response \(p) ID=\"_r\" Version=\"2.0\" IssueInstant=\"2024-05-01T12:00:00Z\"><saml:Issuer>a</saml:Issuer><saml:Issuer>b</saml:Issuer>\(success)</samlp:Response>"
        #expect(samlError { _ = try Response(xml: twoIssuers) }?.reason == .duplicateElement)
        let badBool = "<samlp:AuthnRequest \(p) ID=\"_q\" Version=\"2.0\" IssueInstant=\"2024-05-01T12:00:00Z\" ForceAuthn=\"yes\"/>"
        let boolError = samlError { _ = try AuthnRequest(xml: badBool) }
        #expect(boolError?.reason == .invalidAttribute)
        #expect(boolError?.attribute == "ForceAuthn")
        let badComparison = "<samlp:RequestedAuthnContext \(p) Comparison=\"best\"/>"
        #expect(samlError { _ = try RequestedAuthnContext(xml: badComparison) }?.attribute == "Comparison")
        let emptyIssuer = "<saml:Issuer \(p)>  </saml:Issuer>"
        #expect(samlError { _ = try Issuer(xml: emptyIssuer) }?.reason == .invalidValue)
        let noNameID = "<samlp:LogoutRequest \(p) ID=\"_l\" Version=\"2.0\" IssueInstant=\"2024-05-01T12:00:00Z\"><saml:Issuer>a</saml:Issuer></samlp:LogoutRequest>"
        #expect(samlError { _ = try LogoutRequest(xml: noNameID) }?.reason == .missingElement)
    }

    @Test func xmlLevelErrorsPassThrough() {
        #expect(throws: XMLError.self) { _ = try Response(xml: "<samlp:Response") }
        #expect(throws: XMLError.self) { _ = try Response(xml: "<!DOCTYPE x><x/>") }
    }

    @Test func authnRequestAsSPsSendIt() throws {
        // Shibboleth SP 3 style, AllowCreate as "1", with an ACS index instead of a URL.
        let text = """
        <samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" \
        AssertionConsumerServiceIndex="2" Destination="https://idp.example.org/idp/profile/SAML2/Redirect/SSO" \
        ID="_ec4d9e2b" IssueInstant="2024-05-01T12:00:00Z" IsPassive="0" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:PAOS" Version="2.0">\
        <saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">https://sp.example.org/shibboleth</saml:Issuer>\
        <samlp:NameIDPolicy AllowCreate="1"/></samlp:AuthnRequest>
        """
        let request = try AuthnRequest(xml: text)
        #expect(request.assertionConsumerServiceIndex == 2)
        #expect(request.assertionConsumerServiceURL == nil)
        #expect(request.isPassive == false)
        #expect(request.protocolBinding == SAMLBindingURI.paos)
        #expect(request.nameIDPolicy == NameIDPolicy(allowCreate: true))
        #expect(request.issuer?.value == "https://sp.example.org/shibboleth")
    }
}
