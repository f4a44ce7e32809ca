import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// The usernamemixed endpoints: tokens, their signatures, and the faults AD FS answers.
@Suite struct ADFSWSTrustTests {
    typealias S = ADFSTestSupport

    static func escaped(_ password: String) -> String { XMLWriter.escapeText(password) }

    @Test func trust13IssuesASignedSAML11AssertionByDefault() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            let page = try await S.post(.init(username: alice.username, passwordXML: Self.escaped(alice.password)),
                                        suite: suite, browser: browser)
            #expect(page.status == 200, "\(page.body.prefix(600))")
            #expect(page.header("Content-Type")?.hasPrefix("application/soap+xml") == true)
            let document = try XMLDocument(parsing: page.body)
            let body = try #require(document.root.firstChild("Body", S.soap12))
            let rstr = try #require(body.firstChild("RequestSecurityTokenResponseCollection", S.trust13)?
                .firstChild("RequestSecurityTokenResponse", S.trust13))
            #expect(rstr.firstChild("TokenType", S.trust13)?.text == "urn:oasis:names:tc:SAML:1.0:assertion")
            #expect(rstr.firstChild("KeyType", S.trust13)?.text == "http://docs.oasis-open.org/ws-sx/ws-trust/200512/Bearer")
            #expect(rstr.firstChild("Lifetime", S.trust13) != nil)
            #expect(rstr.descendants("Address", "http://www.w3.org/2005/08/addressing").first?.text == S.office365)
            let assertion = try #require(rstr.firstChild("RequestedSecurityToken", S.trust13)?
                .firstChild("Assertion", SAMLNamespace.assertion11))
            let id = try #require(assertion.attribute("AssertionID"))
            #expect(assertion.attribute("Issuer") == suite.adfs.entityID)
            #expect(assertion.attribute("MajorVersion") == "1" && assertion.attribute("MinorVersion") == "1")
            #expect(assertion.descendants("Audience", SAMLNamespace.assertion11).first?.text == S.office365)
            #expect(assertion.descendants("NameIdentifier", SAMLNamespace.assertion11).first?.text == "alice@example.org")
            let upn = assertion.descendants("Attribute", SAMLNamespace.assertion11).first { $0.attribute("AttributeName") == "upn" }
            #expect(upn?.attribute("AttributeNamespace") == "http://schemas.xmlsoap.org/ws/2005/05/identity/claims")
            // SAML 1.1 schema: ds:Signature is the Assertion's last child.
            #expect(assertion.children.last?.is("Signature", SAMLNamespace.dsig) == true)
            let verified = try S.verifier(suite).verify(assertion)
            #expect(verified.referencedID == id)
            // Both references name the assertion by ID (WSS SAML Token Profile).
            for name in ["RequestedAttachedReference", "RequestedUnattachedReference"] {
                let key = rstr.firstChild(name, S.trust13)?.descendants("KeyIdentifier", S.wsse).first
                #expect(key?.text == id)
                #expect(key?.attribute("ValueType") == "http://docs.oasis-open.org/wss/oasis-wss-saml-token-profile-1.0#SAMLAssertionID")
            }
            let header = try #require(document.root.firstChild("Header", S.soap12))
            #expect(header.firstChild("RelatesTo", "http://www.w3.org/2005/08/addressing")?.text == S.RST(username: "", passwordXML: "").messageID)
            let entry = try #require(suite.log.entries.last { $0.mock == "adfs" })
            #expect(entry.annotations["adfs.token"] == "saml11")
            #expect(entry.annotations["adfs.rp"] == S.office365)
        }
    }

    @Test func tokenTypeSAML2GivesASignedSAML20Assertion() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            var rst = S.RST(username: alice.username, passwordXML: Self.escaped(alice.password))
            rst.tokenType = "urn:oasis:names:tc:SAML:2.0:assertion"
            let page = try await S.post(rst, suite: suite, browser: browser)
            #expect(page.status == 200, "\(page.body.prefix(600))")
            let document = try XMLDocument(parsing: page.body)
            let assertion = try #require(document.root.descendants("Assertion", SAMLNamespace.assertion).first)
            #expect(try S.verifier(suite).verify(assertion).referencedID == assertion.attribute("ID"))
            let parsed = try Assertion(element: assertion)
            #expect(parsed.issuer.value == suite.adfs.entityID)
            #expect(parsed.conditions?.audienceRestrictions.first?.audiences == [S.office365])
            #expect(parsed.attributes.contains { $0.name == "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn" })
            #expect(document.root.descendants("TokenType", S.trust13).first?.text == "urn:oasis:names:tc:SAML:2.0:assertion")
            #expect(document.root.descendants("KeyIdentifier", S.wsse).first?.attribute("ValueType")
                == "http://docs.oasis-open.org/wss/oasis-wss-saml-token-profile-1.1#SAMLID")
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.token"] == "saml20")
        }
    }

    @Test func trust2005AnswersAnRSTRWithoutCollection() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let bob = SuiteFixture.user(suite, "bob")
            var rst = S.RST(username: bob.username, passwordXML: Self.escaped(bob.password))
            rst.trust2005 = true
            let page = try await S.post(rst, suite: suite, browser: browser)
            #expect(page.status == 200, "\(page.body.prefix(600))")
            let document = try XMLDocument(parsing: page.body)
            let body = try #require(document.root.firstChild("Body", S.soap12))
            let rstr = try #require(body.firstChild("RequestSecurityTokenResponse", S.trust2005))
            #expect(body.firstChild("RequestSecurityTokenResponseCollection", S.trust13) == nil)
            #expect(rstr.firstChild("KeyType", S.trust2005)?.text == "http://schemas.xmlsoap.org/ws/2005/05/identity/NoProofKey")
            let assertion = try #require(S.token(in: document))
            _ = try S.verifier(suite).verify(assertion)
            #expect(document.root.firstChild("Header", S.soap12)?.firstChild("Action", "http://www.w3.org/2005/08/addressing")?.text
                == "http://schemas.xmlsoap.org/ws/2005/02/trust/RSTR/Issue")
        }
    }

    @Test func aWrongPasswordIsFailedAuthentication() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let page = try await S.post(.init(username: "alice", passwordXML: "not-it"), suite: suite, browser: browser)
            #expect(page.status == 500)
            let fault = try #require(try S.fault(page.body))
            #expect(fault.code == "s:Sender")
            #expect(fault.subcode == "a:FailedAuthentication")
            #expect(page.body.contains(S.subcode("FailedAuthentication", namespace: S.wsse)))
            #expect(fault.reason == "ID3242: The security token could not be authenticated or authorized.")
            let entry = try #require(suite.log.entries.last { $0.mock == "adfs" })
            #expect(entry.annotations["adfs.fault"] == "FailedAuthentication")
        }
    }

    /// `<`, `&` and `]]>` in a password: escaped, the token comes; raw, the envelope is not
    /// XML and AD FS answers the malformed-request fault (HTTP 400), never a token.
    @Test(arguments: ["dana", "erin", "frank", "grace"])
    func markupInPasswordsWorksOnlyWhenEscaped(username: String) async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let user = SuiteFixture.user(suite, username)
            let escaped = try await S.post(.init(username: username, passwordXML: Self.escaped(user.password)), suite: suite, browser: browser)
            #expect(escaped.status == 200, "\(escaped.body.prefix(400))")
            let raw = try await S.post(.init(username: username, passwordXML: user.password), suite: suite, browser: browser)
            #expect(raw.status == 400)
            let fault = try #require(try S.fault(raw.body))
            #expect(fault.subcode == "a:InvalidRequest")
            #expect(fault.reason == "ID3035: The request was not valid or is malformed.")
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.fault-detail"]?.contains("not well-formed") == true)
        }
    }

    @Test func aCDATAPasswordIsReadAsText() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let page = try await S.post(.init(username: "erin", passwordXML: "<![CDATA[erin<3]]>"), suite: suite, browser: browser)
            #expect(page.status == 200)
        }
    }

    @Test func anUnknownAppliesToIsAnInvalidRequestScope() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            var rst = S.RST(username: alice.username, passwordXML: Self.escaped(alice.password))
            rst.appliesTo = "urn:unknown:relying-party"
            let page = try await S.post(rst, suite: suite, browser: browser)
            #expect(page.status == 500)
            let fault = try #require(try S.fault(page.body))
            #expect(fault.subcode == "a:InvalidRequest")
            #expect(page.body.contains(S.subcode("InvalidRequest", namespace: S.trust13)))
            #expect(fault.reason == "ID3082: The request scope is not valid or is unsupported.")
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.fault-detail"]?.hasPrefix("MSIS7007") == true)
        }
    }

    @Test func aURLAppliesToFindsTheTrustByPrefix() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            var rst = S.RST(username: alice.username, passwordXML: Self.escaped(alice.password))
            rst.appliesTo = suite.environment.spEntityID + "/some/page"
            let page = try await S.post(rst, suite: suite, browser: browser)
            #expect(page.status == 200)
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.rp"] == suite.environment.spEntityID)
        }
    }

    @Test func aMissingSecurityHeaderOrAStaleTimestampIsInvalidSecurity() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            var rst = S.RST(username: alice.username, passwordXML: Self.escaped(alice.password))
            rst.security = false
            var page = try await S.post(rst, suite: suite, browser: browser)
            #expect(page.status == 500)
            #expect(try S.fault(page.body)?.subcode == "a:InvalidSecurity")
            #expect(try S.fault(page.body)?.reason == "An error occurred when verifying security for the message.")

            rst.security = true
            rst.created = suite.environment.clock.now().addingTimeInterval(-3600)  // expired 50 minutes ago
            page = try await S.post(rst, suite: suite, browser: browser)
            #expect(try S.fault(page.body)?.subcode == "a:InvalidSecurity")
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.fault-detail"]?.contains("has passed") == true)

            rst.created = suite.environment.clock.now().addingTimeInterval(3600)  // an hour ahead
            page = try await S.post(rst, suite: suite, browser: browser)
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.fault-detail"]?.contains("in the future") == true)

            // A request written now goes stale when AD FS's clock moves past its Expires + skew.
            rst.created = suite.environment.clock.now()
            page = try await S.post(rst, suite: suite, browser: browser)
            #expect(page.status == 200)
            suite.environment.advanceClock(by: 600 + 301)
            page = try await S.post(rst, suite: suite, browser: browser)
            #expect(try S.fault(page.body)?.subcode == "a:InvalidSecurity")
        }
    }

    @Test func aForeignActionIsActionNotSupportedAndSOAP11IsRefused() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            var rst = S.RST(username: alice.username, passwordXML: Self.escaped(alice.password))
            rst.action = "http://schemas.xmlsoap.org/ws/2005/02/trust/RST/Issue"  // a 2005 action on the 13 endpoint
            let page = try await S.post(rst, suite: suite, browser: browser)
            #expect(try S.fault(page.body)?.subcode == "a:ActionNotSupported")
            let soap11 = try await S.post(.init(username: alice.username, passwordXML: Self.escaped(alice.password)),
                                          suite: suite, browser: browser, contentType: "text/xml; charset=utf-8")
            #expect(soap11.status == 415)
            #expect(soap11.body.contains("was not the expected type 'application/soap+xml; charset=utf-8'"))
        }
    }
}
