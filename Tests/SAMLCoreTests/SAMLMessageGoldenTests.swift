import Foundation
import Testing
@testable import SAMLCore

/// Sample messages built from a frozen clock and a seeded ID generator.
enum SAMLMessageSamples {
    static let noon = Date(timeIntervalSince1970: 1_714_564_800) // 2024-05-01T12:00:00Z
    static let clock = FixedClock(noon)
    static let idp = "https://idp.example.org/idp/shibboleth"
    static let sp = "https://sp.example.org/shibboleth"
    static let acs = "https://sp.example.org/Shibboleth.sso/SAML2/POST"
    static let sso = "https://idp.example.org/idp/profile/SAML2/Redirect/SSO"
    static let certificate = "MIIBszCCAVmgAwIBAgIUHarnessTestCertificateOnlyAAAAAAAAAAAwCgYIKoZIzj0EAwIw=="

    static func authnRequest(ids: IDGenerator = SeededIDGenerator(seed: 42)) -> AuthnRequest {
        var request = AuthnRequest.make(issuer: sp, destination: sso, assertionConsumerServiceURL: acs,
                                        clock: clock, ids: ids)
        request.providerName = "Harness SP"
        request.requestedAuthnContext = RequestedAuthnContext(
            classRefs: [AuthnContextClass.passwordProtectedTransport], comparison: .minimum)
        return request
    }

    static func assertion(ids: IDGenerator = SeededIDGenerator(seed: 42)) -> Assertion {
        Assertion.make(
            issuer: idp,
            nameID: NameID("AAdzZWNyZXQxeyJhbGciOiJ", format: NameIDFormat.transient,
                           nameQualifier: idp, spNameQualifier: sp),
            audience: sp, recipient: acs, inResponseTo: "_req-0001", lifetime: 300,
            attributes: [
                Attribute(name: "urn:oid:1.3.6.1.4.1.5923.1.1.1.6", friendlyName: "eduPersonPrincipalName",
                          strings: ["jdoe@example.org"]),
                Attribute(name: "urn:oid:1.3.6.1.4.1.5923.1.1.1.1", friendlyName: "eduPersonAffiliation",
                          strings: ["member", "staff"]),
            ],
            clock: clock, ids: ids)
    }

    static func response(ids: IDGenerator = SeededIDGenerator(seed: 42)) -> Response {
        let assertion = assertion(ids: ids)
        return Response.make(issuer: idp, destination: acs, inResponseTo: "_req-0001",
                             assertions: [assertion], clock: clock, ids: ids)
    }

    static func logoutRequest(ids: IDGenerator = SeededIDGenerator(seed: 42)) -> LogoutRequest {
        LogoutRequest.make(issuer: sp, destination: "https://idp.example.org/idp/profile/SAML2/Redirect/SLO",
                           nameID: NameID("jdoe", format: NameIDFormat.persistent, spNameQualifier: sp),
                           sessionIndexes: ["_session-1", "_session-2"], clock: clock, ids: ids)
    }

    static func logoutResponse(ids: IDGenerator = SeededIDGenerator(seed: 42)) -> LogoutResponse {
        LogoutResponse.make(issuer: idp, destination: "https://sp.example.org/Shibboleth.sso/SLO/Redirect",
                            inResponseTo: "_logout-1",
                            status: Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.partialLogout]),
                                           message: "Not every session ended"),
                            clock: clock, ids: ids)
    }

    static func idpMetadata() -> EntityDescriptor {
        EntityDescriptor(
            entityID: idp, validUntil: noon.addingTimeInterval(86_400 * 7), cacheDuration: "PT1H",
            idpSSODescriptor: IDPSSODescriptor(
                wantAuthnRequestsSigned: false,
                keyDescriptors: [KeyDescriptor(use: .signing, certificates: [certificate]),
                                 KeyDescriptor(use: .encryption, certificates: [certificate],
                                               encryptionMethods: ["http://www.w3.org/2009/xmlenc11#aes128-gcm"])],
                singleLogoutServices: [Endpoint(binding: SAMLBindingURI.httpRedirect,
                                                location: "https://idp.example.org/idp/profile/SAML2/Redirect/SLO")],
                nameIDFormats: [NameIDFormat.transient, NameIDFormat.persistent],
                singleSignOnServices: [
                    Endpoint(binding: SAMLBindingURI.httpRedirect, location: sso),
                    Endpoint(binding: SAMLBindingURI.httpPost, location: "https://idp.example.org/idp/profile/SAML2/POST/SSO"),
                    Endpoint(binding: SAMLBindingURI.soap, location: "https://idp.example.org/idp/profile/SAML2/SOAP/ECP"),
                ]))
    }

    static func spMetadata() -> EntityDescriptor {
        EntityDescriptor(
            entityID: sp,
            spSSODescriptor: SPSSODescriptor(
                authnRequestsSigned: true, wantAssertionsSigned: true,
                keyDescriptors: [KeyDescriptor(use: nil, certificates: [certificate])],
                nameIDFormats: [NameIDFormat.transient],
                assertionConsumerServices: [
                    IndexedEndpoint(binding: SAMLBindingURI.httpPost, location: acs, index: 1, isDefault: true),
                    IndexedEndpoint(binding: SAMLBindingURI.paos, location: "https://sp.example.org/Shibboleth.sso/SAML2/ECP", index: 2),
                ]))
    }
}

@Suite struct SAMLMessageGoldenTests {
    /// Compares with the committed fixture. `SAML_RECORD_FIXTURES=1 swift test` rewrites the
    /// fixtures in the source tree instead (then eyeball them against the schema and commit).
    func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if ProcessInfo.processInfo.environment["SAML_RECORD_FIXTURES"] != nil {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Fixtures/\(name)")
            try actual.write(to: source, atomically: true, encoding: .utf8)
            return
        }
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, sourceLocation: sourceLocation)
    }

    @Test func authnRequestMatchesFixture() throws {
        try expectGolden(SAMLMessageSamples.authnRequest().xml(), "authn-request.xml")
    }

    @Test func assertionMatchesFixture() throws {
        try expectGolden(SAMLMessageSamples.assertion().xml(), "assertion.xml")
    }

    @Test func responseMatchesFixture() throws {
        try expectGolden(SAMLMessageSamples.response().xml(), "response.xml")
    }

    @Test func logoutRequestMatchesFixture() throws {
        try expectGolden(SAMLMessageSamples.logoutRequest().xml(), "logout-request.xml")
    }

    @Test func logoutResponseMatchesFixture() throws {
        try expectGolden(SAMLMessageSamples.logoutResponse().xml(), "logout-response.xml")
    }

    @Test func metadataMatchesFixture() throws {
        let aggregate = EntitiesDescriptor(name: "urn:example:federation",
                                           entities: [SAMLMessageSamples.idpMetadata(), SAMLMessageSamples.spMetadata()])
        try expectGolden(aggregate.xml(), "metadata-aggregate.xml")
    }

    @Test func sameSeedSameBytesOtherSeedOtherIDs() {
        #expect(SAMLMessageSamples.response().xml() == SAMLMessageSamples.response().xml())
        let other = SAMLMessageSamples.response(ids: SeededIDGenerator(seed: 43))
        #expect(other.id != SAMLMessageSamples.response().id)
    }

    @Test func factoriesTruncateTheClockToWholeSeconds() {
        let clock = FixedClock(SAMLMessageSamples.noon.addingTimeInterval(0.75))
        let request = AuthnRequest.make(issuer: "sp", destination: nil, assertionConsumerServiceURL: nil,
                                        clock: clock, ids: SeededIDGenerator(seed: 1))
        #expect(request.issueInstant == SAMLMessageSamples.noon)
    }

    @Test func schemaOrderOfAssertionAndResponseChildren() throws {
        let response = SAMLMessageSamples.response()
        let document = try XMLDocument(parsing: response.xml(signature: "<ds:Signature xmlns:ds=\"\(SAMLNamespace.dsig)\"/>"))
        #expect(document.root.children.map(\.localName) == ["Issuer", "Signature", "Status", "Assertion"])
        let assertion = try XMLDocument(parsing: response.assertions[0].xml(signature: "<ds:Signature xmlns:ds=\"\(SAMLNamespace.dsig)\"/>"))
        #expect(assertion.root.children.map(\.localName)
                == ["Issuer", "Signature", "Subject", "Conditions", "AuthnStatement", "AttributeStatement"])
    }
}
