import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
import Yams
@testable import Harness

/// The importer: HAR shapes, SAML-tracer, redaction categories, bad input.
@Suite struct RecordedImportTests {
    func importHAR(_ data: Data, redact: Bool = false, id: String = "unit-login") throws -> ChainImporter.Result {
        try ChainImporter.importData(data, file: "unit.har", options: .init(scenarioID: id, redact: redact))
    }

    @Test func chromeAndFirefoxShapesGiveTheSameChain() throws {
        let chrome = try importHAR(RecordedHARShapes.har(chrome: true)).chain
        let firefox = try importHAR(RecordedHARShapes.har(chrome: false)).chain
        #expect(chrome.entries.count == 4)
        #expect(chrome.origins.map(\.url) == ["https://sp.example.org", "https://idp.example.edu:8443"])
        #expect(chrome.messages.map(\.name) == ["authn_request", "response"])
        #expect(chrome.messages.map(\.binding) == [.redirect, .post])
        #expect(chrome.source.creator == "WebInspector 537.36")
        #expect(firefox.source.creator == "Firefox 124.0")
        // Same requests, same messages, same variables; Chrome's lowercase header names aside.
        #expect(chrome.entries.map(\.request) == firefox.entries.map(\.request))
        #expect(chrome.messages == firefox.messages)
        #expect(chrome.variables == firefox.variables)
        #expect(chrome.entries.map { $0.response.body } == firefox.entries.map { $0.response.body })
        // The Response was unsigned: served as recorded apart from re-timing, not re-signed.
        #expect(!chrome.resign)
        let acs = try #require(chrome.entry(3))
        #expect(acs.request.carries == "response" && acs.request.form == ["RelayState", "SAMLResponse"])
        #expect(acs.response.headers.contains { $0.value.contains("JSESSIONID=⟦cookie_JSESSIONID⟧") })
        // Dropped: Date; kept: Location, Set-Cookie (Domain/Secure are dropped at replay, not here).
        #expect(!chrome.entries.flatMap(\.response.headers).contains { $0.name.lowercased() == "date" })
    }

    @Test func variablesAreFoundAndBound() throws {
        let chain = try importHAR(RecordedHARShapes.har(chrome: false)).chain
        let relay = try #require(chain.variable(named: "relay_state"))
        #expect(relay.kind == .relayState && relay.generate)
        #expect(relay.bind == [.init(entry: 2, from: .query, key: "RelayState"), .init(entry: 3, from: .form, key: "RelayState")])
        #expect(relay.shape == ValueShape(prefix: "cookie:", length: 12, alphabet: .hexLower))
        #expect(relay.recorded == RecordedHARShapes.relayState)
        let request = try #require(chain.variable(named: "authn_request_id"))
        #expect(request.bind == [.init(entry: 2, from: .samlRequestID, key: "ID")])
        let cookie = try #require(chain.variable(named: "cookie_JSESSIONID"))
        #expect(cookie.kind == .sessionID && cookie.shape?.alphabet == .hexUpper)
        // The redirect's query is one message placeholder; the page's field value another.
        #expect(chain.entry(1)?.response.header("Location") == "https://idp.example.edu:8443/sso?⟦msg.authn_request|redirect⟧")
        #expect(chain.entry(2)?.response.body?.contains("name=\"SAMLResponse\" value=\"⟦msg.response|base64⟧\"") == true)
        #expect(chain.entry(2)?.response.body?.contains("name=\"RelayState\" value=\"⟦relay_state⟧\"") == true)
    }

    @Test func timestampsBecomeOffsetsFromTheIssueInstant() throws {
        let chain = try importHAR(RecordedHARShapes.har(chrome: false)).chain
        let times = chain.variables.filter { $0.kind == .time }.map { ($0.name, $0.offset ?? 0) }
        #expect(Dictionary(uniqueKeysWithValues: times) == ["now_minus_120": -120, "now_minus_5": -5, "now": 0, "now_plus_300": 300])
        let xml = try #require(chain.message(named: "response")?.xml)
        #expect(xml.contains("AuthnInstant=\"⟦now_minus_120⟧\"") && xml.contains("NotBefore=\"⟦now_minus_5⟧\""))
        #expect(!xml.contains("2025-03-14"))
    }

    @Test func redactionListsEveryCategoryAndKeepsNoValue() throws {
        var entries = try JSONSerialization.jsonObject(with: RecordedHARShapes.har(chrome: false)) as? [String: Any]
        var log = entries?["log"] as? [String: Any] ?? [:]
        var list = log["entries"] as? [[String: Any]] ?? []
        // An API call with a bearer token, a token answer, and a WS-Trust request with a password.
        list.append(RecordedHARShapes.entry("POST", "https://sp.example.org/api/token", chrome: false,
                                            requestHeaders: [("Authorization", "Basic YWxpY2U6czNjcjN0LXB3ZA==")],
                                            postText: "grant_type=password&username=jdoe&password=hunter2-secret", status: 200,
                                            body: "{\"access_token\": \"eyJhbGciOiJSUzI1NiJ9.tok3n\", \"token_type\": \"Bearer\"}"))
        list.append(RecordedHARShapes.entry("GET", "https://sp.example.org/app/books", chrome: false,
                                            requestHeaders: [("Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.tok3n")],
                                            status: 200, body: "<p>Books for Jane Doe</p>"))
        var soap = RecordedHARShapes.entry("POST", "https://idp.example.edu:8443/adfs/services/trust/13/usernamemixed",
                                           chrome: false, status: 200, body: "<ok/>")
        var soapRequest = soap["request"] as? [String: Any] ?? [:]
        soapRequest["postData"] = ["mimeType": "application/soap+xml",
                                   "text": "<s:Envelope><o:Password Type=\"x\">S0ap&amp;Pa55</o:Password></s:Envelope>"]
        soap["request"] = soapRequest
        list.append(soap)
        log["entries"] = list
        entries?["log"] = log
        let data = try JSONSerialization.data(withJSONObject: entries ?? [:])
        let result = try importHAR(data, redact: true)
        let yaml = try RecordedScenarioWriter.yaml(result.scenario)
        for secret in ["hunter2-secret", "s3cr3t-pwd", "YWxpY2U6czNjcjN0LXB3ZA==", "eyJhbGciOiJSUzI1NiJ9.tok3n", "S0ap&Pa55",
                       "9F8E7D6C5B4A39281706F5E4D3C2B1A0", "Jane Doe", "jdoe@example.edu", "jdoe"] {
            #expect(!yaml.contains(secret), "\(secret.prefix(4))… left in the YAML")
        }
        let redactions = result.chain.redactions ?? []
        let fields = Set(redactions.map { "\($0.category.rawValue) \($0.field)" })
        #expect(fields.isSuperset(of: [
            "password form:password", "personal form:username", "password header:Authorization (Basic)",
            "token header:Authorization (Bearer)", "password soap:wsse:Password", "token json:access_token",
            "session-id set-cookie:JSESSIONID", "personal saml:NameID", "personal saml:AttributeValue(displayName)",
            "session-id saml:@SessionIndex",
        ]))
        #expect(result.chain.entry(6)?.response.body == "<p>Books for redacted-displayName-2</p>")
        // Without --redact the values stay (except request values, which are never stored).
        let plain = try RecordedScenarioWriter.yaml(try importHAR(data).scenario)
        #expect(plain.contains("Jane Doe") && !plain.contains("hunter2-secret"))
    }

    @Test func samlTracerExportImportsAndSaysWhatItMade() throws {
        let (_, scenario, result) = try RecordedSupport.importAndLoad(RecordedSupport.tracerExport, id: "tracer-login")
        let chain = try #require(scenario.replay)
        #expect(chain.source.format == .samlTracer)
        #expect(chain.entries.count == 8)
        // No bodies in the format: the 200 answers are synthesized, and each one is named.
        let warned = Set((chain.warnings ?? []).compactMap(\.entry))
        #expect(warned == [3, 5, 6, 8])
        #expect(chain.entries.filter { $0.response.synthesized == true }.map(\.number) == [3, 5, 6, 8])
        #expect(result.warnings.contains { $0.entry == 6 && $0.message.contains("auto-posting form of the SAMLResponse that entry 7 posts") })
        #expect(result.warnings.contains { $0.entry == 8 && $0.message.contains("not recorded") })
        // The posted SAMLResponse (SAML-tracer has it in the request) is served from entry 6.
        #expect(chain.message(named: "response")?.entry == 6)
        #expect(chain.resign)
        let login = try #require(chain.entry(3)?.response.body)
        #expect(login.contains("type=\"password\" name=\"j_password\""))
        #expect(login.contains("name=\"lt\" value=\"⟦lt⟧\""))
    }

    @Test func samlTracerReplayRunsTheWholeChainItCanSynthesize() async throws {
        let (_, scenario, _) = try RecordedSupport.importAndLoad(RecordedSupport.tracerExport, id: "tracer-login")
        let log = TrafficLog()
        try await RecordedSupport.withReplay(scenario, log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            // Redirect → synthesized login form → POST → synthesized consent form → POST →
            // synthesized auto-post → ACS POST (validated) → redirect → the placeholder page.
            let (acs, final) = try await RecordedSupport.login(browser, start: session.startURL)
            #expect(acs.status == 302)
            #expect(final.status == 200)
            #expect(final.body.contains("was not recorded"))
            #expect(RecordedSupport.logEntry(log, replayEntry: 7)?.annotations["replay.acs"] == "valid")
            #expect(log.entries.compactMap { $0.annotations["replay.entry"] } == ["1", "2", "3", "4", "5", "6", "7", "8"])
        }
    }

    @Test func unsignedChainReplaysAsRecordedAndChecksTheBytes() async throws {
        let result = try importHAR(RecordedHARShapes.har(chrome: true))
        let log = TrafficLog()
        try await RecordedSupport.withReplay(result.scenario, log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            var page = try await browser.get(session.startURL)
            page = try await browser.follow(page)
            let acs = try await browser.submit(page)
            let final = try await browser.follow(acs)
            #expect(final.body == RecordedHARShapes.welcome)
            let entry = try #require(RecordedSupport.logEntry(log, replayEntry: 3))
            #expect(entry.annotations["replay.acs"] == "valid" && entry.annotations["replay.acs.intact"] == "true")
            // The cookie works on plain-http loopback: Domain, Secure and SameSite=None dropped.
            let setCookie = try #require(entry.response?.header("Set-Cookie"))
            #expect(setCookie.hasPrefix("JSESSIONID=") && setCookie.hasSuffix("; Path=/; HttpOnly"))
            #expect(RecordedSupport.logEntry(log, replayEntry: 4)?.annotations["replay.cookies-missing"] == nil)
        }
    }

    // MARK: - Bad input

    func importError(_ data: Data, file: String = "bad.har") -> String {
        do {
            _ = try ChainImporter.importData(data, file: file, options: .init(scenarioID: "bad-input"))
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func badInputIsRefusedWithTheFileAndTheReason() throws {
        #expect(importError(Data("hello".utf8)).hasPrefix("bad.har: not JSON"))
        #expect(importError(Data()).contains("bad.har: the file is empty"))
        #expect(importError(Data("[1, 2]".utf8)).contains("not an object"))
        #expect(importError(Data("{\"foo\": 1}".utf8)).contains("neither a HAR 1.2 file"))
        #expect(importError(Data("{\"log\": {\"entries\": []}}".utf8)).contains("no entries"))
        #expect(importError(Data("{\"log\": {\"entries\": [{\"response\": {}}]}}".utf8)).contains("log.entries[0] has no request"))
        #expect(importError(Data("{\"requests\": []}".utf8), file: "t.json").contains("t.json: the SAML-tracer export has no requests"))
        let images = try JSONSerialization.data(withJSONObject: ["log": ["entries": [
            RecordedHARShapes.entry("GET", "https://cdn.example.org/a.png", chrome: true, status: 200, resourceType: "image"),
        ]]])
        #expect(importError(images).contains("none of the 1 recorded exchanges is part of a login chain"))
        let badBase64 = #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/"}, "response": {"status": 200, "content": {"text": "%%%", "encoding": "base64"}}}]}}"#
        #expect(importError(Data(badBase64.utf8)).contains("says base64 but is not"))
    }

    @Test func aBodyThatIsNotUTF8IsKeptAsBytes() throws {
        let bytes: [UInt8] = [0x3C, 0x70, 0x3E, 0xFF, 0xFE, 0x00, 0xE9, 0x3C]
        let har = #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/page"}, "response": {"status": 200, "content": {"mimeType": "text/html; charset=iso-8859-1", "encoding": "base64", "text": "\#(Data(bytes).base64EncodedString())"}}}]}}"#
        let chain = try ChainImporter.importData(Data(har.utf8), file: "latin1.har", options: .init(scenarioID: "latin1")).chain
        #expect(chain.entries[0].response.bodyBase64 == true)
        #expect(Data(base64Encoded: chain.entries[0].response.body ?? "").map(Array.init) == bytes)
    }

    @Test func tenMegabytesAreFineTwoHundredAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = "<html><body>" + String(repeating: "a", count: 10 * 1024 * 1024) + "</body></html>"
        let big = try JSONSerialization.data(withJSONObject: ["log": ["entries": [
            RecordedHARShapes.entry("GET", "https://a.example/page", chrome: false, status: 200, body: page),
        ]]])
        #expect(big.count > 10 * 1024 * 1024)
        let bigFile = directory.appendingPathComponent("ten.har")
        try big.write(to: bigFile)
        let chain = try ChainImporter.importFile(at: bigFile, options: .init(scenarioID: "ten-mb")).chain
        #expect(chain.entries[0].response.body?.count == page.count)
        // 200 MB (sparse: nothing is written) is refused before it is read.
        let hugeFile = directory.appendingPathComponent("huge.har")
        #expect(FileManager.default.createFile(atPath: hugeFile.path, contents: nil))
        let handle = try FileHandle(forWritingTo: hugeFile)
        try handle.truncate(atOffset: 200 * 1024 * 1024)
        try handle.close()
        #expect(throws: RecordedImportError.self) {
            try ChainImporter.importFile(at: hugeFile, options: .init(scenarioID: "huge"))
        }
        do {
            _ = try ChainImporter.importFile(at: hugeFile, options: .init(scenarioID: "huge"))
        } catch {
            #expect("\(error)".contains("huge.har: the file is 200 MB; the limit is 100 MB"))
        }
    }

    @Test func theGeneratedYAMLRoundTrips() throws {
        for (file, id) in [(RecordedSupport.chromeHAR, "round-trip"), (RecordedSupport.tracerExport, "round-trip-tracer")] {
            let (yaml, scenario, result) = try RecordedSupport.importAndLoad(file, id: id, redact: false)
            #expect(scenario.replay == result.chain)
            #expect(scenario == result.scenario)
            #expect(yaml.contains("      body: |"))  // bodies as literal blocks
            #expect(scenario.replay?.problems() == [])
        }
    }

    @Test func theCommittedExampleScenarioLoads() throws {
        let file = SuiteFixture.repository.appendingPathComponent("Scenarios/recorded/shibboleth-login.yaml")
        let scenario = try ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP).load(file: file)
        #expect(scenario.flow == .replay && scenario.replay?.redactions?.isEmpty == false)
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in try RecordedSupport.recordedSecrets(of: RecordedSupport.chromeHAR) {
            #expect(!text.contains(secret))
        }
    }
}
