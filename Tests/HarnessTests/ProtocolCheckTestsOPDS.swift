import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The OPDS checks over a real login, borrow and fulfil with the mock circulation manager.
@Suite struct ProtocolCheckTestsOPDS {
    static let redirectURI = "simplified-saml20://authenticated"

    /// The first `authenticate` href of the authentication document.
    func authenticateLink(_ suite: MockSuite, _ browser: TestBrowser) async throws -> String {
        let document = try await browser.get(suite.readyInfo().cm.authenticationDocument)
        let object = (try JSONSerialization.jsonObject(with: Data(document.body.utf8))) as? [String: Any] ?? [:]
        let flows = object["authentication"] as? [[String: Any]] ?? []
        let links = flows.first?["links"] as? [[String: Any]] ?? []
        guard let href = links.first?["href"] as? String else { throw BrowserError("no authenticate link") }
        return href
    }

    /// Logs alice in through the link opened as `url(href)`; returns the bearer token.
    func login(_ suite: MockSuite, _ browser: TestBrowser,
               url: (String) -> String = { $0 + "&redirect_uri=" + PercentEncoding.formEncode(redirectURI) }) async throws -> String? {
        let start = try await browser.get(url(try await authenticateLink(suite, browser)))
        guard start.isRedirect else { return nil }
        let answer = try await SuiteFixture.completeLogin(browser, from: start, user: SuiteFixture.user(suite))
        let query = String(answer.location?.split(separator: "?", maxSplits: 1).last ?? "")
        return QueryParameter.parse(query).first(named: "access_token")?.value
    }

    /// Borrows and fulfils book 1 with `token` (none: no Authorization header).
    func borrowAndFulfil(_ suite: MockSuite, _ browser: TestBrowser, token: String?) async throws {
        let base = suite.readyInfo().cm.base
        let headers = token.map { [("Authorization", "Bearer " + $0)] } ?? []
        _ = try await browser.get(base + "/works/1/borrow", headers: headers)
        _ = try await browser.get(base + "/works/1/fulfill/1", headers: headers)
    }

    func evaluate(_ check: String, _ suite: MockSuite, report: ClientReport = ClientReport(), status: Int32 = 0) throws -> CheckOutcome {
        try ProtocolCheckRun.evaluate(check, .opdsSAML, suite, report: report, status: status)
    }

    /// The client's report of a book: the SHA-256 the circulation manager served.
    func bookReport(_ suite: MockSuite) -> ClientReport {
        let sha = suite.log.entries.compactMap { $0.annotations["cm.sha256"] }.first ?? ""
        return ClientReport(outcome: "success", resource: "sha256=" + sha)
    }

    @Test func correctClientPassesTheOPDSChecks() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let token = try #require(try await login(suite, browser))
            try await borrowAndFulfil(suite, browser, token: token)
            for check in ["opds.redirect-uri-appended", "opds.bearer-token-sent", "opds.book-content-type-checked"] {
                let outcome = try evaluate(check, suite, report: bookReport(suite))
                #expect(outcome.passed, "\(check): \(outcome)")
            }
        }
    }

    @Test func nothingOpenedIsNotApplicable() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            _ = try await authenticateLink(suite, browser)
            for check in ["opds.redirect-uri-appended", "opds.bearer-token-sent", "opds.book-content-type-checked"] {
                #expect(try evaluate(check, suite).isNotApplicable, "\(check)")
            }
        }
    }

    // MARK: - opds.redirect-uri-appended

    @Test func linkOpenedWithoutRedirectURIFails() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            #expect(try await login(suite, browser, url: { $0 }) == nil)
            let outcome = try evaluate("opds.redirect-uri-appended", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
            #expect(outcome.evidenceText.contains("no redirect_uri appended"))
        }
    }

    @Test func linkQueryReplacedFails() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            // The client rebuilds the query and loses `provider` (and so the link's own query).
            _ = try await login(suite, browser, url: { href in
                let base = String(href.prefix { $0 != "?" })
                let idp = QueryParameter.parse(String(href.split(separator: "?").last ?? "")).first(named: "idp_entity_id")!.rawValue
                return base + "?idp_entity_id=" + idp + "&redirect_uri=" + PercentEncoding.formEncode(Self.redirectURI)
            })
            let outcome = try evaluate("opds.redirect-uri-appended", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.evidenceText.contains("`provider=SAML+2.0+Web+SSO` arrived as nothing"))
        }
    }

    // MARK: - opds.bearer-token-sent

    @Test func borrowWithoutTheBearerTokenFails() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            _ = try #require(try await login(suite, browser))
            let before = ProtocolCheckRun.lastSequence(suite)
            try await borrowAndFulfil(suite, browser, token: nil)
            let outcome = try evaluate("opds.bearer-token-sent", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [before + 1, before + 2])
            #expect(outcome.evidenceText.contains("no Authorization header"))
        }
    }

    @Test func tokenNotFromTheLoginFails() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            _ = try #require(try await login(suite, browser))
            try await borrowAndFulfil(suite, browser, token: "eyJhbGciOiJub25lIn0.eyJ0b2tlbiI6IngifQ.")
            let outcome = try evaluate("opds.bearer-token-sent", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.evidenceText.contains("none the login redirect handed out"))
        }
    }

    // MARK: - opds.book-content-type-checked

    @Test func problemPageTakenAsTheBookFails() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let token = try #require(try await login(suite, browser))
            // Fulfil without a loan: a 400 problem document, which the client reports as its book.
            let page = try await browser.get(suite.readyInfo().cm.base + "/works/2/fulfill/2", headers: [("Authorization", "Bearer " + token)])
            #expect(page.status == 400)
            let report = ClientReport(outcome: "success", resource: "sha256=" + MessageDigest.sha256.hex(Array(page.body.utf8)))
            let outcome = try evaluate("opds.book-content-type-checked", suite, report: report)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [ProtocolCheckRun.lastSequence(suite)])
            #expect(outcome.evidenceText.contains("problem+json"))
        }
    }

    @Test func successClaimedWithoutABookFails() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let token = try #require(try await login(suite, browser))
            _ = try await browser.get(suite.readyInfo().cm.base + "/works/2/fulfill/2", headers: [("Authorization", "Bearer " + token)])
            let outcome = try evaluate("opds.book-content-type-checked", suite, report: ClientReport(outcome: "success", resource: "a book"))
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("no fulfilment answer had a book Content-Type"))
        }
    }

    @Test func problemPageReportedAsFailurePasses() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let token = try #require(try await login(suite, browser))
            _ = try await browser.get(suite.readyInfo().cm.base + "/works/2/fulfill/2", headers: [("Authorization", "Bearer " + token)])
            let report = ClientReport(outcome: "failure", error: "no-active-loan")
            #expect(try evaluate("opds.book-content-type-checked", suite, report: report, status: 1).passed)
        }
    }
}
