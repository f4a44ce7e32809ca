import Foundation
import MockServers
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

    /// Issue 21's acceptance with a real client: python-requests verifying against
    /// SAMLH_CA_FILE passes every tls scenario of its flows; the same client with
    /// `verify=False` is caught by security.tls-certificate-validated in each certificate fault
    /// (and still refuses TLS 1.1, which `verify=False` does not touch).
    @Test func pythonRequestsVerifyingPassesTheTLSScenariosAndUnverifiedIsCaught() async throws {
        guard ClientProcess.interopAvailable else { return }
        let script = "'\(ClientProcess.venvPython)' '\(ClientProcess.script("samlh_requests_client.py"))'"
        let filter = ["tag:tls flow:web-sso", "tag:tls flow:http-basic", "tag:tls flow:cas-rest"]
        let verifying = try await Self.run(script, filter)
        #expect(verifying.count >= 18)
        for (id, result) in verifying {
            #expect(result.status == .pass, "\(id) verifying: \(result.reason ?? "")")
        }
        let unverified = try await Self.run("env SAMLH_TLS_VERIFY=off " + script, filter)
        let scenarios = Dictionary(uniqueKeysWithValues: CatalogTests.catalog.scenarios.map { ($0.id, $0) })
        var caught = 0
        for (id, result) in unverified {
            let faults = (scenarios[id]?.knobs ?? []).compactMap { text -> TLSFault? in
                guard case .tlsFault(let fault, _)? = try? Knob(parsing: text) else { return nil }
                return fault
            }
            if faults.contains(where: \.isCertificateFault) {
                #expect(Self.failing(result).contains("security.tls-certificate-validated"), "\(id) with verify=False: \(result.reason ?? "")")
                caught += 1
            } else {
                #expect(result.status == .pass, "\(id) with verify=False: \(result.reason ?? "")")
            }
        }
        #expect(caught >= 14)
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
