import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The catalog's Web SSO expectations hold against the real mocks: a correct browser-style
/// client (TestBrowser: follows redirects, keeps cookies, fills the IdP's forms, posts the
/// Response intact) obtains the resource in every `success` scenario, and in every `failure`
/// scenario the mocks refuse it with words that contain the scenario's `expect.error`.
/// Scenarios whose verdict depends on what the client itself does (timeouts, redirect loops,
/// bounded password retries, lockouts, a second login) are judged by the runner, not here.
@Suite(.serialized) struct CatalogExpectationTests {
    static let decidedByTheMocks: [Scenario] = CatalogTests.catalog.scenarios.filter { scenario in
        guard [.webSSO, .webSSOIdPInitiated].contains(scenario.flow) else { return false }
        let clientDecides: Set<String> = ["timeout", "redirect", "bad-password", "lockout", "transport-fault"]
        if !clientDecides.isDisjoint(with: scenario.tags) { return false }
        if scenario.options?.secondLogin == true { return false }
        let knobs = scenario.knobs ?? []
        // Whether a client follows the SP's https→http redirect, or refuses a faulty
        // certificate (`tls-…`), is the client's call.
        return !knobs.contains { $0.hasPrefix("slow") || $0.hasPrefix("no-answer") || $0.hasPrefix("redirect-loop")
            || $0 == "https-downgrade" || $0.hasPrefix("tls-") }
    }

    @Test func enoughScenariosAreJudgedHere() {
        #expect(Self.decidedByTheMocks.count >= 50)
    }

    @Test(arguments: decidedByTheMocks)
    func theMocksAgreeWithTheExpectation(_ scenario: Scenario) async throws {
        var loaded = try SuiteFixture.profile(try #require(scenario.profile))
        loaded.knobs += try (scenario.knobs ?? []).map(Knob.init(parsing:))
        try loaded.useSP(personality: scenario.sp?.personality, settings: scenario.sp?.assignments ?? [], mockIdP: SuiteFixture.mockIdP)
        let suite = try await MockSuite.start(profile: loaded, seed: scenario.effectiveSeed, frozen: false,
                                              mockIdPDirectory: SuiteFixture.mockIdP)
        let browser = TestBrowser()
        do {
            let target = ScenarioTarget.resolve(scenario, ready: suite.readyInfo())
            let profileUser = try #require(loaded.profile.user(named: target.username ?? "alice"))
            let user = TestUser(username: profileUser.username, password: target.password ?? profileUser.password,
                                secondFactorCode: target.secondFactorCode)
            var last = try await SuiteFixture.completeLogin(browser, from: try await browser.get(target.start), user: user,
                                                            consent: scenario.options?.consent != "decline")
            if last.status == 401, last.header("WWW-Authenticate")?.lowercased().hasPrefix("basic") == true {
                // The IdP's HTTP Basic challenge (shibboleth-basic), answered once in UTF-8.
                let credentials = Data("\(user.username):\(user.password)".utf8).base64EncodedString()
                let answered = try await browser.get(last.url, headers: [("Authorization", "Basic " + credentials)])
                last = try await SuiteFixture.completeLogin(browser, from: answered, user: user)
            }
            if last.isRedirect { last = try await browser.follow(last) }
            let verdict = SuiteFixture.spVerdict(suite)
            // The resource, or (a lost RelayState, an IdP-initiated login without one) the
            // home page showing the session.
            let obtained = verdict.accepted != nil && last.status == 200
                && (last.url.contains("/secure") || last.body.contains("id=\"secret\""))
            switch scenario.expect.outcome {
            case .success:
                #expect(obtained, "\(scenario.id): expected success; SP rejected \(verdict.rejected ?? "nothing"), last page \(last.status) \(last.url)")
            case .failure:
                #expect(!obtained, "\(scenario.id): expected failure, but the login succeeded")
                let words = try #require(scenario.expect.error).lowercased()
                let evidence = "\(verdict.rejected ?? "") \(last.status) \(last.body)".lowercased()
                #expect(scenario.expect.names(evidence), "\(scenario.id): `\(words)` appears neither in the SP's verdict (\(verdict.rejected ?? "none")) nor on the last page (\(last.status) \(last.url)): \(last.body.prefix(300))")
            }
        } catch {
            try? await browser.shutdown()
            await suite.stop()
            throw error
        }
        try await browser.shutdown()
        await suite.stop()
    }
}
