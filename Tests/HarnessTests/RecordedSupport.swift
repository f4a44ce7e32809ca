import Foundation
import MockServers
import SAMLCore
import TestSupport
@testable import Harness

/// Fixtures and helpers of the recorded-chain tests.
enum RecordedSupport {
    static let fixtures = SuiteFixture.repository.appendingPathComponent("Tests/HarnessTests/Fixtures/recorded")
    static let chromeHAR = fixtures.appendingPathComponent("shibboleth-login.chrome.har")
    static let tracerExport = fixtures.appendingPathComponent("shibboleth-login.saml-tracer.json")

    /// The password alice typed in the recording (MockIdP/users.yaml).
    static let recordedPassword = "correct horse+battery=staple&100% Ünïcødé"

    /// Imports a fixture and returns the YAML and the scenario as the loader reads it back.
    static func importAndLoad(_ file: URL, id: String, redact: Bool = true,
                              resign: Bool? = nil) throws -> (yaml: String, scenario: Scenario, result: ChainImporter.Result) {
        let result = try ChainImporter.importFile(at: file, options: .init(scenarioID: id, redact: redact, resign: resign))
        let yaml = try RecordedScenarioWriter.yaml(result.scenario)
        let scenario = try ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
            .load(text: yaml, file: "\(id).yaml", expectedID: id)
        return (yaml, scenario, result)
    }

    /// Every value in the recorded file that a redacted import must not contain.
    static func recordedSecrets(of file: URL) throws -> [String] {
        let text = try String(contentsOf: file, encoding: .utf8)
        var secrets = [recordedPassword, "Alice Ångström", "alice@example.org", "Ångström",
                       "student@example.org", "member@example.org"]
        // Cookie values, CSRF tokens and login tickets, as recorded.
        for pattern in ["_idp_authn_lc_key=([0-9a-f]{32})", "_idp_session=([0-9a-f]{32})",
                        "_shibsession_[0-9a-f]+=(_[0-9a-f]{32})", "csrf_token\\\\?\" value=\\\\?\"(_[0-9a-f]{32})",
                        "csrf_token=(_[0-9a-f]{32})", "(LT-1-[0-9a-f]{32})", "SessionIndex=\\\\\"(_[0-9a-f]{32})"] {
            let regex = try NSRegularExpression(pattern: pattern)
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { secrets.append(String(text[range])) }
            }
        }
        return Array(Set(secrets))
    }

    /// Runs a Web SSO login with the in-process browser from `start`: the IdP's login form
    /// (any credentials: a replay stores no password), consent, the auto-posted form.
    /// Returns the SP's answer to the ACS post (not followed) and the final page.
    static func login(_ browser: TestBrowser, start: String, username: String = "someone",
                      password: String = "whatever") async throws -> (acs: TestBrowser.Page, final: TestBrowser.Page) {
        let first = try await browser.get(start)
        let acs = try await SuiteFixture.completeLogin(
            browser, from: first, user: TestUser(username: username, password: password))
        return (acs, try await browser.follow(acs))
    }

    /// Runs `body` with a started replay of `scenario`; stops it afterwards.
    static func withReplay(_ scenario: Scenario, log: TrafficLog = TrafficLog(), clock: any SAMLClock = SystemClock(),
                           _ body: (ReplaySession) async throws -> Void) async throws {
        let session = try await ReplaySession.start(scenario: scenario, mockIdPDirectory: SuiteFixture.mockIdP,
                                                    log: log, clock: clock)
        do {
            try await body(session)
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }

    /// The traffic-log entry that answered with recorded entry `number`.
    static func logEntry(_ log: TrafficLog, replayEntry number: Int) -> TrafficEntry? {
        log.entries.last { $0.annotations["replay.entry"] == String(number) }
    }
}
