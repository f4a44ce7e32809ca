import Foundation
import Testing
import TestSupport
@testable import Harness

/// Real third-party clients under `--client`, through their slices of the catalog: python
/// mechanize (a scripted browser, Web SSO) and python-cas (CAS REST). What they pass and fail
/// is their real behaviour (see the note on issue 6).
@Suite(.serialized) struct ThirdPartyRunTests {
    static func run(_ command: String, _ filter: [String]) async throws -> [String: ScenarioResult] {
        let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
        let scenarios = CatalogTests.catalog.selecting(try ScenarioFilter(filter))
        let runner = ScenarioRunner(loader: loader, mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        let results = await RunEngine(jobs: 2, timeoutOverride: 10).run(scenarios, client: ExternalCommandClient(command: command),
                                                                        runner: runner) { _ in }
        return Dictionary(uniqueKeysWithValues: results.map { ($0.scenario, $0) })
    }

    static func failing(_ result: ScenarioResult?) -> Set<String> {
        Set(result?.verdicts.filter { $0.level == .required && $0.status == .fail }.map(\.check) ?? [])
    }

    @Test func mechanizePassesTheWebSSOCoreAndFailsWhereItReallyMisbehaves() async throws {
        guard ClientProcess.interopAvailable else { return }
        let command = "'\(ClientProcess.venvPython)' '\(ClientProcess.script("samlh_mechanize_client.py"))'"
        let results = try await Self.run(command, ["web-sso.shibboleth-form-login", "web-sso.wrong-audience",
                                                   "web-sso.response-unsigned", "web-sso.base64-wrapped-76",
                                                   "web-sso.consent-declined", "web-sso.bad-password-loop",
                                                   "web-sso.idp-http-basic"])
        for id in ["web-sso.shibboleth-form-login", "web-sso.wrong-audience", "web-sso.response-unsigned",
                   "web-sso.base64-wrapped-76"] {
            #expect(results[id]?.status == .pass, "\(id): \(results[id]?.reason ?? "")")
        }
        // It always accepts the consent page.
        #expect(Self.failing(results["web-sso.consent-declined"]).contains("flow.failure-reported"))
        // It resubmits a rejected password until its page budget (12) runs out.
        #expect(Self.failing(results["web-sso.bad-password-loop"]) == ["flow.bad-password-bounded"])
        // It cannot answer an IdP's HTTP Basic challenge.
        #expect(Self.failing(results["web-sso.idp-http-basic"]).contains("flow.resource-obtained"))
    }

    @Test func pythonCASPassesTheCASRESTSlice() async throws {
        guard ClientProcess.interopAvailable else { return }
        let command = "'\(ClientProcess.venvPython)' '\(ClientProcess.script("samlh_cas_client.py"))'"
        let results = try await Self.run(command, ["flow:cas-rest"])
        #expect(results.count >= 10)
        for (id, result) in results {
            #expect(result.status == .pass, "\(id): \(result.reason ?? "")")
        }
    }
}
