import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The HTTP-authentication checks over real exchanges with the HTTP-auth mock.
@Suite struct ProtocolCheckTestsHTTPAuth {
    /// A Digest answer to the last challenge of `page` for `path` (RFC 7616 §3.4).
    func digest(_ page: TestBrowser.Page, user: TestUser, method: String = "GET", uri: String, nc: String = "00000001",
                nonce: String? = nil) throws -> String {
        guard let field = page.header("WWW-Authenticate"), let challenge = try? AuthParameters.parse(field, expectToken68: false),
              let realm = challenge["realm"], let issued = challenge["nonce"] else { throw BrowserError("no Digest challenge") }
        let algorithm = HTTPDigestAlgorithm(token: challenge["algorithm"])!
        let used = nonce ?? issued
        let cnonce = "0a4f113b"
        let response = algorithm.response(username: user.username, realm: realm, password: user.password, method: method,
                                          uri: uri, nonce: used, nc: nc, cnonce: cnonce)
        return "Digest username=\"\(user.username)\", realm=\"\(realm)\", nonce=\"\(used)\", uri=\"\(uri)\", algorithm=\(algorithm.rawValue), qop=auth, nc=\(nc), cnonce=\"\(cnonce)\", response=\"\(response)\", opaque=\"\(challenge["opaque"] ?? "")\""
    }

    // MARK: - httpauth.challenge-answered

    @Test func challengeAnsweredOnceWithBasicPasses() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.basic + "page"
            #expect(try await browser.get(url).status == 401)
            #expect(try await browser.get(url, headers: [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]).status == 200)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpBasic, suite)
            #expect(outcome.passed, "\(outcome)")
        }
    }

    @Test func refusedCredentialsSentAgainFail() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.basic + "page"
            let wrong = "Basic " + Data("alice:not-the-password".utf8).base64EncodedString()
            #expect(try await browser.get(url).status == 401)
            #expect(try await browser.get(url, headers: [("Authorization", wrong)]).status == 401)
            #expect(try await browser.get(url, headers: [("Authorization", wrong)]).status == 401)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpBasic, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
            #expect(outcome.evidenceText.contains("were sent again (the same user and password)"))
        }
    }

    @Test func answerInAnotherSchemeFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.digestMD5 + "page"
            #expect(try await browser.get(url).status == 401)
            _ = try await browser.get(url, headers: [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))])
            let outcome = try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpDigest, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
            #expect(outcome.evidenceText.contains("offered Digest"))
        }
    }

    @Test func noChallengeIsNotApplicable() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await browser.get(suite.readyInfo().auth.basic + "page",
                                      headers: [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))])
            #expect(try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpBasic, suite).isNotApplicable)
        }
    }

    // MARK: - httpauth.protection-space-reused

    @Test func credentialsReusedInTheSpacePass() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let base = suite.readyInfo().auth.basic
            let credentials = [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]
            _ = try await browser.get(base + "a")
            #expect(try await browser.get(base + "a", headers: credentials).status == 200)
            #expect(try await browser.get(base + "b", headers: credentials).status == 200)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.protection-space-reused", .httpBasic, suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
        }
    }

    @Test func secondRequestWithoutCredentialsFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let base = suite.readyInfo().auth.basic
            _ = try await browser.get(base + "a")
            #expect(try await browser.get(base + "a", headers: [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]).status == 200)
            #expect(try await browser.get(base + "b").status == 401)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.protection-space-reused", .httpBasic, suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
        }
    }

    @Test func singleAuthenticatedRequestIsNotApplicable() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let base = suite.readyInfo().auth.basic
            _ = try await browser.get(base + "a")
            _ = try await browser.get(base + "a", headers: [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))])
            #expect(try ProtocolCheckRun.evaluate("httpauth.protection-space-reused", .httpBasic, suite).isNotApplicable)
        }
    }

    // MARK: - httpauth.digest-response-valid

    @Test func rightDigestResponsePasses() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.digestMD5 + "page?x=1"
            let challenge = try await browser.get(url)
            let field = try digest(challenge, user: SuiteFixture.user(suite), uri: URLComponents(string: url)!.percentEncodedPath + "?x=1")
            #expect(try await browser.get(url, headers: [("Authorization", field)]).status == 200)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.digest-response-valid", .httpDigest, suite)
            #expect(outcome.passed, "\(outcome)")
        }
    }

    @Test func repeatedNonceCountFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.digestSHA256 + "page"
            let challenge = try await browser.get(url)
            let field = try digest(challenge, user: SuiteFixture.user(suite), uri: URLComponents(string: url)!.percentEncodedPath)
            #expect(try await browser.get(url, headers: [("Authorization", field)]).status == 200)
            #expect(try await browser.get(url, headers: [("Authorization", field)]).status == 401)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.digest-response-valid", .httpDigest, suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
            #expect(outcome.evidenceText.contains("nc=00000001 does not increase"))
        }
    }

    @Test func digestOverAnotherPasswordFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.digestMD5 + "page"
            var user = SuiteFixture.user(suite)
            // A client that sends the password Latin-1-folded: "Ünïcødé" loses its marks.
            user.password = user.password.folding(options: .diacriticInsensitive, locale: nil)
            let challenge = try await browser.get(url)
            let field = try digest(challenge, user: user, uri: URLComponents(string: url)!.percentEncodedPath)
            #expect(try await browser.get(url, headers: [("Authorization", field)]).status == 401)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.digest-response-valid", .httpDigest, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
            #expect(outcome.evidenceText.contains("MD5 over this request and the password gives"))
        }
    }

    @Test func basicOnlyRunIsNotApplicableForDigest() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await browser.get(suite.readyInfo().auth.basic + "a")
            #expect(try ProtocolCheckRun.evaluate("httpauth.digest-response-valid", .httpDigest, suite).isNotApplicable)
        }
    }

    // MARK: - httpauth.digest-stale-retried

    /// A right login, then the nonces expire and the old one is used again: 401 stale=true.
    func staleChallenge(_ suite: MockSuite, _ browser: TestBrowser) async throws -> (url: String, uri: String, stale: TestBrowser.Page) {
        let url = suite.readyInfo().auth.digestMD5 + "archive/"
        let uri = URLComponents(string: url)!.percentEncodedPath
        let user = SuiteFixture.user(suite)
        let challenge = try await browser.get(url)
        #expect(try await browser.get(url, headers: [("Authorization", try digest(challenge, user: user, uri: uri))]).status == 200)
        suite.auth.expireNonces()
        let stale = try await browser.get(url, headers: [("Authorization", try digest(challenge, user: user, uri: uri, nc: "00000002"))])
        #expect(stale.status == 401 && stale.header("WWW-Authenticate")?.contains("stale=true") == true)
        return (url, uri, stale)
    }

    @Test func staleNonceRetriedWithTheFreshOnePasses() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let (url, uri, stale) = try await staleChallenge(suite, browser)
            #expect(try await browser.get(url, headers: [("Authorization", try digest(stale, user: SuiteFixture.user(suite), uri: uri))]).status == 200)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.digest-stale-retried", .httpDigest, suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [3])
            #expect(try ProtocolCheckRun.evaluate("httpauth.digest-response-valid", .httpDigest, suite).passed)
        }
    }

    @Test func staleNonceTakenAsWrongPasswordFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await staleChallenge(suite, browser)
            let report = ClientReport(outcome: "failure", error: "wrong password")
            let outcome = try ProtocolCheckRun.evaluate("httpauth.digest-stale-retried", .httpDigest, suite, report: report, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
            #expect(outcome.evidenceText.contains("never retried"))
        }
    }

    @Test func noStaleNonceIsNotApplicable() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await browser.get(suite.readyInfo().auth.digestMD5 + "page")
            #expect(try ProtocolCheckRun.evaluate("httpauth.digest-stale-retried", .httpDigest, suite).isNotApplicable)
        }
    }
}
