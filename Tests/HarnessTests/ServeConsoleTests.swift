import AsyncHTTPClient
import Foundation
import MockServers
import NIOCore
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// `samlharness serve`'s live console, through its own HTTP listener as a page sees it: the
/// event stream pushes each exchange (SAML decoded) and the scenario's verdicts as a login
/// happens, and the final verdicts when the session ends; the control proxy, the downloads and
/// the page itself. And `--public-host` in the URLs the mocks hand out.
@Suite(.serialized) struct ServeConsoleTests {
    static var scenarioFile: String {
        SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso/web-sso.shibboleth-form-login.yaml").path
    }

    /// `path` on the console whose URL (as serve prints it, `http://…/?token=T`) is `console`,
    /// with the token.
    static func at(_ console: String, _ path: String) -> String {
        let parts = console.split(separator: "?", maxSplits: 1)
        let base = String(parts[0])
        let query = parts.count > 1 ? String(parts[1]) : ""
        return base + path + (path.contains("?") ? "&" : "?") + query
    }

    /// Reads Server-Sent Events from `url` into `events` until the stream ends.
    final class EventReader: @unchecked Sendable {
        private let lock = NSLock()
        private var buffer = ""
        private(set) var events: [(name: String, data: [String: Any])] = []
        private(set) var ended = false
        let task: Task<Void, Never>

        init(url: String, client: HTTPClient) {
            let holder = Box()
            task = Task {
                do {
                    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
                    for try await chunk in response.body { holder.reader?.append(String(buffer: chunk)) }
                } catch {}
                holder.reader?.finish()
            }
            holder.reader = self
        }

        final class Box: @unchecked Sendable { weak var reader: EventReader? }

        func append(_ text: String) {
            lock.lock()
            defer { lock.unlock() }
            buffer += text
            while let range = buffer.range(of: "\n\n") {
                let block = String(buffer[..<range.lowerBound])
                buffer = String(buffer[range.upperBound...])
                var name = "message"
                var data = ""
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { data += line.dropFirst(6) }
                }
                guard !data.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { continue }
                events.append((name, object))
            }
        }

        func finish() {
            lock.lock()
            ended = true
            lock.unlock()
        }

        func snapshot() -> (events: [(name: String, data: [String: Any])], ended: Bool) {
            lock.lock()
            defer { lock.unlock() }
            return (events, ended)
        }

        /// Polls (bounded) until `condition` holds for the events read so far.
        func wait(_ what: String, seconds: Double = 20,
                  until condition: ([(name: String, data: [String: Any])], Bool) -> Bool) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let (events, ended) = snapshot()
                if condition(events, ended) { return }
                try await Task.sleep(for: .milliseconds(25))
            }
            throw BrowserError("the console's event stream never showed \(what); got \(snapshot().events.map(\.name))")
        }
    }

    static func verdicts(_ event: [String: Any]) -> [String: String] {
        var statuses: [String: String] = [:]
        for row in event["verdicts"] as? [[String: Any]] ?? [] {
            if let check = row["check"] as? String, let status = row["status"] as? String { statuses[check] = status }
        }
        return statuses
    }

    @Test func theConsoleShowsTheLoginAsItHappensAndTheFinalVerdicts() async throws {
        let serve = try await ServeProcess.start(["--scenario", Self.scenarioFile, "--mockidp-dir", SuiteFixture.mockIdP.path])
        var stopped = false
        defer { if !stopped { serve.terminate() } }
        let console = try #require(serve.ready["console"] as? String)
        #expect(console.hasPrefix("http://127.0.0.1:"))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // A test that throws must not leave it running: its deinit traps in debug builds and
        // takes the whole test process down with it. (A second shutdown only reports alreadyShutdown.)
        defer { client.shutdown { _ in } }
        let reader = EventReader(url: Self.at(console, "events"), client: client)
        try await reader.wait("hello") { events, _ in events.contains { $0.name == "hello" } }
        let hello = try #require(reader.snapshot().events.first { $0.name == "hello" }?.data)
        let session = try #require(hello["session"] as? [String: Any])
        #expect(session["scenario"] as? String == "web-sso.shibboleth-form-login")
        #expect(session["reachable"] as? String == "loopback only")
        #expect((hello["ready"] as? [String: Any])?["idp"] != nil)

        // A login, after the page is open: each exchange arrives as it happens.
        let browser = TestBrowser()
        let start = try #require(serve.url("scenario", "start"))
        let user = TestUser(username: "alice", password: try #require((serve.ready["scenario"] as? [String: Any])?["password"] as? String))
        let acs = try await SuiteFixture.completeLogin(browser, from: try await browser.get(start), user: user)
        let resource = try await browser.follow(acs)
        #expect(resource.status == 200)
        try await reader.wait("the SAMLResponse decoded") { events, _ in
            events.contains { event in
                event.name == "exchange" && (event.data["messages"] as? [[String: Any]] ?? []).contains {
                    $0["name"] as? String == "SAMLResponse" && ($0["xml"] as? String)?.contains("Assertion") == true
                }
            }
        }
        try await reader.wait("the resource obtained") { events, _ in
            events.last { $0.name == "verdicts" }.map { Self.verdicts($0.data)["flow.resource-obtained"] == "pass" } ?? false
        }
        let live = try #require(reader.snapshot().events.last { $0.name == "verdicts" }?.data)
        #expect(live["final"] as? Bool == false)
        // The password never goes to the page.
        let password = user.password
        let exchanges = reader.snapshot().events.filter { $0.name == "exchange" }
        #expect(exchanges.count >= 5)
        let sequences = exchanges.compactMap { $0.data["sequence"] as? Int }
        #expect(Set(sequences).count == sequences.count, "each exchange once")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: exchanges.map(\.data)), as: UTF8.self)
        #expect(!text.contains(password) && !text.contains("correct horse+battery"))

        // The downloads and the control proxy.
        let har = try await browser.get(Self.at(console, "traffic.har"))
        #expect(har.status == 200 && har.body.contains("\"entries\""))
        let verdictsFile = try await browser.get(Self.at(console, "verdicts.json"))
        #expect(verdictsFile.status == 200 && verdictsFile.body.contains("flow.resource-obtained"))
        let report = try await browser.get(Self.at(console, "report.html"))
        #expect(report.status == 200 && report.body.contains("web-sso.shibboleth-form-login"))
        let knobs = try await browser.send("PUT", Self.at(console, "api/knobs"), headers: [("Content-Type", "application/json")],
                                          body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
        #expect(knobs.status == 200 && knobs.body.contains("wrong-audience"))
        let refused = try await browser.send("PUT", Self.at(console, "api/knobs"), headers: [("Content-Type", "application/json")], body: Array(#"{"knobs": ["nope"]}"#.utf8))
        #expect(refused.status == 400 && refused.body.contains("unknown knob"))
        try await browser.shutdown()

        // The session ends: the final verdicts, then the end of the stream.
        let (status, stderr) = await serve.stop()
        stopped = true
        #expect(status == 0, "serve: \(stderr)")
        #expect(stderr.contains("live console at \(console)"))
        #expect(Self.noise(stderr).isEmpty, "a normal stop is quiet: \(Self.noise(stderr))")
        try await reader.wait("the final verdicts and the end of the stream") { events, ended in
            ended && events.last { $0.name == "verdicts" }?.data["final"] as? Bool == true
        }
        let final = try #require(reader.snapshot().events.last { $0.name == "verdicts" }?.data)
        #expect(Self.verdicts(final)["flow.resource-obtained"] == "pass")
        #expect(!Self.verdicts(final).values.contains("pending"), "final verdicts are never pending")
        // The knob switched on above was not the scenario's: the verdicts say what they judge.
        let notice = final["notice"] as? String ?? ""
        #expect(notice.contains("changed during the session (knobs now: `wrong-audience`)"), "\(notice)")
        #expect(stderr.contains("samlharness serve: The knobs or the profile were changed during the session"))
        reader.task.cancel()
        try await client.shutdown()
    }

    /// The stderr lines of a normal session that are not serve's own words (its console line,
    /// its notices, the stop, the verdicts): what a normal stop must not print.
    static func noise(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { line in
            !line.hasPrefix("samlharness serve: ") && !line.contains("[samlharness] SIGINT: stopping")
                && !line.contains("[samlharness] SIGTERM: stopping")
        }
    }

    @Test func aCtrlCWithAPageOpenAndALoginDoneIsQuiet() async throws {
        // Ctrl-C with the console's event stream open and keep-alive connections to the
        // console and the mocks (a browser's): only serve's own lines, no Hummingbird errors
        // (`Waiting on child channel: CancellationError()`, `Server shutdown error: Already closed`).
        let serve = try await ServeProcess.start(["--scenario", Self.scenarioFile, "--mockidp-dir", SuiteFixture.mockIdP.path])
        var stopped = false
        defer { if !stopped { serve.terminate() } }
        let console = try #require(serve.ready["console"] as? String)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // A test that throws must not leave it running: its deinit traps in debug builds and
        // takes the whole test process down with it. (A second shutdown only reports alreadyShutdown.)
        defer { client.shutdown { _ in } }
        let reader = EventReader(url: Self.at(console, "events"), client: client)
        try await reader.wait("hello") { events, _ in events.contains { $0.name == "hello" } }
        let browser = TestBrowser()
        let user = TestUser(username: "alice", password: try #require((serve.ready["scenario"] as? [String: Any])?["password"] as? String))
        let start = try #require(serve.url("scenario", "start"))
        let acs = try await SuiteFixture.completeLogin(browser, from: try await browser.get(start), user: user)
        #expect(try await browser.follow(acs).status == 200)
        #expect(try await browser.get(Self.at(console, "report.html")).status == 200)
        let (status, stderr) = await serve.stop(signal: SIGINT)
        stopped = true
        try await browser.shutdown()
        #expect(status == 0, "serve: \(stderr)")
        #expect(stderr.contains("SIGINT: stopping"))
        #expect(Self.noise(stderr).isEmpty, "a normal Ctrl-C is quiet: \(Self.noise(stderr))")
        reader.task.cancel()
        try await client.shutdown()
    }

    @Test func withoutAScenarioThePageSaysNothingIsJudgedAndOffersNoLinkThatFails() async throws {
        // A knob without a scenario: the traffic is shown, nothing is judged. The page says
        // so and how to get verdicts, and every link it offers answers.
        let serve = try await ServeProcess.start(["--knob", "clock-skew=300", "--mockidp-dir", SuiteFixture.mockIdP.path])
        var stopped = false
        defer { if !stopped { serve.terminate() } }
        let console = try #require(serve.ready["console"] as? String)
        let browser = TestBrowser()
        let page = try await browser.get(console)
        #expect(page.status == 200)
        #expect(page.body.contains("Nothing is judged"), "the page says plainly that nothing is judged")
        #expect(page.body.contains("<code>samlharness serve --scenario "), "and how to get verdicts")
        #expect(page.body.contains("--expect success|failure"))
        let expression = try NSRegularExpression(pattern: ##"href="([^"#:]+)""##)
        let links = expression.matches(in: page.body, range: NSRange(page.body.startIndex..., in: page.body)).compactMap {
            Range($0.range(at: 1), in: page.body).map { String(page.body[$0]) }
        }
        #expect(links.contains("traffic.har"))
        #expect(!links.contains("report.html") && !links.contains("verdicts.json"), "no report or verdicts to offer: \(links)")
        for link in links {
            let answer = try await browser.get(Self.at(console, link))
            #expect(answer.status == 200, "the page offers \(link), which answers \(answer.status)")
        }
        // Asked for anyway (an old bookmark), the report says why there is none.
        let report = try await browser.get(Self.at(console, "report.html"))
        #expect(report.status == 404 && report.body.contains("nothing is judged without a scenario"))
        try await browser.shutdown()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // A test that throws must not leave it running: its deinit traps in debug builds and
        // takes the whole test process down with it. (A second shutdown only reports alreadyShutdown.)
        defer { client.shutdown { _ in } }
        let reader = EventReader(url: Self.at(console, "events"), client: client)
        try await reader.wait("hello") { events, _ in events.contains { $0.name == "hello" } }
        let session = reader.snapshot().events.first { $0.name == "hello" }?.data["session"] as? [String: Any]
        #expect((session?["notice"] as? String)?.hasPrefix("Nothing is judged") == true)
        reader.task.cancel()
        try await client.shutdown()
        let (status, stderr) = await serve.stop()
        stopped = true
        #expect(status == 0)
        #expect(stderr.contains("samlharness serve: Nothing is judged: serve was started without --scenario"))
    }

    @Test func thePageIsSelfContainedAndLateViewersGetTheSessionSoFar() async throws {
        let serve = try await ServeProcess.start(["--profile", "shibboleth", "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        let console = try #require(serve.ready["console"] as? String)
        let browser = TestBrowser()
        let page = try await browser.get(console)
        #expect(page.status == 200 && page.body.lowercased().hasPrefix("<!doctype html"))
        for external in ["src=\"http", "href=\"http", "src='http", "@import", "url(http"] {
            #expect(!page.body.contains(external), "the page loads nothing from elsewhere (\(external))")
        }
        // Traffic before the page opens is sent to it first.
        _ = try await browser.get(try #require(serve.url("sp", "secure")))
        let noScenario = try await browser.get(Self.at(console, "verdicts.json"))
        #expect(noScenario.status == 404 && noScenario.body.contains("--scenario"))
        try await browser.shutdown()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // A test that throws must not leave it running: its deinit traps in debug builds and
        // takes the whole test process down with it. (A second shutdown only reports alreadyShutdown.)
        defer { client.shutdown { _ in } }
        let reader = EventReader(url: Self.at(console, "events"), client: client)
        try await reader.wait("the earlier exchange") { events, _ in
            events.contains { $0.name == "exchange" && $0.data["mock"] as? String == "sp" }
        }
        #expect(reader.snapshot().events.first?.name == "hello")
        #expect((reader.snapshot().events.first?.data["session"] as? [String: Any])?["scenario"] is NSNull)
        reader.task.cancel()
        try await client.shutdown()
    }

    @Test func aReplayedRecordingHasAConsoleWithoutControls() async throws {
        let file = SuiteFixture.repository.appendingPathComponent("Scenarios/recorded/shibboleth-login.yaml").path
        let serve = try await ServeProcess.start(["--scenario", file, "--mockidp-dir", SuiteFixture.mockIdP.path])
        var stopped = false
        defer { if !stopped { serve.terminate() } }
        let console = try #require(serve.ready["console"] as? String)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // A test that throws must not leave it running: its deinit traps in debug builds and
        // takes the whole test process down with it. (A second shutdown only reports alreadyShutdown.)
        defer { client.shutdown { _ in } }
        let reader = EventReader(url: Self.at(console, "events"), client: client)
        try await reader.wait("hello") { events, _ in events.contains { $0.name == "hello" } }
        let browser = TestBrowser()
        let (acs, _) = try await RecordedSupport.login(browser, start: try #require(serve.url("scenario", "start")))
        #expect(acs.status == 302)
        try await reader.wait("the replayed SAMLResponse") { events, _ in
            events.contains { event in
                event.name == "exchange" && (event.data["messages"] as? [[String: Any]] ?? []).contains { $0["name"] as? String == "SAMLResponse" }
            }
        }
        let knobs = try await browser.send("PUT", Self.at(console, "api/knobs"), headers: [("Content-Type", "application/json")], body: Array(#"{"knobs": ["expired"]}"#.utf8))
        #expect(knobs.status == 404 && knobs.body.contains("no control API"))
        try await browser.shutdown()
        let (status, stderr) = await serve.stop()
        stopped = true
        #expect(status == 0, "serve: \(stderr)")
        try await reader.wait("the final verdicts") { events, ended in
            ended && events.last { $0.name == "verdicts" }?.data["final"] as? Bool == true
        }
        reader.task.cancel()
        try await client.shutdown()
        let refused = try await HarnessBinary.run(["serve", "--scenario", file, "--public-host", "10.0.2.2",
                                                   "--mockidp-dir", SuiteFixture.mockIdP.path])
        #expect(refused.status == 2 && refused.stderr.contains("--public-host does not apply to a replayed recording"))
    }

    @Test func publicHostNamesTheGivenHostInMetadataAndRedirects() async throws {
        let serve = try await ServeProcess.start(["--profile", "shibboleth", "--public-host", "localhost", "--no-console",
                                                  "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        #expect(serve.ready["console"] == nil)
        let metadataURL = try #require(serve.url("idp", "metadata"))
        #expect(metadataURL.hasPrefix("http://localhost:"))
        let idpBase = try #require(serve.url("idp", "base"))
        // Bound to 127.0.0.1; reached here by that address, named localhost in what it says.
        let browser = TestBrowser()
        let metadata = try await browser.get(metadataURL.replacingOccurrences(of: "localhost", with: "127.0.0.1"))
        #expect(metadata.body.contains("Location=\"\(idpBase)/"))
        #expect(!metadata.body.contains("127.0.0.1"))
        let secure = try #require(serve.url("sp", "secure")).replacingOccurrences(of: "localhost", with: "127.0.0.1")
        let redirect = try await browser.get(secure)
        try await browser.shutdown()
        #expect(redirect.location?.hasPrefix(idpBase + "/") == true, "the SP redirects to \(redirect.location ?? "nothing")")
        let message = try RedirectBinding.decode(try #require(redirect.location))
        #expect(message.xmlString.contains("AssertionConsumerServiceURL=\"http://localhost:"))
    }

    /// Issue 36: every path of the console needs the session's token; the URL serve prints
    /// carries it and leaves a cookie for the page's own requests; a foreign Host or Origin,
    /// or a form's media type, is refused; the downloads are masked unless --show-secrets.
    @Test func theConsoleWantsTheSessionsTokenOnEveryPathAndMasksItsDownloads() async throws {
        let serve = try await ServeProcess.start(["--scenario", Self.scenarioFile, "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        let console = try #require(serve.ready["console"] as? String)
        let token = try #require((serve.ready["control"] as? [String: Any])?["token"] as? String)
        #expect(console.hasSuffix("/?token=" + token))
        let base = String(console.prefix { $0 != "?" })
        let stranger = TestBrowser()
        for path in ["", "events", "traffic.har", "verdicts.json", "report.html", "api/state"] {
            let answer = try await stranger.get(base + path)
            #expect(answer.status == 401, "\(path): \(answer.status)")
            #expect(answer.body.contains("token"))
        }
        #expect(try await stranger.get(base + "?token=" + String(repeating: "f", count: 32)).status == 401)
        try await stranger.shutdown()
        // The URL serve printed: the page, and a cookie that carries the token from then on.
        let browser = TestBrowser()
        let page = try await browser.get(console)
        #expect(page.status == 200)
        let cookie = try #require(page.header("Set-Cookie"))
        #expect(cookie.contains(token) && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        #expect(try await browser.get(base + "api/state").status == 200, "the cookie alone lets the page's requests in")
        // A login, then the downloads: the password is masked.
        let password = try await Self.logIn(serve)
        let har = try await browser.get(base + "traffic.har")
        #expect(har.status == 200 && har.body.contains("\"entries\""))
        #expect(har.body.contains("[masked]"))
        #expect(!har.body.contains(password) && !har.body.contains(PercentEncoding.formEncode(password)), "traffic.har is masked")
        // The control API's export, asked through the console, is the console's: masked too.
        let viaAPI = try await browser.get(base + "api/traffic.har")
        #expect(viaAPI.status == 200 && viaAPI.body.contains("[masked]"))
        #expect(!viaAPI.body.contains(PercentEncoding.formEncode(password)), "api/traffic.har is masked")
        // A foreign Host (DNS rebinding), a foreign Origin, a form: refused, nothing changed.
        let port = try #require(URLComponents(string: console)?.port)
        let rebound = try await RawHTTPExchange.send(port: port, head: "GET /?token=\(token) HTTP/1.1\r\nHost: rebind.example:\(port)\r\nConnection: close\r\n\r\n")
        #expect(rebound.statusLine.contains("403"), "\(rebound.statusLine)")
        let foreign = try await browser.send("PUT", base + "api/knobs", headers: [("Content-Type", "application/json"), ("Origin", "https://evil.example")],
                                             body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
        #expect(foreign.status == 403)
        let form = try await browser.send("POST", base + "api/reset", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("x=1".utf8))
        #expect(form.status == 415)
        let state = try await browser.get(base + "api/state")
        #expect(state.body.contains(#""knobs":[]"#), "\(state.body.prefix(300))")
        try await browser.shutdown()
    }

    /// The scenario's user logs in through the session's mocks, as an app would; returns the
    /// password typed.
    static func logIn(_ serve: ServeProcess) async throws -> String {
        let start = try #require(serve.url("scenario", "start"))
        let password = try #require((serve.ready["scenario"] as? [String: Any])?["password"] as? String)
        let login = TestBrowser()
        _ = try await SuiteFixture.completeLogin(login, from: try await login.get(start),
                                                 user: TestUser(username: "alice", password: password))
        try await login.shutdown()
        return password
    }

    /// Issue 37: nobody watching, the console renders nothing; a page opened after the login
    /// still gets every exchange of the session, timed from its first, and the verdicts.
    @Test func aPageOpenedAfterTheLoginGetsTheWholeSession() async throws {
        let serve = try await ServeProcess.start(["--scenario", Self.scenarioFile, "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        let console = try #require(serve.ready["console"] as? String)
        _ = try await Self.logIn(serve)
        let browser = TestBrowser()
        let har = try await browser.get(Self.at(console, "traffic.har"))
        let entries = try #require(((try JSONSerialization.jsonObject(with: Data(har.body.utf8)) as? [String: Any])?["log"]
            as? [String: Any])?["entries"] as? [[String: Any]])
        try await browser.shutdown()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { client.shutdown { _ in } }
        let reader = EventReader(url: Self.at(console, "events"), client: client)
        try await reader.wait("every exchange of the session and the verdicts") { events, _ in
            events.filter { $0.name == "exchange" }.count >= entries.count && events.contains { $0.name == "verdicts" }
        }
        let exchanges = reader.snapshot().events.filter { $0.name == "exchange" }
        #expect(exchanges.count == entries.count, "\(exchanges.count) exchanges shown of \(entries.count)")
        #expect(exchanges.first?.data["at_ms"] as? Int == 0, "timed from the session's first exchange")
        let verdicts = try #require(reader.snapshot().events.last { $0.name == "verdicts" }?.data)
        #expect(Self.verdicts(verdicts)["flow.resource-obtained"] != nil, "\(Self.verdicts(verdicts))")
    }

    @Test func withShowSecretsTheConsolesDownloadsAreUnmasked() async throws {
        let serve = try await ServeProcess.start(["--scenario", Self.scenarioFile, "--mockidp-dir", SuiteFixture.mockIdP.path, "--show-secrets"])
        defer { serve.terminate() }
        let console = try #require(serve.ready["console"] as? String)
        let password = try await Self.logIn(serve)
        let browser = TestBrowser()
        let har = try await browser.get(Self.at(console, "traffic.har"))
        #expect(har.body.contains(PercentEncoding.formEncode(password)), "unmasked on request")
        try await browser.shutdown()
    }

    @Test func theConsoleBindsLoopbackUnlessAskedWhateverHostSays() async throws {
        let serve = try await ServeProcess.start(["--profile", "shibboleth", "--host", "0.0.0.0", "--public-host", "localhost",
                                                  "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        let console = try #require(serve.ready["console"] as? String)
        #expect(console.hasPrefix("http://127.0.0.1:"))
        let port = try #require(URLComponents(string: console)?.port)
        // Bound to 127.0.0.1, not the wildcard: nothing listens on the port at another address.
        // Read to the end: procfs files report no size, and a busy machine's table is long.
        let table = try #require(FileHandle(forReadingAtPath: "/proc/net/tcp"))
        let listening = String(decoding: try table.readToEnd() ?? Data(), as: UTF8.self)
        try table.close()
        let hexPort = String(format: ":%04X", port)
        let lines = listening.split(separator: "\n").filter { $0.contains(hexPort + " ") && $0.contains(" 0A ") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("0100007F" + hexPort) }, "\(lines)")
    }

    @Test func aBadPublicHostIsRefused() async throws {
        let outcome = try await HarnessBinary.run(["serve", "--public-host", "http://phone.local:80/"])
        #expect(outcome.status == 64 || outcome.status == 2, "status \(outcome.status)")
        #expect(outcome.stderr.contains("--public-host"))
    }
}

/// The console in a real browser: headless Chromium (Debian's, driven by Playwright) opens it
/// before the reference client logs in and, without a reload, shows the exchanges, the decoded
/// SAMLResponse and the scenario's verdicts; then the final verdicts after serve stops
/// (`Tests/Interop/console_browser_check.py`; screenshots kept in `.build/console-browser/`).
/// Needs `scripts/setup-browser-tests.sh` (`.venv-browser`); required in CI.
@Suite(.serialized) struct ConsoleBrowserTests {
    static var python: String { SuiteFixture.repository.appendingPathComponent(".venv-browser/bin/python").path }

    @Test func chromiumShowsTheSessionLiveWithoutAReload() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) || ProcessInfo.processInfo.environment["CI"] != nil else {
            return
        }
        let out = SuiteFixture.repository.appendingPathComponent(".build/console-browser")
        try? FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let bin = HarnessBinary.url.deletingLastPathComponent()
        let outcome = try await ClientProcess.run(Self.python, [
            ClientProcess.script("console_browser_check.py"),
            "--serve", HarnessBinary.url.path, "--client", bin.appendingPathComponent("samlh-reference-client").path,
            "--scenario", ServeConsoleTests.scenarioFile, "--mockidp-dir", SuiteFixture.mockIdP.path, "--out", out.path,
        ], timeout: 240)
        #expect(outcome.status == 0, "console_browser_check.py: \(outcome.stdout.suffix(3000)) \(outcome.stderr.suffix(2000))")
        let result = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("result.json"))) as? [String: Any]
        #expect(result?["opened_before_traffic"] as? Bool == true)
        #expect(result?["saml_response_decoded"] as? Bool == true)
        #expect((result?["exchanges_shown"] as? Int ?? 0) >= 4)
        let verdicts = result?["verdicts"] as? [String: String] ?? [:]
        #expect(verdicts["flow.resource-obtained"] == "pass", "\(verdicts)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("console-live.png").path))
    }
}
