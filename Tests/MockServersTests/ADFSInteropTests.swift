import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Unmodified third-party clients against the mock AD FS: MSAL for Python's WS-Trust code
/// (mex, RST, RSTR parsing) and mechanize through the passive sign-in.
@Suite(.serialized, .enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
struct ADFSInteropTests {
    typealias S = ADFSTestSupport

    func msal(_ suite: MockSuite, username: String, password: String, endpoint: String? = nil,
              appliesTo: String = S.office365) async throws -> (ClientProcess.Outcome, [String: Any]) {
        let info = suite.readyInfo().adfs
        let outcome = try await ClientProcess.run(ClientProcess.venvPython, [
            ClientProcess.script("adfs_msal_wstrust.py"), "--mex", info.mex, "--endpoint", endpoint ?? info.usernameMixed13,
            "--username", username, "--password", password, "--applies-to", appliesTo,
        ])
        let json = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any] ?? [:]
        return (outcome, json)
    }

    @Test(arguments: ["alice", "dana"])
    func msalGetsASignedSAML11Token(username: String) async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let user = SuiteFixture.user(suite, username)
            let (outcome, json) = try await msal(suite, username: user.username, password: user.password)
            #expect(outcome.status == 0, "\(outcome.stdout.suffix(600))\(outcome.stderr.suffix(800))")
            #expect(json["token_type"] as? String == "urn:oasis:names:tc:SAML:1.0:assertion")
            // The token exactly as MSAL hands it on still verifies with the token-signing certificate.
            let token = try #require(json["token"] as? String)
            let assertion = try XMLDocument(parsing: token).root
            #expect(assertion.is("Assertion", SAMLNamespace.assertion11))
            _ = try S.verifier(suite).verify(assertion)
            // MSAL XML-escaped the password (dana's holds < & ]]>), so AD FS read it intact.
            let request = try #require(suite.log.entries.last { $0.request.path == ADFSServer.Path.usernameMixed13 })
            #expect(request.annotations["adfs.login"] == "ok")
            if username == "dana" {
                #expect(request.request.bodyText.contains("<wsse:Password>d&lt;na&amp;co]]&gt;x</wsse:Password>"))
            }
            // mex: MSAL keeps only https endpoints, so on this http mock it finds none; the
            // same document with https addresses gives the WS-Trust 1.3 endpoint.
            #expect(json["mex_endpoint"] is NSNull)
            let https = try #require(json["mex_endpoint_if_https"] as? [String: String])
            #expect(https["action"] == "http://docs.oasis-open.org/ws-sx/ws-trust/200512/RST/Issue")
            #expect(https["address"]?.hasSuffix(ADFSServer.Path.usernameMixed13) == true)
        }
    }

    @Test
    func msalReadsTheFaultsAndThe2005Endpoint() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let (bad, badJSON) = try await msal(suite, username: "alice", password: "wrong")
            #expect(bad.status == 1)
            #expect((badJSON["error"] as? String)?.contains("'reason': 'ID3242: The security token could not be authenticated or authorized.', 'code': 'a:FailedAuthentication'") == true,
                    "\(bad.stdout)")
            let (scope, scopeJSON) = try await msal(suite, username: "alice", password: SuiteFixture.user(suite).password,
                                                    appliesTo: "urn:nowhere")
            #expect(scope.status == 1)
            #expect((scopeJSON["error"] as? String)?.contains("ID3082") == true)
            let bob = SuiteFixture.user(suite, "bob")
            let (old, oldJSON) = try await msal(suite, username: bob.username, password: bob.password,
                                                endpoint: suite.readyInfo().adfs.usernameMixed2005)
            #expect(old.status == 0, "\(old.stdout.suffix(400))\(old.stderr.suffix(400))")
            #expect(oldJSON["token_type"] as? String == "urn:oasis:names:tc:SAML:1.0:assertion")
        }
    }

    func mechanize(_ suite: MockSuite, start: String, user: TestUser, rp: String? = nil) async throws -> (ClientProcess.Outcome, [String: Any]) {
        var arguments = [ClientProcess.script("adfs_mechanize.py"), "--start", start, "--username", user.username,
                         "--password", user.password]
        if let rp { arguments += ["--rp", rp] }
        let outcome = try await ClientProcess.run(ClientProcess.venvPython, arguments)
        let json = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any] ?? [:]
        return (outcome, json)
    }

    @Test func mechanizeSignsInThroughIdpInitiatedSignOnToTheMockSP() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let dana = SuiteFixture.user(suite, "dana")
            let (outcome, page) = try await mechanize(suite, start: suite.readyInfo().adfs.idpInitiatedSignOn, user: dana,
                                                      rp: suite.environment.spEntityID)
            #expect(outcome.status == 0, "\(outcome.stderr.suffix(800))")
            let secret = try #require(suite.log.entries.compactMap { $0.annotations["sp.secret"] }.last,
                                      "SP refused: \(SuiteFixture.spVerdict(suite).rejected ?? "-")")
            #expect((page["body"] as? String)?.contains(secret) == true)
            // No RelayState named a resource: a stock Shibboleth SP lands on homeURL ("/"),
            // the home page that shows the session.
            #expect(page["url"] as? String == suite.readyInfo().sp.base + "/")
            // The password with < & ]]> arrived intact in the form body.
            let login = try #require(suite.log.entries.first { $0.annotations["adfs.login"] == "ok" })
            #expect(login.request.formValue("Password") == dana.password)
            #expect(login.request.formValue("AuthMethod") == "FormsAuthentication")
        }
    }

    @Test func mechanizeWithAWrongPasswordSeesTheADFSError() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            var alice = SuiteFixture.user(suite)
            alice.password = "not it"
            let start = suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + S.aws
            let (_, page) = try await mechanize(suite, start: start, user: alice)
            #expect((page["body"] as? String)?.contains("Incorrect user ID or password.") == true)
            #expect(!suite.log.entries.contains { $0.annotations["adfs.result"] == "response" })
        }
    }
}
