import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// Replay matching by score (docs/recorded-chains.md, "Matching"), on the recording of a real
/// SimpleSAMLphp 1.19 login: its form is `<form action="?" method="post">` on a page whose
/// URL carries `?AuthState=…`, and SimpleSAMLphp reads AuthState from the query or the body.
@Suite struct RecordedMatchingTests {
    static let recording = RecordedRealWalkTests.real.appendingPathComponent("ssp-shibboleth-login.playwright.har")

    static func scenario(_ change: (inout RecordedChain) -> Void = { _ in }) throws -> Scenario {
        var scenario = try RecordedSupport.importAndLoad(recording, id: "ssp-login").scenario
        if var chain = scenario.replay {
            change(&chain)
            scenario.replay = chain
        }
        return scenario
    }

    /// The login page as the replay serves it: its URL (path, AuthState) and the AuthState.
    struct LoginPage {
        let origin: String
        let path: String
        let authState: String
    }

    static func loginPage(_ session: ReplaySession, _ browser: TestBrowser) async throws -> LoginPage {
        let page = try await browser.follow(try await browser.get(session.startURL))
        let authState = try #require(page.forms.first?.value("AuthState"))
        let url = try #require(URLComponents(string: page.url))
        let origin = "\(url.scheme ?? "http")://\(url.host ?? ""):\(url.port ?? 80)"
        return LoginPage(origin: origin, path: url.percentEncodedPath, authState: authState)
    }

    /// POSTs a login form to the login page's path with `query` and `form` (decoded pairs).
    static func post(_ browser: TestBrowser, _ page: LoginPage, query: [(String, String)],
                     form: [(String, String)]) async throws -> TestBrowser.Page {
        let q = query.map { "\($0.0)=\(PercentEncoding.queryComponentEncode($0.1))" }.joined(separator: "&")
        let body = form.map { "\(PercentEncoding.formEncode($0.0))=\(PercentEncoding.formEncode($0.1))" }.joined(separator: "&")
        return try await browser.post(page.origin + page.path + (q.isEmpty ? "" : "?" + q), form: body)
    }

    static func lastAnswer(_ log: TrafficLog) throws -> TrafficEntry {
        try #require(log.entries.last)
    }

    static let credentials = [("username", "someone"), ("password", "whatever")]

    /// Python's urljoin keeps the page's query for `action="?"`: AuthState arrives twice.
    @Test func authStateInTheQueryAndTheBodyIsAnExactMatch() async throws {
        let log = TrafficLog()
        try await RecordedSupport.withReplay(try Self.scenario(), log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let page = try await Self.loginPage(session, browser)
            let answer = try await Self.post(browser, page, query: [("AuthState", page.authState)],
                                             form: Self.credentials + [("AuthState", page.authState)])
            #expect(answer.status == 200 && answer.body.contains("SAMLResponse"))
            let entry = try Self.lastAnswer(log)
            #expect(entry.annotations["replay.entry"] == "4")
            #expect(entry.annotations["replay.match"] == "exact")
            #expect(entry.annotations["replay.differences"] == "AuthState sent in the query as well (read from either)")
        }
    }

    @Test func authStateOnlyInTheQueryIsReadFromEither() async throws {
        let log = TrafficLog()
        try await RecordedSupport.withReplay(try Self.scenario(), log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let page = try await Self.loginPage(session, browser)
            let answer = try await Self.post(browser, page, query: [("AuthState", page.authState)], form: Self.credentials)
            #expect(answer.body.contains("SAMLResponse"))
            let entry = try Self.lastAnswer(log)
            #expect(entry.annotations["replay.entry"] == "4")
            #expect(entry.annotations["replay.differences"]?.contains("AuthState sent in the query, recorded in the form") == true)
        }
    }

    /// `strict` answers only the recording browser's request; the 404 names the closest entry
    /// and what differs; an ignore-list or the scenario's own `anywhere` relaxes it.
    @Test func strictRefusesWhatDefaultAcceptsAndTheListsRelaxIt() async throws {
        let strict = try Self.scenario { $0.matching = .init(strictness: .strict) }
        let log = TrafficLog()
        try await RecordedSupport.withReplay(strict, log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let page = try await Self.loginPage(session, browser)
            let refused = try await Self.post(browser, page, query: [("AuthState", page.authState)],
                                              form: Self.credentials + [("AuthState", page.authState)])
            #expect(refused.status == 404)
            #expect(refused.body.contains("entry 4: POST /simplesaml/module.php/core/loginuserpass.php"))
            #expect(refused.body.contains("strict matching refused it"))
            let entry = try Self.lastAnswer(log)
            #expect(entry.annotations["replay.closest"]?.hasPrefix("4") == true)
            #expect(entry.annotations["replay.differences"]?.contains("query AuthState not in the recording") == true)
            // Exactly the browser's request passes.
            let answered = try await Self.post(browser, page, query: [], form: Self.credentials + [("AuthState", page.authState)])
            #expect(answered.body.contains("SAMLResponse"))
            #expect(try Self.lastAnswer(log).annotations["replay.strictness"] == "strict")
        }
        let ignoring = try Self.scenario { $0.matching = .init(strictness: .strict, ignoreParameters: ["AuthState"]) }
        try await RecordedSupport.withReplay(ignoring) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let page = try await Self.loginPage(session, browser)
            let answer = try await Self.post(browser, page, query: [("AuthState", page.authState)], form: Self.credentials)
            #expect(answer.body.contains("SAMLResponse"), "AuthState is left out of matching")
        }
        // `username` moved to the query: a difference under strict, unless the scenario says
        // the server reads it from anywhere.
        for (anywhere, expected) in [([String](), 404), (["username"], 200)] {
            let scenario = try Self.scenario { $0.matching = .init(strictness: .strict, anywhere: anywhere) }
            try await RecordedSupport.withReplay(scenario) { session in
                let browser = TestBrowser()
                defer { Task { try? await browser.shutdown() } }
                let page = try await Self.loginPage(session, browser)
                let answer = try await Self.post(browser, page, query: [("username", "someone")],
                                                 form: [("password", "x"), ("AuthState", page.authState)])
                #expect(answer.status == expected, "anywhere \(anywhere)")
            }
        }
    }

    @Test func changedAndExtraParametersAreAnnotatedAndAnswered() async throws {
        let log = TrafficLog()
        try await RecordedSupport.withReplay(try Self.scenario(), log: log) { session in
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let page = try await Self.loginPage(session, browser)
            let answer = try await Self.post(browser, page, query: [],
                                             form: Self.credentials + [("AuthState", "_forged"), ("remember", "1")])
            #expect(answer.body.contains("SAMLResponse"))
            let entry = try Self.lastAnswer(log)
            #expect(entry.annotations["replay.match"] == "near")
            let differences = entry.annotations["replay.differences"] ?? ""
            #expect(differences.contains("form AuthState is not the value the replay handed out"), "\(differences)")
            #expect(differences.contains("form remember not in the recording"), "\(differences)")
        }
    }

    /// Under the default strictness an entry answers while at least half of what was recorded
    /// matches; `lenient` answers whatever matches method and path.
    @Test func defaultNeedsHalfTheRecordingLenientNothing() async throws {
        for (strictness, expected) in [(RecordedChain.Matching.Strictness.default, 404), (.lenient, 200)] {
            let scenario = try Self.scenario { $0.matching = .init(strictness: strictness) }
            try await RecordedSupport.withReplay(scenario) { session in
                let browser = TestBrowser()
                defer { Task { try? await browser.shutdown() } }
                let page = try await Self.loginPage(session, browser)
                let answer = try await Self.post(browser, page, query: [], form: [("other", "x")])
                #expect(answer.status == expected, "\(strictness)")
            }
        }
    }

    /// A post to the ACS without its SAMLResponse is not the recorded request, however the
    /// rest matches; per entry, `match:` overrides the chain.
    @Test func theCarriedMessageIsEssentialAndEntriesOverrideTheChain() async throws {
        for lenientACS in [false, true] {
            let log = TrafficLog()
            let scenario = try Self.scenario { chain in
                guard lenientACS, let index = chain.entries.firstIndex(where: { $0.request.carries == "response" }) else { return }
                chain.entries[index].request.match = .init(strictness: .lenient)
            }
            try await RecordedSupport.withReplay(scenario, log: log) { session in
                let browser = TestBrowser()
                defer { Task { try? await browser.shutdown() } }
                let acs = try #require(session.originMap.first { $0.key.contains("localhost") }?.value)
                let answer = try await browser.post(acs + "/Shibboleth.sso/SAML2/POST", form: "RelayState=x")
                if lenientACS {
                    #expect(answer.status == 403, "answered by the ACS entry, whose check refuses it")
                    #expect(try Self.lastAnswer(log).annotations["replay.acs.code"] == "response.malformed")
                } else {
                    #expect(answer.status == 404)
                    #expect(answer.body.contains("without its SAMLResponse"))
                }
            }
        }
    }

    /// `delays: true` replays the recorded server waits, times `--time-scale`.
    @Test func recordedWaitsAreReplayedScaled() async throws {
        let scenario = try Self.scenario { chain in
            chain.delays = true
            chain.entries[0].response.waitMilliseconds = 400
        }
        let log = TrafficLog()
        let session = try await ReplaySession.start(scenario: scenario, mockIdPDirectory: SuiteFixture.mockIdP, log: log,
                                                    timeScale: 0.5)
        let browser = TestBrowser()
        do {
            _ = try await browser.get(session.startURL)
            let entry = try Self.lastAnswer(log)
            #expect(entry.annotations["replay.delay-ms"] == "200")
            #expect(entry.waitDuration >= 0.19, "the answer waited \(entry.waitDuration) s")
        } catch {
            Issue.record(error)
        }
        try? await browser.shutdown()
        await session.stop()
    }

    /// Recorded values are kept for matching, never a password or a user name.
    @Test func keptValuesHoldNoSecret() throws {
        let chain = try #require(try Self.scenario().replay)
        let login = try #require(chain.entries.first { $0.request.form?.contains("password") == true })
        let values = try #require(login.request.values)
        #expect(values["AuthState"] != nil)
        #expect(values["password"] == nil && values["username"] == nil)
        let har = try String(contentsOf: Self.recording, encoding: .utf8)
        #expect(har.contains("peer pass"), "the recording has the password")
        let yaml = try RecordedScenarioWriter.yaml(try Self.scenario())
        #expect(!yaml.contains("peer pass") && !yaml.contains("peer-alice"))
    }
}

/// A replay listener closes connections like every mock (MockServerGroup's HTTP/1 channel):
/// 413 and a lingering close for a body over the limit, the close after an HTTP/1.0 answer.
@Suite struct ReplayConnectionTests {
    @Test func aReplayListenerRefusesTwentyMegabytesAndCloses() async throws {
        let log = TrafficLog()
        try await RecordedSupport.withReplay(try RecordedMatchingTests.scenario(), log: log) { session in
            let port = try #require(URLComponents(string: session.startURL)?.port)
            let size = 20 * 1024 * 1024
            let head = RawHTTPExchange.postHead("/Shibboleth.sso/SAML2/POST", port: port, bodyBytes: size)
            let exchange = try await RawHTTPExchange.send(port: port, head: head, bodyBytes: size)
            #expect(exchange.statusLine.hasPrefix("HTTP/1.1 413"))
            #expect(exchange.header("Connection") == ["close"])
            #expect(exchange.error == 0 && exchange.sent == head.utf8.count + size)
            #expect(log.entries.last?.annotations["refused"] == "body.too-large")
            let old = try await RawHTTPExchange.send(port: port, head: "GET /secure/whoami.shtml HTTP/1.0\r\n\r\n")
            #expect(old.header("Connection") == ["close"] && old.error == 0, "\(old.statusLine)")
        }
    }
}
