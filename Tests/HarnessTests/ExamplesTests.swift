import Foundation
import Testing
import TestSupport
@testable import Harness

/// The example clients in examples/ (issue 33: a client author's starting points) through their
/// flows' scenarios with the engine behind `samlharness run`, as `--client 'CMD'` starts them.
/// What each passes is what examples/README.md says; a check that stayed not-applicable where
/// the example must meet it fails here too, so no example passes by never reaching its step.
@Suite(.serialized) struct ExamplesTests {
    static let examples = SuiteFixture.repository.appendingPathComponent("examples")

    /// Runs `command` (from the repository root, as the README shows) through `filter` at half
    /// the real clock: every example honours SAMLH_REQUEST_TIMEOUT, so the dead-IdP waits halve.
    static func run(_ command: String, _ filter: [String]) async throws -> [String: ScenarioResult] {
        let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
        let scenarios = CatalogTests.catalog.selecting(try ScenarioFilter(filter))
        var runner = ScenarioRunner(loader: loader, mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        runner.timeScale = 0.5
        let client = ExternalCommandClient(command: command, directory: SuiteFixture.repository.path)
        let results = await RunEngine(jobs: 2).run(scenarios, client: client, runner: runner) { _ in }
        #expect(results.count == scenarios.count && !scenarios.isEmpty)
        return Dictionary(uniqueKeysWithValues: results.map { ($0.scenario, $0) })
    }

    static func expectAllPass(_ results: [String: ScenarioResult], _ example: String) {
        for (id, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(result.status == .pass, "\(example) on \(id): \(result.status) \(result.reason ?? "") \(result.client.map { "\($0)" } ?? "")")
        }
    }

    /// The checks that failed in `result` at `level`.
    static func failing(_ result: ScenarioResult?, _ level: CheckUse.Level = .recommended) -> Set<String> {
        Set(result?.verdicts.filter { $0.level == level && $0.status == .fail }.map(\.check) ?? [])
    }

    /// `check` passed (was judged, not left not-applicable) in `scenario`.
    static func judged(_ results: [String: ScenarioResult], _ scenario: String, _ check: String) {
        let verdict = results[scenario]?.verdicts.first { $0.check == check }
        #expect(verdict?.status == .pass, "\(scenario): \(check) is \(verdict.map { "\($0.status): \($0.reason)" } ?? "absent")")
    }

    @Test func pythonWebSSOPassesEveryWebSSOScenario() async throws {
        let results = try await Self.run("python3 examples/python-websso/client.py",
                                         ["flow:web-sso", "flow:web-sso-idp-initiated"])
        #expect(results.count >= 90)
        Self.expectAllPass(results, "python-websso")
        for (id, result) in results { #expect(Self.failing(result).isEmpty, "\(id): \(Self.failing(result))") }
        // Each step the README names, met and judged.
        Self.judged(results, "web-sso.shibboleth-form-login", "encoding.form-percent-encoded")
        Self.judged(results, "web-sso.shibboleth-form-login", "flow.post-form-submitted")
        Self.judged(results, "web-sso.base64-wrapped-76", "encoding.base64-unaltered")
        Self.judged(results, "web-sso.idp-session-reuse", "flow.idp-session-reused")
        Self.judged(results, "web-sso.idp-session-reuse", "flow.cookies-kept")
        Self.judged(results, "web-sso.consent-declined", "flow.consent-answered")
        Self.judged(results, "web-sso.mfa-one-time-code", "flow.second-factor-completed")
        Self.judged(results, "web-sso.idp-http-basic", "httpauth.challenge-answered")
        Self.judged(results, "web-sso.bad-password-loop", "flow.bad-password-bounded")
        Self.judged(results, "web-sso.https-downgrade-after-login", "security.no-https-downgrade")
        Self.judged(results, "web-sso.dead-idp-timeout", "flow.timeout-clean")
        Self.judged(results, "web-sso.tls-idp-self-signed", "security.tls-certificate-validated")
        // It stops on the IdP's own words, and reports no success from an IdP error page shown with 200.
        #expect(results["web-sso.lockout-after-three"]?.client?.error?.contains("locked") == true)
        #expect(results["web-sso.idp-error-page-200"]?.client?.outcome == "failure")
    }

    @Test func pythonECPPassesEveryECPScenario() async throws {
        let results = try await Self.run("python3 examples/python-ecp/client.py", ["flow:ecp"])
        #expect(results.count >= 15)
        Self.expectAllPass(results, "python-ecp")
        for (id, result) in results { #expect(Self.failing(result).isEmpty, "\(id): \(Self.failing(result))") }
        Self.judged(results, "ecp.shibboleth-login", "ecp.paos-headers")
        Self.judged(results, "ecp.shibboleth-login", "ecp.soap-to-idp")
        Self.judged(results, "ecp.shibboleth-login", "ecp.header-blocks-handled")
        Self.judged(results, "ecp.shibboleth-login", "encoding.samlresponse-intact")
        Self.judged(results, "ecp.consumer-url-mismatch", "ecp.consumer-url-matched")
        #expect(results["ecp.consumer-url-mismatch"]?.client?.error?.contains("consumer URL mismatch") == true)
    }

    @Test func curlPassesEveryBasicAndDigestScenario() async throws {
        let results = try await Self.run("sh examples/curl-httpauth/client.sh", ["flow:http-basic", "flow:http-digest"])
        #expect(results.count >= 14)
        Self.expectAllPass(results, "curl-httpauth")
        Self.judged(results, "http-digest.stale-nonce", "httpauth.digest-stale-retried")
        Self.judged(results, "http-digest.sha256", "httpauth.digest-response-valid")
        Self.judged(results, "http-basic.utf8-credentials", "security.no-preemptive-credentials")
        // curl offers no credentials to the other host, even when it asks (CVE-2018-1000007),
        // which is what http-basic.redirect-to-other-host expects: nothing fails anywhere, not
        // even a recommendation.
        for (id, result) in results {
            #expect(Self.failing(result).isEmpty, "\(id): \(Self.failing(result))")
        }
    }

    /// Builds the standalone package with `swift build` in its folder (about 10 s cold on two
    /// cores, 1 s when built), then runs it on http-basic.
    @Test func swiftURLSessionPassesEveryBasicScenario() async throws {
        let package = Self.examples.appendingPathComponent("swift-urlsession")
        let build = try await ClientProcess.run("/usr/bin/env", ["swift", "build", "--package-path", package.path], timeout: 600)
        try #require(build.status == 0, "swift build in examples/swift-urlsession: \(build.stdout)\(build.stderr)")
        let results = try await Self.run("examples/swift-urlsession/.build/debug/URLSessionClient", ["flow:http-basic"])
        #expect(results.count >= 8)
        Self.expectAllPass(results, "swift-urlsession")
        Self.judged(results, "http-basic.redirect-to-other-host", "security.no-credentials-to-other-host")
        Self.judged(results, "http-basic.bad-password", "flow.bad-password-bounded")
        // It waits for every challenge: no reuse of the space (a recommendation), nothing else.
        for (id, result) in results {
            let expected: Set<String> = id == "http-basic.protection-space-reused" ? ["httpauth.protection-space-reused"] : []
            #expect(Self.failing(result) == expected, "\(id): \(Self.failing(result))")
        }
    }

    /// Every check examples/README.md names in a flow's table exists, applies to that flow and
    /// judges at least one of the flow's scenarios in the catalog.
    @Test func theReadmeTablesNameRealChecksOfTheirFlow() throws {
        let text = try String(contentsOf: Self.examples.appendingPathComponent("README.md"), encoding: .utf8)
        var flow: Flow?
        var named = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### ") {
                flow = Flow(rawValue: line.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "` ")))
                continue
            }
            if line.hasPrefix("## ") { flow = nil }
            guard let flow, line.hasPrefix("| "), let cell = line.split(separator: "|").last,
                  !cell.contains("judged by"), !cell.allSatisfy({ $0 == "-" }) else { continue }
            let ids = cell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            #expect(!ids.isEmpty, "a row of \(flow.rawValue) names no check: \(line)")
            // A scenario's own checks, and the security and encoding checks that judge every
            // scenario of the flow (issue 35).
            let used = Set(CatalogTests.catalog.scenarios.filter { $0.flow == flow }.flatMap { $0.checks.map(\.id) })
                .union(ExpectationJudge.flowWideChecks(for: flow))
            for id in ids {
                named += 1
                let descriptor = CheckCatalog.descriptor(id)
                #expect(descriptor != nil, "README names `\(id)`, which is no check")
                #expect(descriptor.map { $0.flows.isEmpty || $0.flows.contains(flow) } ?? false, "`\(id)` does not apply to \(flow.rawValue)")
                #expect(used.contains(id), "no \(flow.rawValue) scenario names `\(id)`")
            }
        }
        #expect(named >= 60)
    }
}
