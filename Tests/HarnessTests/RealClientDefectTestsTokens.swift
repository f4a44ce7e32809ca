import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// Issue 17 §2, §7, §8: WS-Trust tokens are judged by the self-validation checks (a client
/// that declares `validates_saml` is held to it; one that does not hands the token to the
/// relying party, whose refusal is its verdict), both token scenarios expect failure, and
/// `flow.failure-reported` rests on the refusal in the traffic before the client's words.
@Suite(.serialized) struct RealClientDefectTestsTokens {
    static func load(_ id: String, flow: String = "adfs") throws -> Scenario {
        try ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
            .load(file: SuiteFixture.repository.appendingPathComponent("Scenarios/\(flow)/\(id).yaml"))
    }

    /// Every verdict of `scenario` on the suite's traffic, by check id.
    static func judge(_ scenario: Scenario, _ suite: MockSuite, _ report: ClientReport, status: Int32,
                      stderr: String = "") -> [String: Verdict] {
        let entries = suite.log.entries
        let execution = ClientExecution(status: status, timedOut: false, stderr: stderr, report: report, seconds: 1)
        let verdicts = ExpectationJudge.verdicts(scenario: scenario, target: ScenarioTarget.resolve(scenario, ready: suite.readyInfo()),
                                                 entries: entries, execution: execution, truth: Truth.from(entries))
        return Dictionary(verdicts.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func requiredFailures(_ verdicts: [String: Verdict]) -> [String] {
        verdicts.values.filter { $0.level == .required && $0.status == .fail }.map { "\($0.check): \($0.reason)" }.sorted()
    }

    // MARK: - §7: one rule for every token scenario

    @Test func bothWSTrustTokenScenariosExpectFailure() throws {
        for (id, check) in [("adfs-wstrust.token-expired", "security.assertion-conditions-validated"),
                            ("adfs-wstrust.token-signed-by-other-key", "security.signature-validated")] {
            let scenario = try Self.load(id)
            #expect(scenario.expect.outcome == .failure, "\(id)")
            #expect(scenario.expect.error?.isEmpty == false, "\(id)")
            #expect(scenario.checks.contains { $0.id == "flow.failure-reported" }, "\(id)")
            #expect(!scenario.checks.contains { $0.id == "flow.resource-obtained" }, "\(id)")
            let use = try #require(scenario.checks.first { $0.id == check }, "\(id) names \(check)")
            #expect(use.level == .required, "\(id): \(check)")
        }
    }

    // MARK: - §2: WS-Trust tokens judged by the self-validation checks

    @Test(arguments: [("adfs-wstrust.token-signed-by-other-key", "security.signature-validated", "signature.untrusted-key"),
                      ("adfs-wstrust.token-expired", "security.assertion-conditions-validated", "subject-confirmation.expired")])
    func aBrokenTokenIsJudgedByWhatTheClientDeclares(_ id: String, _ check: String, _ code: String) async throws {
        let scenario = try Self.load(id)
        let knobs = try (scenario.knobs ?? []).map { try Knob(parsing: $0) }
        try await SuiteFixture.with("adfs", knobs: knobs) { suite, browser in
            let rstr = try await ProtocolCheckTestsADFS().requestToken(suite, browser)
            #expect(rstr.status == 200)
            #expect(Truth.from(suite.log.entries).found(in: rstr.body)?.kind == "adfs.assertion-id")
            let words = "token refused: " + (scenario.expect.error ?? "")

            // Declares validation and takes the token: fails (before the fix: "the IdP served no Response with …").
            let took = Self.judge(scenario, suite, ClientReport(outcome: "success", resource: rstr.body, details: ["validates_saml": "true"]),
                                  status: 0)
            #expect(took[check]?.status == .fail, "\(took[check]?.reason ?? "none")")
            #expect(took[check]?.reason.contains("says it validates SAML, yet took the token") == true, "\(took[check]?.reason ?? "")")
            #expect(took["flow.failure-reported"]?.status == .fail, "\(took["flow.failure-reported"]?.reason ?? "")")

            // Declares validation and refuses: passes.
            let refused = Self.judge(scenario, suite, ClientReport(outcome: "failure", error: words, details: ["validates_saml": "true"]),
                                     status: 1)
            #expect(refused[check]?.status == .pass, "\(refused[check]?.reason ?? "none")")
            #expect(refused[check]?.reason.contains("refused the token") == true)
            // The test's request carries the suite's default user, not the scenario's: the
            // flow-wide encoding check sees another password, which is the test's, not a verdict.
            #expect(Self.requiredFailures(refused).filter { !$0.hasPrefix("encoding.utf8-credentials") }.isEmpty, "\(Self.requiredFailures(refused))")

            // Declares nothing and takes it: the relying party judges it; its refusal passes the scenario.
            let handedOn = Self.judge(scenario, suite, ClientReport(outcome: "success", resource: rstr.body), status: 0)
            #expect(handedOn[check]?.status == .notApplicable, "\(handedOn[check]?.reason ?? "none")")
            let failure = try #require(handedOn["flow.failure-reported"])
            #expect(failure.status == .pass, "\(failure.reason)")
            #expect(failure.reason.contains("relying party refuses it (\(code))"), "\(failure.reason)")
            #expect(Self.requiredFailures(handedOn).filter { !$0.hasPrefix("encoding.utf8-credentials") }.isEmpty, "\(Self.requiredFailures(handedOn))")
        }
    }

    // MARK: - §8: flow.failure-reported rests on the traffic

    static func failureReported(_ scenario: Scenario, _ suite: MockSuite, error: String?, stderr: String = "") -> Verdict {
        let entries = suite.log.entries
        let execution = ClientExecution(status: 1, timedOut: false, stderr: stderr, report: ClientReport(outcome: "failure", error: error),
                                        seconds: 1)
        return ExpectationJudge.failureReported(CheckUse(id: "flow.failure-reported"), scenario, execution, Truth.from(entries),
                                                entries: entries)
    }

    static let wrongKey = CheckTestSupport.scenario(.webSSO, check: "flow.failure-reported", knobs: ["wrong-signing-key"],
                                                    outcome: .failure, error: "signature")

    /// Posts the auto-post page's Response to the SP, its XML passed through `edit` first.
    static func post(_ suite: MockSuite, _ browser: TestBrowser, edit: (String) -> String = { $0 }) async throws {
        let page = try await MessageCheckDriver.formPage(suite, browser)
        let form = try #require(page.forms.first)
        let value = try #require(form.value("SAMLResponse"))
        let xml = String(decoding: try #require(Data(base64Encoded: value.filter { !$0.isWhitespace })), as: UTF8.self)
        let edited = edit(xml)
        let body = "SAMLResponse=" + PercentEncoding.formEncode(Data(edited.utf8).base64EncodedString())
            + "&RelayState=" + PercentEncoding.formEncode(form.value("RelayState") ?? "")
        _ = try await MessageCheckDriver.post(browser, page, body: body)
    }

    @Test func aRefusalOfTheClientsOwnRewriteFailsDespiteTheWord() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.wrongSigningKey]) { suite, browser in
            // The client changes one byte of the signed content (pysaml2 re-serialising).
            try await Self.post(suite, browser) { xml in
                let changed = xml.replacingOccurrences(of: "alice@example.org", with: "alicf@example.org")
                #expect(changed != xml)
                return changed
            }
            let code = try #require(SuiteFixture.spVerdict(suite).rejected)
            #expect(code != "signature.untrusted-key", "the SP must refuse the rewrite for another reason")
            let verdict = Self.failureReported(Self.wrongKey, suite, error: "signature verification failed")
            // Before the fix: passed on the word "signature".
            #expect(verdict.status == .fail, "\(verdict.reason)")
            #expect(verdict.reason.contains("the SP refused with \(code)"), "\(verdict.reason)")
            #expect(verdict.reason.contains("not with signature.untrusted-key the scenario sets up"), "\(verdict.reason)")
            // A scenario that sets up that very refusal (`expect.refusal`) passes it.
            var set = Self.wrongKey
            set.expect.refusal = code
            #expect(Self.failureReported(set, suite, error: "HTTP 403").status == .pass)
        }
    }

    @Test func theScenariosOwnRefusalPassesWithoutTheWord() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.wrongSigningKey]) { suite, browser in
            try await Self.post(suite, browser)
            #expect(SuiteFixture.spVerdict(suite).rejected == "signature.untrusted-key")
            let verdict = Self.failureReported(Self.wrongKey, suite, error: "HTTP 403")
            #expect(verdict.status == .pass, "\(verdict.reason)")
            #expect(verdict.reason.contains("the SP refused the login with signature.untrusted-key"), "\(verdict.reason)")
            // `expect.refusal` overrides the knob's code: another code expected, this refusal is not it.
            var other = Self.wrongKey
            other.expect.refusal = "in-response-to.unexpected"
            let overridden = Self.failureReported(other, suite, error: "signature untrusted")
            #expect(overridden.status == .fail, "\(overridden.reason)")
            #expect(overridden.reason.contains("not with in-response-to.unexpected"), "\(overridden.reason)")
        }
    }

    @Test func wordsOnlyInStderrDoNotCountWhenTheResultHasAnError() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.wrongSigningKey]) { suite, browser in
            // The client refused by itself: nothing reached the SP.
            _ = try await MessageCheckDriver.formPage(suite, browser)
            #expect(RefusalEvidence.refusals(suite.log.entries).isEmpty)
            let unrelated = Self.failureReported(Self.wrongKey, suite, error: "login failed", stderr: "DEBUG loaded signature module")
            // Before the fix: passed on the stderr log line.
            #expect(unrelated.status == .fail, "\(unrelated.reason)")
            #expect(unrelated.reason.contains("does not name `signature`"))
            #expect(Self.failureReported(Self.wrongKey, suite, error: "the signature is not trusted").status == .pass)
            // No `error` in the result: the client's output is what it said.
            #expect(Self.failureReported(Self.wrongKey, suite, error: nil, stderr: "error: signature not trusted").status == .pass)
        }
    }
}
