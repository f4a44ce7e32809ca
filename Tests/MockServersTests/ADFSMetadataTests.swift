import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Federation metadata and mex, and the knobs on the WS-Trust tokens.
@Suite struct ADFSMetadataTests {
    typealias S = ADFSTestSupport

    @Test func federationMetadataIsSignedAndCarriesTheTokenSigningCertificate() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let page = try await browser.get(suite.readyInfo().adfs.federationMetadata)
            #expect(page.status == 200)
            let document = try XMLDocument(parsing: page.body)
            let root = document.root
            #expect(root.attribute("entityID") == suite.adfs.entityID)
            // Signed like AD FS's: an enveloped signature over the EntityDescriptor, first child.
            #expect(root.children.first?.is("Signature", SAMLNamespace.dsig) == true)
            #expect(try S.verifier(suite).verify(root).referencedID == root.attribute("ID"))
            let types = root.children("RoleDescriptor", SAMLNamespace.metadata).compactMap { $0.attribute("type", namespace: SAMLNamespace.xsi) }
            #expect(types == ["fed:ApplicationServiceType", "fed:SecurityTokenServiceType"])
            let descriptor = try EntityDescriptor(element: root)
            let idp = try #require(descriptor.idpSSODescriptor)
            let signing = try #require(idp.keyDescriptors.first { $0.use == .signing })
            #expect(signing.certificates.first == suite.environment.profile.idpCertificate.base64DER)
            #expect(descriptor.spSSODescriptor != nil)
            #expect(page.body.contains(suite.readyInfo().adfs.usernameMixed13))
        }
    }

    @Test func mexNamesBothUsernameMixedEndpointsWithTheirPolicies() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let info = suite.readyInfo().adfs
            let page = try await browser.get(info.mex)
            let root = try XMLDocument(parsing: page.body).root
            let wsdl = "http://schemas.xmlsoap.org/wsdl/"
            let policies = Set(root.children("Policy", "http://schemas.xmlsoap.org/ws/2004/09/policy").compactMap {
                $0.attribute("Id", namespace: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd")
            })
            var actions: [String: String] = [:]
            for binding in root.children("binding", wsdl) {
                let reference = binding.firstChild("PolicyReference", "http://schemas.xmlsoap.org/ws/2004/09/policy")?.attribute("URI") ?? ""
                #expect(policies.contains(String(reference.dropFirst())), "binding's policy \(reference) is defined")
                actions[binding.attribute("name") ?? ""] = binding.descendants("operation", "http://schemas.xmlsoap.org/wsdl/soap12/").first?.attribute("soapAction")
            }
            let addresses = root.descendants("Address", "http://www.w3.org/2005/08/addressing").map(\.text)
            #expect(Set(addresses) == [info.usernameMixed13, info.usernameMixed2005])
            #expect(Set(actions.values) == ["http://docs.oasis-open.org/ws-sx/ws-trust/200512/RST/Issue",
                                            "http://schemas.xmlsoap.org/ws/2005/02/trust/RST/Issue"])
        }
    }

    static func token(_ suite: MockSuite, _ browser: TestBrowser, tokenType: String? = nil) async throws -> (TestBrowser.Page, XMLDocument) {
        let alice = SuiteFixture.user(suite)
        var rst = S.RST(username: alice.username, passwordXML: XMLWriter.escapeText(alice.password))
        rst.tokenType = tokenType
        let page = try await S.post(rst, suite: suite, browser: browser)
        return (page, try XMLDocument(parsing: page.body))
    }

    @Test func adfsFaultKnobsAnswerTheirFaults() async throws {
        try await SuiteFixture.with("adfs", knobs: [.adfs(.fault(.requestFailed))]) { suite, browser in
            let (page, _) = try await Self.token(suite, browser)
            let fault = try #require(try S.fault(page.body))
            #expect(fault.code == "s:Receiver")
            #expect(fault.subcode == "a:RequestFailed")
            #expect(fault.reason == "MSIS3127: The specified request failed.")
        }
        try await SuiteFixture.with("adfs", knobs: [.adfs(.fault(.failedAuthentication))]) { suite, browser in
            let (page, _) = try await Self.token(suite, browser)
            #expect(try S.fault(page.body)?.subcode == "a:FailedAuthentication")
        }
    }

    @Test func tokenTypeKnobOverridesTheRequest() async throws {
        try await SuiteFixture.with("adfs", knobs: [.adfs(.tokenType(.saml20))]) { suite, browser in
            let (_, document) = try await Self.token(suite, browser)
            #expect(document.root.descendants("Assertion", SAMLNamespace.assertion).count == 1)
        }
    }

    @Test func assertionKnobsBreakTheWSTrustToken() async throws {
        try await SuiteFixture.with("adfs", knobs: [.wrongSigningKey]) { suite, browser in
            let (_, document) = try await Self.token(suite, browser)
            let assertion = try #require(S.token(in: document))
            #expect(throws: SignatureError.self) { try S.verifier(suite).verify(assertion) }
        }
        try await SuiteFixture.with("adfs", knobs: [.assertionUnsigned, .wrongAudience]) { suite, browser in
            let (_, document) = try await Self.token(suite, browser)
            let assertion = try #require(S.token(in: document))
            #expect(assertion.firstChild("Signature", SAMLNamespace.dsig) == nil)
            #expect(assertion.descendants("Audience", SAMLNamespace.assertion11).first?.text == "https://other-sp.example.org/shibboleth")
        }
        try await SuiteFixture.with("adfs", knobs: [.expired]) { suite, browser in
            let (_, document) = try await Self.token(suite, browser, tokenType: "urn:oasis:names:tc:SAML:2.0:assertion")
            let assertion = try Assertion(element: try #require(S.token(in: document)))
            #expect(try #require(assertion.conditions?.notOnOrAfter) < suite.environment.clock.now())
        }
    }
}
