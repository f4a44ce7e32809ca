import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// The recordings of real products (Tests/HarnessTests/Fixtures/recorded/real: SimpleSAMLphp
/// 1.19 + Shibboleth SP 3.4, recorded by `scripts/record-real-chains.sh`), imported with
/// `--redact` and replayed through `samlharness run` to several different clients — each must
/// walk every recording of its kind with the replay's checks passing: the logins end with the
/// resource, the wrong-password logins with the client reporting the failure.
@Suite(.serialized) struct RecordedRealWalkTests {
    static let real = RecordedSupport.fixtures.appendingPathComponent("real")
    static let logins = ["ssp-shibboleth-login.playwright.har", "ssp-shibboleth-login.chrome.har",
                         "ssp-shibboleth-login.firefox.har", "ssp-shibboleth-login.saml-tracer.json"]
    static let wrongPasswords = ["ssp-shibboleth-wrong-password.playwright.har", "ssp-shibboleth-wrong-password.chrome.har",
                                 "ssp-shibboleth-wrong-password.firefox.har", "ssp-shibboleth-wrong-password.saml-tracer.json"]
    static let ecpLogins = ["ssp-shibboleth-ecp.har", "ssp-shibboleth-ecp.requests-ecp.har"]
    static let pysaml2Refused = "ssp-shibboleth-ecp-refused.pysaml2.har"

    static var referenceClient: String {
        "'" + HarnessBinary.url.deletingLastPathComponent().appendingPathComponent("samlh-reference-client").path + "'"
    }

    /// The real-client suite's venv (requests-ecp, pysaml2), which CI makes before the tests.
    static var realClientsPython: String {
        ClientProcess.repository.appendingPathComponent(".venv-real-clients/bin/python").path
    }

    static var realClientsAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: realClientsPython) || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static func realClient(_ script: String) -> String {
        "'\(realClientsPython)' '" + ClientProcess.repository.appendingPathComponent("Tests/RealClients/\(script)").path + "'"
    }

    /// A recording imported with `--redact`, as the loader reads it back.
    static func scenario(_ file: String) throws -> Scenario {
        let id = file.replacingOccurrences(of: ".", with: "-")
        return try RecordedSupport.importAndLoad(real.appendingPathComponent(file), id: id).scenario
    }

    /// Runs `client` through the replays of `files`; results by file.
    static func walk(_ files: [String], client: String) async throws -> [String: ScenarioResult] {
        let scenarios = try files.map(scenario)
        let runner = ScenarioRunner(loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP),
                                    mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        let results = await RunEngine(jobs: 2, timeoutOverride: 30).run(
            scenarios, client: ExternalCommandClient(command: client), runner: runner) { _ in }
        var byFile: [String: ScenarioResult] = [:]
        for (file, scenario) in zip(files, scenarios) { byFile[file] = results.first { $0.scenario == scenario.id } }
        return byFile
    }

    static func verdict(_ result: ScenarioResult?, _ check: String) -> Verdict? {
        result?.verdicts.first { $0.check == check }
    }

    static func describe(_ result: ScenarioResult?) -> String {
        guard let result else { return "no result" }
        let failing = result.verdicts.filter { $0.status == .fail }.map { "\($0.check): \($0.reason)" }
        return "\(result.status): \(result.reason ?? "") \(failing) client: \(result.client?.error ?? "")"
    }

    enum BrowserWalker: String, CaseIterable, CustomTestStringConvertible {
        case reference, requests, mechanize
        var testDescription: String { rawValue }

        var command: String {
            switch self {
            case .reference: RecordedRealWalkTests.referenceClient
            case .requests: "'\(ClientProcess.venvPython)' '\(ClientProcess.script("replay_requests_client.py"))'"
            case .mechanize: "'\(ClientProcess.venvPython)' '\(ClientProcess.script("replay_mechanize_client.py"))'"
            }
        }
    }

    @Test(arguments: BrowserWalker.allCases)
    func everyBrowserRecordingIsWalked(_ walker: BrowserWalker) async throws {
        guard walker == .reference || ClientProcess.interopAvailable else { return }
        let results = try await Self.walk(Self.logins + Self.wrongPasswords, client: walker.command)
        for file in Self.logins {
            #expect(results[file]?.status == .pass, "\(walker) on \(file): \(Self.describe(results[file]))")
            #expect(Self.verdict(results[file], "flow.resource-obtained")?.status == .pass, "\(walker) on \(file)")
            #expect(Self.verdict(results[file], "encoding.samlresponse-intact")?.status == .pass, "\(walker) on \(file)")
            #expect(Self.verdict(results[file], "flow.relaystate-preserved")?.status == .pass, "\(walker) on \(file)")
        }
        for file in Self.wrongPasswords {
            #expect(results[file]?.status == .pass, "\(walker) on \(file): \(Self.describe(results[file]))")
            #expect(Self.verdict(results[file], "flow.failure-reported")?.status == .pass, "\(walker) on \(file)")
            #expect(Self.verdict(results[file], "flow.bad-password-bounded")?.status == .pass, "\(walker) on \(file)")
        }
    }

    enum ECPWalker: String, CaseIterable, CustomTestStringConvertible {
        case reference, curl
        var testDescription: String { rawValue }

        var command: String {
            switch self {
            case .reference: RecordedRealWalkTests.referenceClient
            case .curl: "sh '\(ClientProcess.script("replay_curl_ecp.sh"))'"
            }
        }
    }

    @Test(arguments: ECPWalker.allCases)
    func everyECPRecordingIsWalked(_ walker: ECPWalker) async throws {
        let results = try await Self.walk(Self.ecpLogins, client: walker.command)
        for file in Self.ecpLogins {
            #expect(results[file]?.status == .pass, "\(walker) on \(file): \(Self.describe(results[file]))")
            #expect(Self.verdict(results[file], "flow.resource-obtained")?.status == .pass, "\(walker) on \(file)")
            #expect(Self.verdict(results[file], "flow.relaystate-preserved")?.status == .pass, "\(walker) on \(file)")
        }
    }

    /// The ECP messages are found in the SOAP bodies: the SP's PAOS request (its AuthnRequest and
    /// ecp:RelayState), the AuthnRequest the client carried to the IdP (its ID bound), the IdP's
    /// signed Response (re-signed at replay), the Response carried back to the SP's ECP ACS.
    @Test func theECPRecordingImportsItsSOAPMessages() throws {
        let scenario = try Self.scenario("ssp-shibboleth-ecp.requests-ecp.har")
        let chain = try #require(scenario.replay)
        #expect(chain.origins.map(\.role) == [.sp, .idp])
        #expect(scenario.tags.contains("ecp") && scenario.expect.outcome == .success)
        // The SP's browser redirect to the plain GET first (HTTP-Redirect), then ECP.
        #expect(chain.messages.map(\.binding) == [.redirect, .soap, .soap])
        let request = try #require(chain.messages.first { $0.kind == .request && $0.binding == .soap })
        #expect(request.relayState?.hasPrefix("⟦relay_state") == true)
        let response = try #require(chain.messages.first { $0.kind == .response })
        #expect(response.responseSigned == true && chain.resign)
        let paos = try #require(chain.entries.first { $0.response.body?.contains("⟦msg.\(request.name)|inline⟧") == true })
        #expect(paos.request.headers?["PAOS"] == "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp")
        let toIdP = try #require(chain.entries.first { $0.request.carries == request.name })
        #expect(toIdP.request.authorization == "Basic")
        let id = try #require(chain.variables.first { $0.bind?.contains(.init(entry: toIdP.number, from: .samlRequestID, key: "ID")) == true })
        #expect(response.xml.contains("InResponseTo=\"⟦\(id.name)⟧\""))
        #expect(chain.entries.contains { $0.request.carries == "response" && $0.request.path.hasSuffix("/SAML2/ECP") })
        #expect(scenario.checks.map(\.id).contains("flow.relaystate-preserved"))
    }

    /// requests-ecp starts with a plain GET and goes ECP only after the SP's browser redirect:
    /// it walks the recording it made, and the replay of a client that offered PAOS first has
    /// no answer for its plain GET — which the replay says, naming the closest entry.
    @Test func requestsECPWalksWhatItRecordedAndIsToldWhatTheOtherRecordingLacks() async throws {
        guard Self.realClientsAvailable else { return }
        let results = try await Self.walk(Self.ecpLogins, client: Self.realClient("requests_ecp_client.py"))
        let own = results["ssp-shibboleth-ecp.requests-ecp.har"]
        #expect(own?.status == .pass, "\(Self.describe(own))")
        let other = results["ssp-shibboleth-ecp.har"]
        #expect(Self.verdict(other, "flow.resource-obtained")?.status == .fail, "\(Self.describe(other))")
        let unmatched = other?.trace?.exchanges.first { $0.annotations?["replay.unmatched"] != nil }
        // The two recorded GETs of that page: the PAOS one, and the one after the login.
        let closest = Set(unmatched?.annotations?["replay.closest"]?.split(separator: ",").map(String.init) ?? [])
        #expect(closest.isSuperset(of: ["1", "4"]), "\(unmatched?.annotations ?? [:])")
        #expect(unmatched?.annotations?["replay.differences"]?.contains("PAOS missing") == true)
    }

    /// pysaml2 7.5.5's ECP client posts `application/soap+xml` without a SOAPAction, which a
    /// real SimpleSAMLphp 1.19 refuses with 405: the replay of that refusal fails pysaml2 the
    /// same way, and is not served to a client that sends what the IdP accepts (the error
    /// answer is matched strictly; the 404 names the difference).
    @Test func aRecordedRefusalIsReproducedAndNotBlamedOnAnotherClient() async throws {
        let scenario = try Self.scenario(Self.pysaml2Refused)
        #expect(scenario.expect.outcome == .failure)
        #expect(scenario.expect.error == "405")
        if Self.realClientsAvailable {
            let pysaml2 = try await Self.walk([Self.pysaml2Refused], client: Self.realClient("pysaml2_ecp.py"))[Self.pysaml2Refused]
            #expect(pysaml2?.status == .pass, "\(Self.describe(pysaml2))")
            #expect(pysaml2?.client?.error?.contains("405") == true)
        }
        let reference = try await Self.walk([Self.pysaml2Refused], client: Self.referenceClient)[Self.pysaml2Refused]
        let soap = reference?.trace?.exchanges.first { $0.request.method == "POST" }
        #expect(soap?.response?.status == 404, "the reference client's text/xml post is not the recorded application/soap+xml one")
        #expect(soap?.annotations?["replay.differences"]?.contains("Content-Type is text/xml, recorded application/soap+xml") == true,
                "\(soap?.annotations ?? [:])")
    }

    /// A client deviation that matters still reaches the check that names it, with the
    /// recorded entry and the difference in the evidence.
    @Test(arguments: [("relaystate-dropped", "flow.relaystate-preserved", "form RelayState missing"),
                      ("form-not-encoded", "encoding.samlresponse-intact", "replay: recorded entry 5")])
    func aDeviationThatMattersFailsTheCheckThatNamesIt(_ variant: String, _ check: String, _ evidence: String) async throws {
        let file = Self.logins[0]
        let result = try await Self.walk([file], client: Self.referenceClient + " --variant \(variant)")[file]
        let verdict = Self.verdict(result, check)
        #expect(verdict?.status == .fail, "\(variant): \(Self.describe(result))")
        let details = verdict?.evidence.map(\.detail).joined(separator: " | ") ?? ""
        #expect(details.contains(evidence), "\(variant): \(details)")
        #expect(details.contains("[replay: recorded entry"), "\(variant): \(details)")
    }
}
