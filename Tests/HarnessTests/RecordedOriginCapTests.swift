import Foundation
import Testing
import TestSupport
@testable import Harness

/// A recorded chain may have at most `RecordedChain.maxOrigins` origins (issue 36: a 207 KB
/// replay scenario opened 3,002 loopback listeners, 240 MB): one more is refused when the
/// scenario is loaded, when a recording is imported and before a replay starts, naming the
/// file, the count and the cap.
@Suite struct RecordedOriginCapTests {
    static let recording = SuiteFixture.repository.appendingPathComponent("Scenarios/recorded/shibboleth-login.yaml")

    /// The catalog's recorded login with `extra` more origins (`other-N`, never used by an entry).
    static func scenarioText(extra: Int) throws -> String {
        let text = try String(contentsOf: recording, encoding: .utf8)
        let more = (0..<extra).map { "  - name: other-\($0 + 1)\n    url: https://h\($0 + 1).example.org\n    role: other\n" }
        let marker = "  origins:\n"
        let range = try #require(text.range(of: marker))
        return text.replacingCharacters(in: range, with: marker + more.joined())
    }

    static let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)

    @Test func theRealRecordingsAreFarBelowTheCap() throws {
        for name in ["shibboleth-login", "ssp-shibboleth-login", "ssp-shibboleth-ecp", "ssp-shibboleth-wrong-password"] {
            let file = SuiteFixture.repository.appendingPathComponent("Scenarios/recorded/\(name).yaml")
            let chain = try #require(try Self.loader.load(file: file).replay)
            #expect(chain.origins.count <= 3 && chain.tooManyOrigins == nil, "\(name)")
        }
        #expect(RecordedChain.maxOrigins == 64)
    }

    @Test func oneOriginOverTheCapIsRefusedAtLoadNamingTheFileTheCountAndTheCap() throws {
        // 2 recorded + 62 = 64: loads.
        let atCap = try Self.loader.load(text: try Self.scenarioText(extra: 62), file: "at-cap.yaml")
        #expect(atCap.replay?.origins.count == 64)
        do {
            _ = try Self.loader.load(text: try Self.scenarioText(extra: 63), file: "over-cap.yaml")
            Issue.record("a chain of 65 origins was loaded")
        } catch let error as ScenarioLoadError {
            let text = error.description
            #expect(text.contains("over-cap.yaml") && text.contains("replay.origins"), "\(text)")
            #expect(text.contains("65 origins, more than the 64 a replay allows"), "\(text)")
        }
    }

    @Test func aReplayOfTooManyOriginsOpensNoListener() async throws {
        var scenario = try Self.loader.load(text: try Self.scenarioText(extra: 62), file: "at-cap.yaml")
        scenario.replay?.origins.append(.init(name: "other-63", url: "https://h63.example.org", role: .other))
        do {
            let session = try await ReplaySession.start(scenario: scenario, mockIdPDirectory: SuiteFixture.mockIdP)
            await session.stop()
            Issue.record("a replay of 65 origins started")
        } catch {
            #expect("\(error)".contains("65 origins, more than the 64"), "\(error)")
        }
    }

    @Test func anImportOfTooManyOriginsIsRefusedNamingTheFile() throws {
        // A HAR whose browser navigated to 65 sites, one page each.
        let entries = (1...65).map { index in
            """
            {"startedDateTime": "2026-01-01T00:00:\(String(format: "%02d", index % 60)).000Z", "time": 1,
             "request": {"method": "GET", "url": "https://h\(index).example.org/", "httpVersion": "HTTP/1.1",
                         "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                          "headers": [{"name": "Content-Type", "value": "text/html"}], "cookies": [],
                          "content": {"size": 5, "mimeType": "text/html", "text": "<p>x</p>"},
                          "redirectURL": "", "headersSize": -1, "bodySize": 5},
             "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
            """
        }
        let har = #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["#
            + entries.joined(separator: ",") + "]}}"
        do {
            _ = try ChainImporter.importData(Data(har.utf8), file: "many-sites.har",
                                             options: .init(scenarioID: "many-sites", redact: true))
            Issue.record("a recording of 65 origins was imported")
        } catch let error as RecordedImportError {
            #expect(error.description.hasPrefix("many-sites.har: the recording crosses 65 origins, more than the 64"), "\(error)")
        }
    }
}
