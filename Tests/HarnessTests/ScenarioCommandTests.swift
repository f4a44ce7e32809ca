import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// `samlharness list` and `samlharness serve --scenario` as a user runs them.
@Suite struct ScenarioCommandTests {
    static let scenarios = SuiteFixture.repository.appendingPathComponent("Scenarios")
    static let broken = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/broken")

    @Test func listPrintsOneLinePerScenarioAndFilters() async throws {
        let all = try await HarnessBinary.run(["list"])
        #expect(all.status == 0, "\(all.stderr)")
        let lines = all.stdout.split(separator: "\n")
        let files = ScenarioCatalog.scenarioFiles(under: Self.scenarios)
        #expect(lines.count == files.count)
        let line = try #require(lines.first { $0.hasPrefix("web-sso.bad-password-loop ") })
        #expect(line.contains(" web-sso "))
        #expect(line.contains("bad-password"))
        #expect(line.hasSuffix("A wrong password re-shows the Shibboleth login form forever; the client must stop"))

        let negative = try await HarnessBinary.run(["list", "--filter", "tag:negative -flow:cas-rest", "--json"])
        #expect(negative.status == 0)
        let objects = try negative.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(!objects.isEmpty)
        for object in objects {
            #expect((object["tags"] as? [String])?.contains("negative") == true)
            #expect(object["flow"] as? String != "cas-rest")
            #expect(object["outcome"] as? String == "failure")
        }
        let glob = try await HarnessBinary.run(["list", "--filter", "web-sso.bad-*", "--count"])
        #expect(glob.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test func listRefusesBrokenFilesWithFileAndLine() async throws {
        let outcome = try await HarnessBinary.run(["list", Self.broken.path])
        #expect(outcome.status == 2)
        let unknown = Self.broken.appendingPathComponent("unknown-key.yaml").path
        #expect(outcome.stderr.contains("error: \(unknown):6: unknown key `chekcs` (did you mean `checks`?)"))
        #expect(outcome.stdout.isEmpty)
        let usage = try await HarnessBinary.run(["list", "--filter", "flow:nope"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("no flow `nope`"))
    }

    @Test func runRefusesAFilterThatMatchesNothingAndABadTimeScale() async throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("empty-run-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: reports) }
        let empty = try await HarnessBinary.run(["run", "--client", "true", "--filter", "web-sso.no-such-scenario",
                                                 "--report-dir", reports.path])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("no scenario matches --filter 'web-sso.no-such-scenario'"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: reports.appendingPathComponent("results.jsonl").path))
        for bad in ["0", "2", "fast"] {
            let outcome = try await HarnessBinary.run(["run", "--client", "true", "--time-scale", bad, "--report-dir", reports.path])
            #expect(outcome.status == 64 || outcome.status == 2, "--time-scale \(bad): \(outcome.status)")
            #expect(outcome.stderr.contains("time-scale"), "\(outcome.stderr)")
        }
    }

    @Test func listChecksNamesEveryCheck() async throws {
        let outcome = try await HarnessBinary.run(["list", "--checks"])
        #expect(outcome.status == 0)
        for id in CheckCatalog.ids {
            #expect(outcome.stdout.contains(id + " "))
        }
    }

    @Test func serveScenarioStartsItsProfileKnobsAndSeed() async throws {
        let file = Self.scenarios.appendingPathComponent("web-sso/web-sso.response-unsigned.yaml").path
        let serve = try await ServeProcess.start(["--scenario", file, "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        #expect(serve.ready["profile"] as? String == "shibboleth")
        #expect(serve.ready["knobs"] as? [String] == ["response-unsigned", "assertion-unsigned"])
        let scenario = try #require(serve.ready["scenario"] as? [String: Any])
        #expect(scenario["id"] as? String == "web-sso.response-unsigned")
        #expect(scenario["flow"] as? String == "web-sso")
        #expect(scenario["start"] as? String == serve.url("sp", "secure"))
        #expect(scenario["username"] as? String == "alice")
        #expect(scenario["password"] as? String == "correct horse+battery=staple&100% Ünïcødé")
        #expect(scenario["seed"] as? Int == 1003)
        #expect((scenario["expect"] as? [String: Any])?["error"] as? String == "signature")
        let parameters = try #require(scenario["parameters"] as? [String: String])
        #expect(parameters["IDP_ENTITY_ID"] == (serve.ready["idp"] as? [String: Any])?["entity_id"] as? String)
    }

    @Test func serveRefusesABrokenScenario() async throws {
        let file = Self.broken.appendingPathComponent("bad-knob.yaml").path
        let outcome = try await HarnessBinary.run(["serve", "--scenario", file])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("\(file):11: `knobs[1]`: unknown knob `expird`"))
        let both = try await HarnessBinary.run(["serve", "--scenario", file, "--profile", "cas"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("--scenario sets the profile"))
    }

    @Test func serveWithSeedAndFrozenClockRepeatsTheSPsRequest() async throws {
        // The SP's redirect carries an AuthnRequest whose ID and IssueInstant come from the
        // seed and the clock: two runs with the same ones give the same request (ports
        // aside, which differ between runs on port 0); another seed gives another ID.
        func authnRequest(seed: String) async throws -> String {
            let serve = try await ServeProcess.start(["--profile", "shibboleth", "--seed", seed, "--clock", "2026-01-01T00:00:00Z",
                                                      "--freeze-clock", "--mockidp-dir", SuiteFixture.mockIdP.path])
            defer { serve.terminate() }
            let browser = TestBrowser()
            let page = try await browser.get(try #require(serve.url("sp", "secure")))
            try await browser.shutdown()
            let message = try RedirectBinding.decode(try #require(page.location))
            return message.xmlString.replacingOccurrences(of: try #require(serve.url("idp", "base")), with: "IDP")
                .replacingOccurrences(of: try #require(serve.url("sp", "base")), with: "SP")
        }
        let first = try await authnRequest(seed: "77")
        let second = try await authnRequest(seed: "77")
        let other = try await authnRequest(seed: "78")
        #expect(first.contains("IssueInstant=\"2026-01-01T00:00:00Z\""))
        #expect(first == second)
        #expect(first != other)
    }

    @Test func serveReplaysARecordedScenarioAndExportsItsTraffic() async throws {
        let file = Self.scenarios.appendingPathComponent("recorded/shibboleth-login.yaml").path
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: har) }
        let serve = try await ServeProcess.start(["--scenario", file, "--har-out", har.path, "--mockidp-dir", SuiteFixture.mockIdP.path])
        let replay = try #require(serve.ready["replay"] as? [String: Any])
        let origins = try #require(replay["origins"] as? [String: String])
        #expect(Set(origins.keys) == ["https://sp.example.org", "https://idp.example.edu"])
        let start = try #require(serve.url("scenario", "start"))
        #expect(start == replay["start"] as? String)
        #expect(start.hasPrefix("http://127.0.0.1:") && start.hasSuffix("/secure"))
        // A client completes the login against the replay alone (no mocks are running).
        let browser = TestBrowser()
        let (acs, final) = try await RecordedSupport.login(browser, start: start)
        try await browser.shutdown()
        #expect(acs.status == 302)
        #expect(final.status == 200)
        #expect(final.body.contains("Protected resource /secure"))
        let stopped = await serve.stop()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        // The session's traffic, as HAR 1.2 for a bug report, with the replay's verdicts.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let entries = try #require((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count >= 8)
        let annotations = entries.compactMap { $0["_annotations"] as? [String: String] }
        #expect(annotations.contains { $0["replay.acs"] == "valid" })
    }

    @Test func byHandSessionsAreJudgedFromTheTrafficWhenTheyEnd() async throws {
        func session(_ path: String, login: Bool) async throws -> [String: Any] {
            let verdicts = FileManager.default.temporaryDirectory.appendingPathComponent("verdicts-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: verdicts) }
            let serve = try await ServeProcess.start(["--scenario", Self.scenarios.appendingPathComponent(path).path,
                                                      "--verdicts-out", verdicts.path, "--mockidp-dir", SuiteFixture.mockIdP.path])
            if login {
                let browser = TestBrowser()
                let user = TestUser(username: "alice", password: try #require(serve.url("scenario", "password")))
                let start = try #require(serve.url("scenario", "start"))
                let last = try await SuiteFixture.completeLogin(browser, from: try await browser.get(start), user: user)
                if last.isRedirect { _ = try await browser.follow(last) }
                try await browser.shutdown()
            }
            let password = try #require(serve.url("scenario", "password"))
            let stopped = await serve.stop()
            #expect(stopped.status == 0)
            #expect(stopped.stderr.contains("flow."))
            // Masked as the console is (issue 36): the password is in no form in the file.
            let written = try String(contentsOf: verdicts, encoding: .utf8)
            #expect(!written.contains(password) && !written.contains(PercentEncoding.formEncode(password)))
            return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: verdicts)) as? [String: Any])
        }
        func status(_ result: [String: Any], _ check: String) -> String? {
            (result["verdicts"] as? [[String: Any]])?.first { $0["check"] as? String == check }?["status"] as? String
        }
        let good = try await session("web-sso/web-sso.shibboleth-form-login.yaml", login: true)
        #expect(good["status"] as? String == "pass")
        #expect(status(good, "flow.resource-obtained") == "pass")
        let abandoned = try await session("web-sso/web-sso.shibboleth-form-login.yaml", login: false)
        #expect(abandoned["status"] as? String == "fail")
        #expect(status(abandoned, "flow.resource-obtained") == "fail")
        let refused = try await session("web-sso/web-sso.wrong-audience.yaml", login: true)
        #expect(status(refused, "flow.failure-reported") == "pass")
        // The SP's page states its refusal; so does the verdict.
        let reason = (refused["verdicts"] as? [[String: Any]])?.first { $0["check"] as? String == "flow.failure-reported" }?["reason"] as? String
        #expect(reason?.contains("the SP refused the login with audience.mismatch in #") == true, "\(reason ?? "no reason")")
    }

    @Test func serveRefusesKnobsAddedToAScenarioUnlessTheOutcomeIsStated() async throws {
        // The scenario expects a login that succeeds; a knob may make it fail. Never judged
        // silently against the scenario's own expectation: the user says which outcome.
        let file = Self.scenarios.appendingPathComponent("web-sso/web-sso.shibboleth-form-login.yaml").path
        for changes in [["--knob", "clock-skew=300"], ["--sp-setting", "checkCorrelation=true"]] {
            let outcome = try await HarnessBinary.run(["serve", "--scenario", file] + changes + ["--mockidp-dir", SuiteFixture.mockIdP.path])
            #expect(outcome.status == 2, "\(changes): \(outcome.status) \(outcome.stderr)")
            #expect(outcome.stderr.contains("changes the mocks of scenario web-sso.shibboleth-form-login"), "\(outcome.stderr)")
            #expect(outcome.stderr.contains("--expect success or --expect failure"))
        }
        let bad = try await HarnessBinary.run(["serve", "--scenario", file, "--knob", "expired", "--expect", "maybe"])
        #expect(bad.status == 64 || bad.status == 2)
        #expect(bad.stderr.contains("--expect must be success or failure"))
        let noScenario = try await HarnessBinary.run(["serve", "--expect", "failure"])
        #expect(noScenario.status == 64 || noScenario.status == 2)
        #expect(noScenario.stderr.contains("--expect judges a scenario"))
        let recorded = Self.scenarios.appendingPathComponent("recorded/shibboleth-login.yaml").path
        let replay = try await HarnessBinary.run(["serve", "--scenario", recorded, "--knob", "expired", "--expect", "failure",
                                                  "--mockidp-dir", SuiteFixture.mockIdP.path])
        #expect(replay.status == 2)
        #expect(replay.stderr.contains("--knob expired does not apply to a replayed recording (it replays what the real servers answered"), "\(replay.stderr)")
    }

    @Test func aKnobAddedWithAStatedFailureIsJudgedAgainstItAndTheVerdictNamesTheSPsRefusal() async throws {
        // `clock-skew=300` on the everyday login: the SP refuses the Response as not yet
        // valid, and the SP's page says `message.not-yet-valid`. With --expect failure the
        // session is judged against a failure, and the verdict — in the console and in the
        // verdicts file — names the refusal.
        let file = Self.scenarios.appendingPathComponent("web-sso/web-sso.shibboleth-form-login.yaml").path
        let verdicts = FileManager.default.temporaryDirectory.appendingPathComponent("verdicts-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: verdicts) }
        let serve = try await ServeProcess.start(["--scenario", file, "--knob", "clock-skew=300", "--expect", "failure",
                                                  "--verdicts-out", verdicts.path, "--mockidp-dir", SuiteFixture.mockIdP.path])
        var stopped = false
        defer { if !stopped { serve.terminate() } }
        let scenario = try #require(serve.ready["scenario"] as? [String: Any])
        #expect((scenario["expect"] as? [String: Any])?["outcome"] as? String == "failure")
        #expect(!(scenario["checks"] as? [String] ?? []).contains("flow.resource-obtained"))
        #expect((serve.ready["knobs"] as? [String])?.contains("clock-skew=300") == true)
        let browser = TestBrowser()
        let user = TestUser(username: "alice", password: try #require(serve.url("scenario", "password")))
        let refusedPage = try await SuiteFixture.completeLogin(browser, from: try await browser.get(try #require(serve.url("scenario", "start"))),
                                                               user: user)
        #expect(refusedPage.body.contains("message.not-yet-valid"), "the SP's page: \(refusedPage.status) \(refusedPage.body.prefix(300))")
        let console = try #require(serve.ready["console"] as? String)
        let page = try await browser.get(console)
        #expect(page.body.contains("<code>--knob clock-skew=300</code> changed the mocks of this scenario"))
        #expect(page.body.contains("not the scenario&#39;s own expectation") || page.body.contains("not the scenario's own expectation"))
        let live = try await browser.get(ServeConsoleTests.at(console, "verdicts.json"))
        #expect(live.body.contains("the SP refused the login with message.not-yet-valid in #"), "\(live.body.prefix(2000))")
        try await browser.shutdown()
        let (status, stderr) = await serve.stop()
        stopped = true
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("judged against --expect failure (the login fails), not the scenario's own expectation (the login succeeds)"))
        let result = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: verdicts)) as? [String: Any])
        #expect(result["status"] as? String == "pass", "\(result["reason"] ?? "")")
        let rows = result["verdicts"] as? [[String: Any]] ?? []
        let failure = try #require(rows.first { $0["check"] as? String == "flow.failure-reported" })
        #expect(failure["status"] as? String == "pass")
        #expect((failure["reason"] as? String)?.hasPrefix("the SP refused the login with message.not-yet-valid in #") == true,
                "\(failure["reason"] ?? "")")
        #expect(!rows.contains { $0["check"] as? String == "flow.resource-obtained" })
        #expect(stderr.contains("message.not-yet-valid"))
    }

    @Test func aByHandFailureToObtainTheResourceNamesTheSPsRefusal() async throws {
        // The by-hand verdict of a login the SP refused names the refusal, pass or fail.
        let entries = try await Self.refusedLoginTraffic()
        let scenario = try ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
            .load(file: Self.scenarios.appendingPathComponent("web-sso/web-sso.shibboleth-form-login.yaml"))
        let target = ScenarioTarget.resolve(scenario, ready: nil)
        let result = ScenarioRunner.judgeByHand(scenario, target: target, entries: entries, seconds: 1)
        let verdict = try #require(result.verdicts.first { $0.check == "flow.resource-obtained" })
        #expect(verdict.status == .fail)
        #expect(verdict.reason.hasPrefix("the SP refused the login with message.not-yet-valid in #"), "\(verdict.reason)")
        #expect(verdict.evidence.first?.mock == "sp")
    }

    /// A browser login refused by the SP (`clock-skew=300`), on in-process mocks: its traffic.
    static func refusedLoginTraffic() async throws -> [TrafficEntry] {
        var profile = try LoadedProfile.load(named: "shibboleth", from: SuiteFixture.mockIdP)
        profile.knobs = [.clockSkew(300)]
        let suite = try await MockSuite.start(profile: profile)
        let browser = TestBrowser()
        do {
            _ = try await SuiteFixture.completeLogin(browser, from: try await browser.get(suite.readyInfo().sp.secure),
                                                     user: SuiteFixture.user(suite, "alice"))
        } catch {}
        try await browser.shutdown()
        await suite.stop()
        return suite.log.entries
    }

    @Test func aMistypedKnobGetsADidYouMeanNotTheWholeList() async throws {
        let outcome = try await HarnessBinary.run(["serve", "--knob", "clok-skew=300"])
        #expect(outcome.status == 64 || outcome.status == 2)
        #expect(outcome.stderr.contains("unknown knob `clok-skew` (did you mean `clock-skew`?)"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("`samlharness knobs` lists every knob"))
        #expect(!outcome.stderr.contains("cm-token-lifetime"), "no dump of every knob name")
        let tls = try await HarnessBinary.run(["serve", "--knob", "tls-expird=idp"])
        #expect(tls.stderr.contains("(did you mean `tls-expired`?)"), "\(tls.stderr)")
    }

    @Test func serveHelpNamesThePortsServeOpens() async throws {
        // `--port N`: the ports the ready line shows are the ones the help names.
        let help = try await HarnessBinary.run(["serve", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let stated: [(String, Int)] = [("idp", 0), ("sp", 1), ("auth", 2), ("proxy", 3), ("control", 4), ("cas", 5), ("adfs", 6), ("cm", 7)]
        for phrase in ["the IdP listens on N,", "the SP on N+1,", "the HTTP-auth resources on N+2,", "the proxy on N+3,",
                       "the control API on N+4,", "CAS on N+5,", "AD FS on N+6", "the circulation manager on N+7",
                       "N+8 for the SP's plain-http twin"] {
            #expect(text.contains(phrase), "serve --help: \(phrase)")
        }
        // Eight consecutive free ports below the ephemeral range (a parallel test's
        // connection may take any ephemeral one); another base when one is taken.
        var serve: ServeProcess?
        var base = 0
        for _ in 0..<8 where serve == nil {
            base = Int.random(in: 20_000...32_000)
            serve = try? await ServeProcess.start(["--port", String(base), "--no-console", "--mockidp-dir", SuiteFixture.mockIdP.path])
        }
        let running = try #require(serve)
        defer { running.terminate() }
        var ports: [Int] = []
        for (section, offset) in stated {
            let object = try #require(running.ready[section] as? [String: Any])
            let url = try #require((object["base"] ?? object["url"]) as? String)
            let port = try #require(URL(string: url)?.port)
            #expect(port == base + offset, "\(section) listens on \(port), the help says N+\(offset) = \(base + offset)")
            ports.append(port)
        }
        #expect(Set(ports).count == stated.count, "one port per listener")
    }
}

