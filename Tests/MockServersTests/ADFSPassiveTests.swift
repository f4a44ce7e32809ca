import TestSupport
import Foundation
@testable import MockServers
import SAMLCore
import Testing

/// The passive pages: IdpInitiatedSignOn.aspx, the forms sign-in, SAML-P at /adfs/ls/.
@Suite struct ADFSPassiveTests {
    typealias S = ADFSTestSupport
    static let awsACS = "https://signin.aws.amazon.com/saml"

    /// Signs in on the forms page `page` and returns the page after AD FS's redirect.
    static func signIn(_ browser: TestBrowser, _ page: TestBrowser.Page, username: String, password: String) async throws -> TestBrowser.Page {
        let answer = try await browser.submit(page, values: ["UserName": username, "Password": password])
        #expect(answer.status == 302, "\(answer.body.prefix(400))")
        #expect(browser.cookie("MSISAuth") != nil)
        return try await browser.follow(answer)
    }

    static func validate(_ page: TestBrowser.Page, suite: MockSuite, sp: String, acs: String,
                         requestID: String? = nil) throws -> ValidatedAssertion {
        let form = try #require(page.forms.first)
        #expect(form.action == ADFSPages.withPort(acs), "AD FS writes the default port out")
        let message = try PostBinding.decode(try #require(form.value("SAMLResponse")))
        let configuration = SPValidator.Configuration(
            idpEntityID: suite.adfs.entityID, idpKeys: [suite.environment.profile.idpCertificate.publicKey],
            spEntityID: sp, acsURL: acs, requestID: requestID, allowUnsolicited: requestID == nil,
            clock: suite.environment.clock, signatureRequirement: .assertion)
        return try SPValidator(configuration: configuration).validateThrowing(message.xml)
    }

    @Test func theSignOnPageOffersTheRelyingParties() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let page = try await browser.get(suite.readyInfo().adfs.idpInitiatedSignOn)
            #expect(page.status == 200)
            #expect(page.body.contains("<div id=\"idp_SignInThisSiteStatusLabel\" class=\"groupMargin\"><span>You are not signed in.</span></div>"))
            let form = try #require(page.forms.first)
            #expect(form.id == "idpForm")
            // AD FS's ids and names (docs/adfs.md, "The pages"): this site checked, the select disabled until the other radio is chosen.
            #expect(form.fields.map(\.name) == ["SignInIdpSite", "SignInOtherSite", "SignInSubmit"])
            #expect(page.body.contains("<input id=\"idp_ThisRpRadioButton\" name=\"SignInIdpSite\" type=\"radio\" value=\"SignInIdpSite\" checked=\"checked\""))
            #expect(page.body.contains("<input id=\"idp_OtherRpRadioButton\" name=\"SignInOtherSite\" type=\"radio\" value=\"SignInOtherSite\""))
            #expect(page.body.contains("<select id=\"idp_RelyingPartyDropDownList\" name=\"RelyingParty\" class=\"text fullWidth\" disabled=\"disabled\">"))
            #expect(page.body.contains("<input id=\"idp_SignInButton\" type=\"submit\" name=\"SignInSubmit\" value=\"Sign in\""))
            for rp in [S.aws, suite.environment.spEntityID] {
                #expect(page.body.contains("<option value=\"\(HTMLText.escape(rp))\">"), "\(rp) offered")
            }
            // Choosing a site leads to the forms sign-in for it.
            let chosen = try await browser.submit(page, values: ["SignInOtherSite": "SignInOtherSite", "RelyingParty": S.aws])
            #expect(chosen.status == 200)
            #expect(chosen.forms.first?.action?.contains("loginToRp=urn%3Aamazon%3Awebservices") == true)
            #expect(chosen.forms.first?.fields.contains { $0.name == "AuthMethod" && $0.value == "FormsAuthentication" } == true)
        }
    }

    @Test func awsGetsASignedResponseWithRoleClaims() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            let start = suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + S.aws
            let form = try await browser.get(start)
            #expect(form.forms.first?.fields.contains { $0.name == "UserName" } == true)
            let bad = try await browser.submit(form, values: ["UserName": "alice", "Password": "nope"])
            #expect(bad.status == 200)
            #expect(bad.body.contains("Incorrect user ID or password. Type the correct user ID and password, and try again."))
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.login"] == "bad-password")
            let post = try await Self.signIn(browser, bad, username: alice.username, password: alice.password)
            let assertion = try Self.validate(post, suite: suite, sp: S.aws, acs: Self.awsACS)
            let byName = Dictionary(assertion.attributes.map { ($0.name, $0.stringValues) }, uniquingKeysWith: +)
            #expect(byName["https://aws.amazon.com/SAML/Attributes/Role"] == [
                "arn:aws:iam::123456789012:saml-provider/ADFS,arn:aws:iam::123456789012:role/ADFS-Admins",
                "arn:aws:iam::210987654321:saml-provider/ADFS,arn:aws:iam::210987654321:role/ADFS-ReadOnly",
            ])
            #expect(byName["https://aws.amazon.com/SAML/Attributes/RoleSessionName"] == ["alice@example.org"])
            #expect(byName["https://aws.amazon.com/SAML/Attributes/SessionDuration"] == ["3600"])
            #expect(byName[ "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"] == nil, "only the released claims")
            #expect(assertion.issuer == suite.adfs.entityID)
            // The session is reused: the next sign-on goes straight to the auto-post.
            let again = try await browser.get(start)
            #expect(again.forms.first?.value("SAMLResponse") != nil)
        }
    }

    /// Ends at the mock SP's /secure with its secret (needs the SP to trust AD FS's issuer).
    @Test func theMockSPAcceptsAnIdPInitiatedSignIn() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let bob = SuiteFixture.user(suite, "bob")
            let sp = suite.environment.spEntityID
            let start = suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + PercentEncoding.queryComponentEncode(sp)
            let post = try await Self.signIn(browser, try await browser.get(start), username: bob.username, password: bob.password)
            _ = try Self.validate(post, suite: suite, sp: sp, acs: suite.readyInfo().sp.acs)
            let final = try await browser.follow(try await browser.submit(post))
            let secret = try #require(suite.log.entries.compactMap { $0.annotations["sp.secret"] }.last,
                                      "SP refused: \(SuiteFixture.spVerdict(suite).rejected ?? "-")")
            // No RelayState named a resource: a stock Shibboleth SP lands on homeURL ("/"),
            // which shows the session.
            #expect(final.url == suite.readyInfo().sp.base + "/")
            #expect(final.body.contains(secret))
        }
    }

    @Test func anUnknownRelyingPartyIsMSIS7007() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let page = try await browser.get(suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=urn:nobody")
            #expect(page.status == 400)
            #expect(page.body.contains("An error occurred"))
            #expect(page.body.contains("MSIS7007: The requested relying party trust &#39;urn:nobody&#39;")
                || page.body.contains("MSIS7007: The requested relying party trust 'urn:nobody'"))
            #expect(suite.log.entries.last?.annotations["adfs.error"] == "unknown-rp")
        }
    }

    static func authnRequestURL(_ suite: MockSuite, issuer: String, acs: String, relayState: String?,
                                forceAuthn: Bool? = nil) throws -> (String, String) {
        let request = AuthnRequest.make(issuer: issuer, destination: suite.readyInfo().adfs.base + "/adfs/ls/",
                                        assertionConsumerServiceURL: acs, forceAuthn: forceAuthn,
                                        clock: suite.environment.clock, ids: suite.environment.ids)
        let url = try RedirectBinding.url(destination: suite.readyInfo().adfs.base + "/adfs/ls/", message: Array(request.xml().utf8),
                                          kind: .request, relayState: relayState)
        return (url, request.id)
    }

    @Test func spInitiatedSAMLPAnswersTheRequest() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            let sp = suite.environment.spEntityID
            let acs = suite.readyInfo().sp.acs
            let (url, requestID) = try Self.authnRequestURL(suite, issuer: sp, acs: acs, relayState: "state-42")
            let form = try await browser.get(url)
            #expect(form.status == 200)
            let post = try await Self.signIn(browser, form, username: alice.username, password: alice.password)
            #expect(post.forms.first?.value("RelayState") == "state-42")
            let assertion = try Self.validate(post, suite: suite, sp: sp, acs: acs, requestID: requestID)
            #expect(assertion.nameID.value == "alice@example.org")
            // Signed in: the next request is answered at once; with ForceAuthn the password is asked again.
            let (again, _) = try Self.authnRequestURL(suite, issuer: sp, acs: acs, relayState: nil)
            #expect(try await browser.get(again).forms.first?.value("SAMLResponse") != nil)
            let (forced, forcedID) = try Self.authnRequestURL(suite, issuer: sp, acs: acs, relayState: nil, forceAuthn: true)
            let form2 = try await browser.get(forced)
            #expect(form2.forms.first?.value("SAMLResponse") == nil)
            let answer = try await browser.submit(form2, values: ["UserName": alice.username, "Password": alice.password])
            _ = try Self.validate(answer, suite: suite, sp: sp, acs: acs, requestID: forcedID)
        }
    }

    @Test func spInitiatedFromAnUnknownIssuerOrACSIsRefused() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let (unknown, _) = try Self.authnRequestURL(suite, issuer: "https://stranger.example.org/sp",
                                                        acs: "https://stranger.example.org/acs", relayState: nil)
            let page = try await browser.get(unknown)
            #expect(page.status == 400)
            #expect(page.body.contains("MSIS7007"))
            let (foreignACS, _) = try Self.authnRequestURL(suite, issuer: suite.environment.spEntityID,
                                                           acs: "https://evil.example.org/acs", relayState: nil)
            let second = try await browser.get(foreignACS)
            #expect(second.body.contains("MSIS3200"))
        }
    }

    @Test func assertionKnobsApplyToThePassiveResponse() async throws {
        try await SuiteFixture.with("adfs", knobs: [.wrongSigningKey]) { suite, browser in
            let alice = SuiteFixture.user(suite)
            let start = suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + S.aws
            let post = try await Self.signIn(browser, try await browser.get(start), username: alice.username, password: alice.password)
            #expect(throws: (any Error).self) { try Self.validate(post, suite: suite, sp: S.aws, acs: Self.awsACS) }
        }
    }
}
