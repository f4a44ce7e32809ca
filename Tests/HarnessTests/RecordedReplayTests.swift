import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The acceptance of recorded chains: a HAR of a real Shibboleth-style login (made by running
/// the real mechanize client through the mocks, scripts/make-har-fixture.sh) imports, redacts,
/// loads, and replays against clients with no mock running.
@Suite(.serialized) struct RecordedReplayTests {
    @Test func redactedImportContainsNoRecordedSecret() throws {
        let (yaml, _, result) = try RecordedSupport.importAndLoad(RecordedSupport.chromeHAR, id: "shibboleth-login")
        let secrets = try RecordedSupport.recordedSecrets(of: RecordedSupport.chromeHAR)
        #expect(secrets.count >= 10)
        for secret in secrets {
            #expect(!yaml.contains(secret), "the redacted YAML still contains a recorded secret (\(secret.prefix(6))…)")
            let encoded = PercentEncoding.formEncode(secret)
            #expect(!yaml.contains(encoded))
        }
        let categories = Set((result.chain.redactions ?? []).map(\.category))
        #expect(categories == Set(RecordedChain.Redaction.Category.allCases))
        let password = try #require(result.chain.redactions?.first { $0.category == .password })
        #expect(password.field == "form:j_password")
        #expect(password.entry == 4)
        #expect(result.chain.variables.allSatisfy { $0.recorded == nil })
    }

    @Test func importKeepsTheLoginChainOnly() throws {
        let (_, scenario, result) = try RecordedSupport.importAndLoad(RecordedSupport.chromeHAR, id: "shibboleth-login")
        let chain = try #require(scenario.replay)
        #expect(chain.origins.map(\.url) == ["https://sp.example.org", "https://idp.example.edu"])
        #expect(chain.origins.map(\.role) == [.sp, .idp])
        #expect(chain.entries.count == 8)
        #expect(result.skipped.count == 4)  // logo, stylesheet, favicon, analytics beacon
        #expect(result.skipped.contains { $0.contains("analytics.example.net") })
        #expect(chain.resign)
        let response = try #require(chain.message(named: "response"))
        #expect(response.responseSigned == true && response.assertionSigned == false)
        #expect(!response.xml.contains("Signature"))
        #expect(response.xml.contains("InResponseTo=\"⟦authn_request_id⟧\""))
        #expect(response.xml.contains("NotOnOrAfter=\"⟦now_plus_300⟧\""))
        let request = try #require(chain.variable(named: "authn_request_id"))
        #expect(request.generate && request.bind == [.init(entry: 2, from: .samlRequestID, key: "ID")])
        // The Response came with a RelayState: the import adds the check that it goes back.
        #expect(scenario.checks.map(\.id) == RecordedScenarioWriter.checks + ["flow.relaystate-preserved"])
        #expect(scenario.flow == .replay && scenario.tags.contains("recorded"))
    }

    @Test func inProcessBrowserCompletesTheLoginAgainstTheReplayAlone() async throws {
        let (_, scenario, _) = try RecordedSupport.importAndLoad(RecordedSupport.chromeHAR, id: "shibboleth-login")
        let chain = try #require(scenario.replay)
        let log = TrafficLog()
        try await RecordedSupport.withReplay(scenario, log: log) { session in
            #expect(session.startURL.hasPrefix("http://127.0.0.1:") && session.startURL.hasSuffix("/secure"))
            #expect(Set(session.originMap.keys) == ["https://sp.example.org", "https://idp.example.edu"])
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let (acs, final) = try await RecordedSupport.login(browser, start: session.startURL)
            #expect(acs.status == 302)
            #expect(final.status == 200)
            // The recorded protected page, redacted the same way.
            let recorded = try #require(chain.entry(8)?.response.body)
            #expect(final.body == recorded)
            #expect(final.body.contains("Protected resource /secure"))
            // The SAMLResponse the browser posted verified against the harness key, and its
            // InResponseTo is the AuthnRequest ID the browser carried to the IdP.
            let acsEntry = try #require(RecordedSupport.logEntry(log, replayEntry: 7))
            #expect(acsEntry.annotations["replay.acs"] == "valid")
            #expect(acsEntry.annotations["replay.acs.intact"] == "true")
            let bound = try #require(RecordedSupport.logEntry(log, replayEntry: 2)?.annotations["replay.bound.authn_request_id"])
            #expect(acsEntry.annotations["replay.acs.in-response-to"] == bound)
            #expect(log.entries.allSatisfy { $0.annotations["replay.unmatched"] == nil })
            // The browser kept the session cookie the replay set (Domain and Secure dropped).
            #expect(RecordedSupport.logEntry(log, replayEntry: 8)?.annotations["replay.cookies-missing"] == nil)
        }
    }

    @Test func pythonMechanizeClientCompletesTheLoginAgainstTheReplay() async throws {
        guard ClientProcess.interopAvailable else { return }
        let (_, scenario, _) = try RecordedSupport.importAndLoad(RecordedSupport.chromeHAR, id: "shibboleth-login")
        let log = TrafficLog()
        try await RecordedSupport.withReplay(scenario, log: log) { session in
            let outcome = try await ClientProcess.run(ClientProcess.venvPython, [
                ClientProcess.script("websso_mechanize.py"), "--start", session.startURL,
                "--username", "alice", "--password", RecordedSupport.recordedPassword,
            ])
            #expect(outcome.status == 0, "mechanize failed: \(outcome.stderr.suffix(800))")
            let result = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
            #expect(result?["status"] as? Int == 200)
            #expect((result?["url"] as? String)?.hasSuffix("/secure") == true)
            #expect((result?["body"] as? String)?.contains("Protected resource /secure") == true)
            let acsEntry = try #require(RecordedSupport.logEntry(log, replayEntry: 7))
            #expect(acsEntry.annotations["replay.acs"] == "valid")
        }
    }

    @Test func manglingClientIsRefusedByTheReplayedSP() async throws {
        let (_, scenario, _) = try RecordedSupport.importAndLoad(RecordedSupport.chromeHAR, id: "shibboleth-login")
        let log = TrafficLog()
        try await RecordedSupport.withReplay(scenario, log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            var page = try await browser.follow(try await browser.get(session.startURL))
            page = try await browser.follow(try await browser.submit(page, values: ["j_username": "a", "j_password": "b"],
                                                                     button: ("_eventId_proceed", "")))
            page = try await browser.submit(page, values: ["_shib_idp_consentOptions": "_shib_idp_rememberConsent"],
                                            button: ("_eventId_proceed", "Accept"))
            let form = try #require(page.forms.first)
            let value = try #require(form.value("SAMLResponse"))
            #expect(value.contains("+"), "the fixture's SAMLResponse should contain a `+` to mangle")
            // A client that form-encodes everything but `+` (the classic bug).
            let mangled = PercentEncoding.formEncode(value).replacingOccurrences(of: "%2B", with: "+")
            let body = "RelayState=\(PercentEncoding.formEncode(form.value("RelayState") ?? ""))&SAMLResponse=\(mangled)"
            let answer = try await browser.post(browser.resolve(form.action ?? "", against: page.url), form: body)
            #expect(answer.status == 403)
            #expect(answer.body.contains("encoding.invalid"))
            let entry = try #require(RecordedSupport.logEntry(log, replayEntry: 7))
            #expect(entry.annotations["replay.acs"] == "invalid")
            #expect(entry.annotations["replay.acs.code"] == "encoding.invalid")
            #expect(entry.annotations["replay.acs.deviation"] == "base64.space-for-plus")
            // A client that alters the XML (one byte of the Assertion) breaks the signature.
            var xml = Array((try SAMLBase64.decode(value)))
            if let index = xml.firstIndex(of: UInt8(ascii: "k")) { xml[index] = UInt8(ascii: "K") }
            let tampered = "SAMLResponse=\(PercentEncoding.formEncode(SAMLBase64.encode(xml)))&RelayState=x"
            let second = try await browser.post(browser.resolve(form.action ?? "", against: page.url), form: tampered)
            #expect(second.status == 403)
            #expect(second.body.contains("signature.invalid"))
        }
    }

    @Test func replayTrafficExportsAsHARThatReimports() async throws {
        let (_, scenario, _) = try RecordedSupport.importAndLoad(RecordedSupport.chromeHAR, id: "shibboleth-login")
        let log = TrafficLog()
        try await RecordedSupport.withReplay(scenario, log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            _ = try await RecordedSupport.login(browser, start: session.startURL)
        }
        let har = try log.harJSON()
        let again = try ChainImporter.importData(har, file: "replay-run.har",
                                                 options: .init(scenarioID: "replay-run", redact: true))
        #expect(again.chain.entries.count == 8)
        #expect(again.chain.messages.map(\.name) == ["authn_request", "response"])
        #expect(again.chain.entries.map(\.request.path) == scenario.replay?.entries.map(\.request.path))
        // …and the re-imported chain replays too.
        let yaml = try RecordedScenarioWriter.yaml(again.scenario)
        let reloaded = try ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
            .load(text: yaml, file: "replay-run.yaml", expectedID: "replay-run")
        try await RecordedSupport.withReplay(reloaded) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let (_, final) = try await RecordedSupport.login(browser, start: session.startURL)
            #expect(final.status == 200 && final.body.contains("Protected resource /secure"))
        }
    }
}
