import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// `run --time-scale`: the deliberate waits, the lifetimes racing them, the client's
/// `SAMLH_REQUEST_TIMEOUT` and the scenario timeout shrink together; `flow.timeout-clean`
/// judges against the scaled timeout; `real_time` scenarios keep the real clock.
@Suite struct TimeScaleTests {
    static let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)

    static func scenario(_ path: String) throws -> Scenario {
        try loader.load(file: SuiteFixture.repository.appendingPathComponent("Scenarios/\(path).yaml"))
    }

    static func runner(timeScale: Double) throws -> ScenarioRunner {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("time-scale-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var runner = ScenarioRunner(loader: loader, mockIdPDirectory: SuiteFixture.mockIdP, workDirectory: work)
        runner.timeScale = timeScale
        return runner
    }

    @Test func theTimedKnobsScaleAndTheOthersStay() throws {
        #expect(Knob.slow(2).scaled(by: 0.1) == .slow(0.2))
        #expect(Knob.noAnswer(60).scaled(by: 0.1) == .noAnswer(6))
        #expect(Knob.cas(.ticketLifetime(1)).scaled(by: 0.5) == .cas(.ticketLifetime(0.5)))
        #expect(Knob.cm(.tokenLifetime(2)).scaled(by: 0.25) == .cm(.tokenLifetime(0.5)))
        for knob in Knob.examples where !knob.isTimed {
            #expect(knob.scaled(by: 0.1) == knob, "\(knob.text) changed under the time scale")
        }
        // A clock skew is a shifted timestamp, not a wait: it must not shrink.
        #expect(Knob.clockSkew(-600).scaled(by: 0.1) == .clockSkew(-600))
    }

    @Test func theClientIsToldTheScaledTimeouts() async throws {
        let scenario = try Self.scenario("web-sso/web-sso.dead-idp-timeout")
        #expect(scenario.requestTimeout == 10)
        for (scale, request, whole) in [(1.0, "10", "30"), (0.1, "1", "10"), (0.5, "5", "15")] {
            let dump = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString).txt")
            defer { try? FileManager.default.removeItem(at: dump) }
            let client = ExternalCommandClient(command: "env > '\(dump.path)'; exit 3")
            _ = try await Self.runner(timeScale: scale).run(scenario, client: client)
            let lines = Set(try String(contentsOf: dump, encoding: .utf8).split(separator: "\n").map(String.init))
            #expect(lines.contains("SAMLH_REQUEST_TIMEOUT=\(request)"), "scale \(scale)")
            #expect(lines.contains("SAMLH_TIMEOUT=\(whole)"), "scale \(scale)")
        }
    }

    /// `samlharness run --builtin reference` in its own process (its mocks away from the
    /// other suites' load in this one): the results of `filter` at `scale`.
    static func runReference(_ filter: String, scale: Double,
                             client: [String] = ["--builtin", "reference"]) async throws -> (ClientProcess.Outcome, [ScenarioResult]) {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("time-scale-run-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: reports) }
        let outcome = try await HarnessBinary.run(["run"] + client + ["--filter", filter,
                                                   "--time-scale", String(scale), "--report-dir", reports.path,
                                                   "--format", "json", "--mockidp-dir", SuiteFixture.mockIdP.path], timeout: 120)
        let lines = (try? String(contentsOf: reports.appendingPathComponent("results.jsonl"), encoding: .utf8)) ?? ""
        let results = lines.split(separator: "\n").compactMap { try? JSONDecoder().decode(ScenarioResult.self, from: Data($0.utf8)) }
        return (outcome, results)
    }

    @Test func realTimeScenariosKeepTheRealClock() async throws {
        let scenario = try Self.scenario("cas/cas-rest.short-ticket-lifetime")
        #expect(scenario.realTime == true)
        let dump = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: dump) }
        _ = try await Self.runner(timeScale: 0.1).run(scenario, client: ExternalCommandClient(command: "env > '\(dump.path)'; exit 3"))
        let lines = Set(try String(contentsOf: dump, encoding: .utf8).split(separator: "\n").map(String.init))
        #expect(lines.contains("SAMLH_REQUEST_TIMEOUT=10"))
        // And the reference client beats the one-second ticket at a tenth of the time scale.
        let (outcome, results) = try await Self.runReference("cas-rest.short-ticket-lifetime", scale: 0.1)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(results.map(\.status) == [.pass], "\(results.first?.reason ?? "no result")")
    }

    @Test func theReferenceClientGivesUpAtTheScaledTimeoutAndPasses() async throws {
        // The IdP never answers (no-answer=60, 15 s at 0.25); the client is told 2.5 s (a
        // quarter, not a tenth: a debug build on a loaded machine may need a second for an
        // honest answer).
        let (outcome, results) = try await Self.runReference("web-sso.dead-idp-timeout", scale: 0.25)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let result = try #require(results.first)
        #expect(result.status == .pass, "\(result.reason ?? "")")
        let verdict = result.verdicts.first { $0.check == "flow.timeout-clean" }
        #expect(verdict?.status == .pass, "\(verdict?.reason ?? "") — client: \(result.client?.error ?? "") \(result.client?.stderrTail ?? "")")
        #expect(verdict?.reason.contains("within its timeout") == true)
        #expect(result.client?.error?.contains("timed out waiting for GET") == true, "\(result.client?.error ?? "")")
        // At the real clock the same client would have waited 10 s for the answer.
        #expect(result.seconds < 10)
    }

    @Test func theMocksWaitTheScaledTime() async throws {
        // slow=2 on the SSO endpoint: at the real clock no login can end before 2 s.
        let (outcome, results) = try await Self.runReference("web-sso.slow-idp", scale: 0.1)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let result = try #require(results.first)
        #expect(result.status == .pass, "\(result.reason ?? "")")
        // What the mocks waited, from the traffic, not the wall clock of the whole run (a busy
        // machine or a sanitizer stretches that): the slow answer took its scaled 0.2 s, far
        // from the 2 s of the real clock (a bound 5x over the quiet 0.2 s).
        let scaledWait = try #require(result.trace?.exchanges.map(\.waitMilliseconds).max())
        #expect(scaledWait >= 200 && scaledWait < 1000, "slow=2 at --time-scale 0.1: the mocks waited \(scaledWait) ms")
        // And the same scenario at the real clock does wait its 2 s.
        let (_, real) = try await Self.runReference("web-sso.slow-idp", scale: 1)
        #expect((real.first?.trace?.exchanges.map(\.waitMilliseconds).max() ?? 0) >= 2000)
    }

    @Test func serveScalesTheKnobWaitsAsRunDoes() async throws {
        // `serve --time-scale 0.1` means what `run --time-scale 0.1` means: slow=2 answers
        // after 0.2 s, the client is told a tenth of its request timeout, and a knob set at
        // run time is scaled too.
        let file = SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso/web-sso.slow-idp.yaml").path
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("serve-scaled-\(UUID().uuidString.prefix(8)).har")
        defer { try? FileManager.default.removeItem(at: har) }
        let serve = try await ServeProcess.start(["--scenario", file, "--time-scale", "0.1", "--har-out", har.path, "--no-console",
                                                  "--mockidp-dir", SuiteFixture.mockIdP.path])
        var stopped = false
        defer { if !stopped { serve.terminate() } }
        #expect(serve.ready["time_scale"] as? Double == 0.1)
        #expect(serve.ready["knobs"] as? [String] == ["slow=0.2"])
        let parameters = (serve.ready["scenario"] as? [String: Any])?["parameters"] as? [String: String]
        #expect(parameters?["REQUEST_TIMEOUT"] == "1")
        let browser = TestBrowser()
        let user = TestUser(username: "alice", password: try #require(serve.url("scenario", "password")))
        let acs = try await SuiteFixture.completeLogin(browser, from: try await browser.get(try #require(serve.url("scenario", "start"))),
                                                       user: user)
        #expect(try await browser.follow(acs).status == 200)
        let knobs = try await browser.send("PUT", try #require(serve.url("control", "knobs")), headers: [("Content-Type", "application/json")],
                                           body: Array(#"{"knobs": ["no-answer=40"]}"#.utf8))
        #expect(knobs.status == 200)
        #expect(knobs.body.contains("no-answer=4"), "\(knobs.body)")
        try await browser.shutdown()
        let (status, stderr) = await serve.stop()
        stopped = true
        #expect(status == 0, "\(stderr)")
        // What the IdP waited, from the traffic: its scaled 0.2 s, far from the real 2 s.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let entries = try #require((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let waits = entries.compactMap { ($0["timings"] as? [String: Any])?["wait"] as? Double }
        let longest = try #require(waits.max())
        #expect(longest >= 200 && longest < 1000, "slow=2 at serve --time-scale 0.1: the mocks waited \(longest) ms")
    }

    @Test func serveTakesTheTimeScaleRangeThatMakesSense() async throws {
        // 0 skips a recording's waits; the mocks' lifetimes cannot be zero.
        let zero = try await HarnessBinary.run(["serve", "--time-scale", "0", "--mockidp-dir", SuiteFixture.mockIdP.path])
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("0.05…10"), "\(zero.stderr)")
        for bad in ["11", "-1"] {
            let outcome = try await HarnessBinary.run(["serve", "--time-scale", bad])
            #expect(outcome.status == 64 || outcome.status == 2, "--time-scale \(bad)")
        }
        let recorded = SuiteFixture.repository.appendingPathComponent("Scenarios/recorded/shibboleth-login.yaml").path
        let replay = try await ServeProcess.start(["--scenario", recorded, "--time-scale", "0", "--no-console", "--mockidp-dir", SuiteFixture.mockIdP.path])
        #expect(replay.ready["replay"] != nil)
        #expect(await replay.stop().status == 0)
        // One sentence says what the factor does.
        let help = try await HarnessBinary.run(["serve", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("Multiply every deliberate wait by this factor: the knobs' waits (slow, no-answer), the lifetimes racing them"))
        // … and `run` says the same.
        let runHelp = try await HarnessBinary.run(["run", "--help"])
        let runText = runHelp.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(runText.contains("Multiply every deliberate wait by this factor: the knobs' waits (slow, no-answer), the lifetimes racing them"))
    }

    @Test func aClientThatIgnoresTheScaledTimeoutIsCaught() async throws {
        // curl waits its own 4 s on the dead IdP, four times the 1 s it was told (the check
        // allows 1.5 × 1 s + 0.5 s). Through `samlharness run` in its own process: the mocks'
        // clock of arrival must not lag behind curl's because this process is busy.
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("curl-client-\(UUID().uuidString.prefix(8)).sh")
        defer { try? FileManager.default.removeItem(at: script) }
        try #"""
            curl -s -L -m 4 -o /dev/null "$SAMLH_START_URL"
            printf '{"outcome":"failure","error":"timed out"}' > "$SAMLH_RESULT_FILE"
            """#.write(to: script, atomically: true, encoding: .utf8)
        let (_, results) = try await Self.runReference("web-sso.dead-idp-timeout", scale: 0.1, client: ["--client", "sh '\(script.path)'"])
        let result = try #require(results.first)
        let verdict = result.verdicts.first { $0.check == "flow.timeout-clean" }
        #expect(verdict?.status == .fail)
        #expect(verdict?.reason.contains("within 1.0 s") == true, "\(verdict?.reason ?? "")")
        #expect(result.status == .fail)
    }

    @Test func scenariosThatWaitStartFirst() throws {
        let ids = ["web-sso/web-sso.wrong-audience", "web-sso/web-sso.slow-idp", "web-sso/web-sso.dead-idp-timeout",
                   "cas/cas-rest.ticket-reuse"]
        let scenarios = try ids.map(Self.scenario)
        #expect(RunEngine.deliberateWait(scenarios[1]) == 2)
        // no-answer=60 is held only as long as the client's 10 s request timeout.
        #expect(RunEngine.deliberateWait(scenarios[2]) == 10)
        #expect(RunEngine.longestFirst(scenarios).map(\.id)
            == ["web-sso.dead-idp-timeout", "web-sso.slow-idp", "web-sso.wrong-audience", "cas-rest.ticket-reuse"])
    }

    @Test func theScaleIsRecordedInTheReports() throws {
        var run = ReportFixture.run()
        #expect(run.timeScale == nil)
        run = RunReport(client: "reference", catalog: run.catalog, shards: [], started: run.started, durationSeconds: 8.5,
                        jobs: 2, timeScale: 0.1, evaluatedChecks: run.evaluatedChecks, results: run.results)
        let report = ConformanceReport(runs: [run], secretsMasked: true)
        let json = String(decoding: try ReportFormat.json.render(report), as: UTF8.self)
        #expect(json.contains(#""time_scale":0.1"#) || json.contains(#""time_scale" : 0.1"#))
        #expect(MarkdownWriter.render(report).contains("time scale 0.1"))
        #expect(HTMLReportWriter.render(report).contains("time scale 0.1"))
        #expect(ScenarioTarget.scaledTimeout(30, by: 0.1) == 10)
        #expect(ScenarioTarget.scaledTimeout(120, by: 0.1) == 12)
        #expect(ScenarioTarget.scaledTimeout(5, by: 0.1) == 5)
        #expect(ScenarioTarget.scaledTimeout(30, by: 1) == 30)
    }
}
