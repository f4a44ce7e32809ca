import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Unmodified third-party clients log in through the mocks: saml_ecp_demo (an ECP client),
/// mechanize (a scripted browser). Each test fails if a mock misbehaves: the secret the
/// client prints must be the one the SP issued for that login.
@Suite(.serialized, .enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
struct ThirdPartyClientTests {
    static func secret(_ suite: MockSuite) -> String? {
        suite.log.entries.compactMap { $0.annotations["sp.secret"] }.last
    }

    @Test func samlECPDemoLogsInThroughPAOSAndHTTPBasic() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let info = suite.readyInfo()
            let user = SuiteFixture.user(suite)
            let outcome = try await ClientProcess.run(ClientProcess.venvBin + "/saml_ecp_demo", [
                "-s", info.sp.secure, "-i", info.idp.ecp, "-u", user.username, "-p", user.password,
                "-l", "!saml-message,!http-request-response",
            ])
            #expect(outcome.status == 0, "\(outcome.stdout.suffix(800))\(outcome.stderr.suffix(800))")
            let secret = try #require(Self.secret(suite))
            #expect((outcome.stdout + outcome.stderr).contains(secret), "the client printed the SP's page with this login's secret")
            let entries = suite.log.entries
            #expect(entries.contains { $0.mock == "sp" && $0.annotations["sp.sso"] == "paos" })
            #expect(entries.contains { $0.mock == "idp" && $0.request.path == MockIdP.ecpPath && $0.annotations["idp.login"] == "ok" })
            #expect(entries.contains { $0.mock == "sp" && $0.request.path == "/Shibboleth.sso/SAML2/ECP" && $0.annotations["sp.accepted"] == "alice@example.org" })
        }
    }

    @Test func samlECPDemoWithAWrongPasswordGetsNoSecret() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let info = suite.readyInfo()
            let outcome = try await ClientProcess.run(ClientProcess.venvBin + "/saml_ecp_demo", [
                "-s", info.sp.secure, "-i", info.idp.ecp, "-u", "alice", "-p", "wrong password",
                "-l", "!saml-message,!http-request-response",
            ])
            #expect(outcome.status != 0)
            #expect(Self.secret(suite) == nil)
            #expect(suite.log.entries.contains { $0.annotations["idp.login"] == "bad-password" })
        }
    }

    @Test func samlECPDemoIsToldAboutAForeignConsumerURL() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.acsOther]) { suite, _ in
            let info = suite.readyInfo()
            let user = SuiteFixture.user(suite)
            let outcome = try await ClientProcess.run(ClientProcess.venvBin + "/saml_ecp_demo", [
                "-s", info.sp.secure, "-i", info.idp.ecp, "-u", user.username, "-p", user.password,
                "-l", "!saml-message,!http-request-response",
            ])
            // The IdP named another ACS than the SP's responseConsumerURL; the client must not
            // get the resource (it should refuse, saml-ecp-v2.0 §2.3.5; if it posts anyway the
            // SP refuses the misdirected Response).
            let idpAnswer = try #require(suite.log.entries.last { $0.request.path == MockIdP.ecpPath })
            #expect(idpAnswer.annotations["idp.acs"] == info.sp.acs, "the IdP named the SP's POST ACS, not its ECP ACS")
            #expect(Self.secret(suite) == nil)
            #expect(!(outcome.stdout + outcome.stderr).contains("SECRET-"))
            // saml_ecp_demo does what saml-ecp-v2.0 §2.3.5 asks: a SOAP fault to the SP.
            let spAnswer = try #require(suite.log.entries.last { $0.request.path == "/Shibboleth.sso/SAML2/ECP" })
            #expect(spAnswer.annotations["sp.rejected"] == "ecp.client-fault")
        }
    }

    func mechanize(_ suite: MockSuite, user: TestUser, code: String? = nil) async throws -> (ClientProcess.Outcome, [String: Any]) {
        var arguments = [ClientProcess.script("websso_mechanize.py"), "--start", suite.readyInfo().sp.secure,
                         "--username", user.username, "--password", user.password]
        if let code { arguments += ["--code", code] }
        let outcome = try await ClientProcess.run(ClientProcess.venvPython, arguments)
        let json = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any] ?? [:]
        return (outcome, json)
    }

    @Test(arguments: ["shibboleth", "simplesamlphp", "generic"])
    func mechanizeCompletesWebSSO(profile: String) async throws {
        try await SuiteFixture.with(profile) { suite, _ in
            let (outcome, page) = try await mechanize(suite, user: SuiteFixture.user(suite, "bob"))
            #expect(outcome.status == 0, "\(outcome.stderr.suffix(800))")
            let secret = try #require(Self.secret(suite))
            #expect((page["body"] as? String)?.contains(secret) == true)
            #expect(page["url"] as? String == suite.readyInfo().sp.secure)
            // The password, with + = & % space and non-ASCII, arrived intact in the form body.
            let login = try #require(suite.log.entries.first { $0.annotations["idp.login"] == "ok" })
            #expect(login.request.formFields.contains { $0.value == SuiteFixture.user(suite, "bob").password })
        }
    }

    @Test func mechanizeThroughSecondFactorAndConsent() async throws {
        try await SuiteFixture.with("shibboleth-mfa") { suite, _ in
            let user = SuiteFixture.user(suite)
            let (outcome, page) = try await mechanize(suite, user: user, code: user.secondFactorCode)
            #expect(outcome.status == 0, "\(outcome.stderr.suffix(800))")
            #expect((page["body"] as? String)?.contains(try #require(Self.secret(suite))) == true)
            #expect(suite.log.entries.contains { $0.annotations["idp.consent"] == "accepted" })
        }
    }

    @Test func mechanizeWithAWrongPasswordStaysOnTheLoginForm() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            var user = SuiteFixture.user(suite)
            user.password = "not it"
            let (_, page) = try await mechanize(suite, user: user)
            #expect(Self.secret(suite) == nil)
            #expect((page["body"] as? String)?.contains("The password you entered was incorrect.") == true)
        }
    }
}
