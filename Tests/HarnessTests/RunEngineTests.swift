import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// The run engine with real external clients: what they are told, how they are judged, and
/// how a client that hangs, crashes, forks or floods is stopped while the run goes on.
@Suite(.serialized) struct RunEngineTests {
    static let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)

    static func scenario(_ path: String) throws -> Scenario {
        try loader.load(file: SuiteFixture.repository.appendingPathComponent("Scenarios/\(path).yaml"))
    }

    static func runner() throws -> ScenarioRunner {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("run-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return ScenarioRunner(loader: loader, mockIdPDirectory: SuiteFixture.mockIdP, workDirectory: work)
    }

    static func verdict(_ result: ScenarioResult, _ check: String) -> Verdict? {
        result.verdicts.first { $0.check == check }
    }

    @Test func theClientIsToldItsScenarioThroughTheEnvironment() async throws {
        let scenario = try Self.scenario("cas/cas-rest.ticket-reuse")
        let dump = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: dump) }
        let client = ExternalCommandClient(command: "env > '\(dump.path)'; exit 3", environment: ["EXTRA": "yes"])
        let result = try await Self.runner().run(scenario, client: client)
        let lines = Set(try String(contentsOf: dump, encoding: .utf8).split(separator: "\n").map(String.init))
        #expect(lines.contains("SAMLH_FLOW=cas-rest"))
        #expect(lines.contains("SAMLH_SCENARIO=cas-rest.ticket-reuse"))
        #expect(lines.contains("SAMLH_USERNAME=alice"))
        #expect(lines.contains { $0.hasPrefix("SAMLH_START_URL=http://127.0.0.1:") && $0.hasSuffix("/cas/v1/tickets") })
        #expect(lines.contains { $0.hasPrefix("SAMLH_CAS_SERVICE=http://127.0.0.1:") && $0.hasSuffix("/app/") })
        #expect(lines.contains { $0.hasPrefix("SAMLH_RESULT_FILE=/") })
        #expect(lines.contains("SAMLH_TIMEOUT=30"))
        #expect(lines.contains("EXTRA=yes"))
        #expect(!lines.contains { $0.hasPrefix("SAMLH_PASSWORD=") == false && $0.contains("correct horse") })
        #expect(lines.contains { $0.hasPrefix("SAMLH_PASSWORD=") })
        // It wrote no result file and exited 3: the expectation fails, with the reason.
        #expect(result.status == .fail)
        #expect(result.client?.status == 3)
        #expect(result.client?.reportProblem?.contains("no result file") == true)
    }

    @Test func aClaimOfSuccessWithoutTheResourceFails() async throws {
        let scenario = try Self.scenario("web-sso/web-sso.shibboleth-form-login")
        let client = ExternalCommandClient(command: #"printf '{"outcome":"success","resource":"<html>Welcome</html>"}' > "$SAMLH_RESULT_FILE""#)
        let result = try await Self.runner().run(scenario, client: client)
        #expect(result.status == .fail)
        #expect(Self.verdict(result, "flow.resource-obtained")?.status == .fail)
        #expect(Self.verdict(result, "flow.no-false-success")?.status == .fail)
    }

    @Test func aRealClientObtainsTheResourceAndAFailureIsJudgedByItsWords() async throws {
        guard ClientProcess.interopAvailable else { return }
        let command = "'\(ClientProcess.venvPython)' '\(ClientProcess.script("samlh_mechanize_client.py"))'"
        let client = ExternalCommandClient(command: command, name: "mechanize")
        let good = try await Self.runner().run(try Self.scenario("web-sso/web-sso.shibboleth-form-login"), client: client)
        #expect(good.status == .pass, "\(good.reason ?? "")")
        let token = try #require(Self.verdict(good, "flow.resource-obtained")?.evidence.first?.excerpt)
        #expect(token.hasPrefix("SECRET-"))
        // Once its result is in, the scenario's mocks are gone: no port it used still listens.
        let ports = Set(try #require(good.trace).exchanges.compactMap { URLComponents(string: $0.request.url)?.port })
        #expect(ports.count >= 2)
        for port in ports { #expect(!LoopbackSocket.isListening(port), "port \(port) still accepts connections after the scenario") }
        let refused = try await Self.runner().run(try Self.scenario("web-sso/web-sso.wrong-audience"), client: client)
        #expect(refused.status == .pass, "\(refused.reason ?? "")")
        #expect(Self.verdict(refused, "flow.failure-reported")?.reason.contains("audience") == true)
    }

    @Test func theTenLineExampleClientPassesTheHTTPBasicSlice() async throws {
        // All but the two that redirect after the login: urllib cannot answer a second
        // challenge in ten lines — neither the other host's (it does not leak the first host's
        // credentials there, thanks to add_unredirected_header; add_header would: urllib
        // copies headers on redirects) nor the same space's after `continue-q3.html` leads on
        // to `q3.html` (it does not reuse the space's credentials: a 401 it does not answer).
        let scenarios = CatalogTests.catalog.selecting(try ScenarioFilter([
            "flow:http-basic -http-basic.redirect-to-other-host -http-basic.protection-space-reused",
        ]))
        #expect(scenarios.count >= 4)
        let client = ExternalCommandClient(command: "python3 '\(ClientProcess.script("samlh_basic_client.py"))'")
        let results = await RunEngine(jobs: 2).run(scenarios, client: client, runner: try Self.runner()) { _ in }
        for result in results {
            #expect(result.status == .pass, "\(result.scenario): \(result.reason ?? "")")
        }
    }

    @Test func aHangingClientAndEveryChildItForkedAreStopped() async throws {
        let pids = FileManager.default.temporaryDirectory.appendingPathComponent("pids-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: pids) }
        let client = ExternalCommandClient(command: "sleep 300 & echo $! > '\(pids.path)'; (sleep 300 & echo $! >> '\(pids.path)'; wait) & wait")
        let result = try await Self.runner().run(try Self.scenario("cas/cas-rest.ticket-reuse"), client: client, timeoutOverride: 1.5)
        #expect(result.status == .error)
        #expect(result.reason?.contains("did not finish within 1.5 s") == true)
        let children = try String(contentsOf: pids, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(children.count == 2)
        for pid in children {
            #expect(Self.isGone(pid), "child \(pid) survived")
        }
    }

    /// SIGTERM to `samlharness run` while a client hangs: no further scenario starts, the
    /// client and the child it forked are stopped, the finished result and the end line are in
    /// results.jsonl, the reports are written from what finished, and the exit status says why.
    @Test func anInterruptedRunStopsItsClientsAndKeepsWhatFinished() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interrupt-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pids = dir.appendingPathComponent("pids.txt")
        // Hangs only in the third scenario (in id order), after two have finished.
        let script = dir.appendingPathComponent("client.sh")
        try """
            case "$SAMLH_SCENARIO" in
              cas-rest.reusable-ticket-used-once) sleep 300 & echo $! >> '\(pids.path)'; echo $$ >> '\(pids.path)'; wait ;;
              *) echo '{"outcome":"failure","error":"not implemented"}' > "$SAMLH_RESULT_FILE"; exit 1 ;;
            esac
            """.write(to: script, atomically: true, encoding: .utf8)
        let reports = dir.appendingPathComponent("reports")
        let command = ["exec", HarnessBinary.url.path, "run", "--client", "sh \(script.path)",
                       "--filter", "cas-rest.no-attributes", "--filter", "cas-rest.form-encoded-password",
                       "--filter", "cas-rest.reusable-ticket-used-once", "--filter", "cas-rest.ticket-reuse",
                       "--jobs", "1", "--timeout", "120", "--report-dir", reports.path,
                       "--mockidp-dir", SuiteFixture.mockIdP.path].map(ClientProcessRunner.shellQuoted).joined(separator: " ")
        var runner = ClientProcessRunner()
        runner.grace = 60
        let outcome = await runner.run(command: command, directory: nil, environment: ProcessInfo.processInfo.environment,
                                       timeout: 120) {
            // SIGTERM (to `run` alone: its clients have process groups of their own) once the
            // hanging client and its child are up.
            let lines = (try? String(contentsOf: pids, encoding: .utf8))?.split(separator: "\n") ?? []
            return lines.count >= 2 ? "interrupt" : nil
        }
        #expect(outcome.status == 143, "\(outcome.stdout)\n\(outcome.stderr)")
        #expect(outcome.stderr.contains("SIGTERM: stopping the running clients"))
        #expect(outcome.stdout.contains("interrupted by SIGTERM: 3 of 4 scenarios ran"), "\(outcome.stdout)")
        for pid in try String(contentsOf: pids, encoding: .utf8).split(separator: "\n").compactMap({ Int32($0) }) {
            #expect(Self.isGone(pid), "client process \(pid) survived the interrupted run")
        }
        let lines = try String(contentsOf: reports.appendingPathComponent("results.jsonl"), encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let results = lines.filter { $0["scenario"] != nil }
        #expect(results.map { $0["scenario"] as? String } == ["cas-rest.form-encoded-password", "cas-rest.no-attributes",
                                                               "cas-rest.reusable-ticket-used-once"])
        let stopped = try #require(results.last)
        #expect(stopped["status"] as? String == "error")
        #expect((stopped["reason"] as? String)?.contains("the run was interrupted (SIGTERM)") == true)
        #expect(lines.last?["event"] as? String == "end")
        #expect(lines.last?["interrupted"] as? String == "SIGTERM")
        let report = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: reports.appendingPathComponent("report.json"))) as? [String: Any])
        let runs = try #require(report["runs"] as? [[String: Any]])
        #expect((runs.first?["results"] as? [Any])?.count == 3)
        #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("report.html").path))
    }

    /// Gone, or a zombie waiting for a reaper (PID 1 in a container may never reap it).
    static func isGone(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
    }

    @Test func aCrashingClientIsCrashedAndTheRunGoesOn() async throws {
        let scenarios = [try Self.scenario("web-sso/web-sso.shibboleth-form-login"), try Self.scenario("cas/cas-rest.ticket-reuse")]
        let client = ExternalCommandClient(command: "kill -SEGV $$")
        let results = await RunEngine(jobs: 1).run(scenarios, client: client, runner: try Self.runner()) { _ in }
        #expect(results.map(\.scenario) == scenarios.map(\.id))
        #expect(results.allSatisfy { $0.status == .crashed })
        #expect(results.allSatisfy { $0.client?.status == 128 + SIGSEGV && $0.client?.signal == SIGSEGV })
        #expect(results.allSatisfy { $0.reason?.contains("signal 11 (SIGSEGV)") == true })
    }

    @Test func aClientThatFloodsTheMocksIsStopped() async throws {
        var runner = try Self.runner()
        runner.maxExchanges = 200
        let client = ExternalCommandClient(command: #"while true; do curl -s -o /dev/null "$SAMLH_START_URL"; done"#)
        let result = await runner.run(try Self.scenario("web-sso/web-sso.shibboleth-form-login"), client: client,
                                      timeoutOverride: 60)
        #expect(result.status == .error)
        #expect(result.reason?.contains("more than 200 requests") == true)
        #expect(result.exchanges < 400)
        #expect(result.seconds < 30)
    }

    @Test func anUnsupportedFlowIsSkippedAndAMissingCommandIsAnError() async throws {
        let scenario = try Self.scenario("cas/cas-rest.ticket-reuse")
        let ecpOnly = ExternalCommandClient(command: "true", flows: [.ecp])
        #expect(try await Self.runner().run(scenario, client: ecpOnly).status == .skipped)
        let missing = ExternalCommandClient(command: "/nonexistent/client", directory: "/nonexistent-dir")
        let result = try await Self.runner().run(scenario, client: missing)
        // A setup mistake, not a verdict: an error in its own words, nothing judged.
        #expect(result.status == .error)
        #expect(result.client?.status == 127)
        #expect(result.reason == "the client's directory does not exist: /nonexistent-dir")
        #expect(result.verdicts.isEmpty)
    }

    @Test func jobsRunInParallelAndShardsPartitionTheCatalog() async throws {
        let catalog = CatalogTests.catalog.scenarios
        var seen: [String] = []
        for index in 1...3 {
            seen += RunEngine.shard(catalog, index: index, count: 3).map(\.id)
        }
        #expect(seen.sorted() == catalog.map(\.id).sorted())
        #expect(Set(seen).count == seen.count)
        let scenarios = try ["web-sso/web-sso.shibboleth-form-login", "cas/cas-rest.ticket-reuse",
                             "web-sso/web-sso.wrong-audience"].map(Self.scenario)
        // Each client notes when it starts and ends: with three jobs all three start before
        // any ends.
        let times = FileManager.default.temporaryDirectory.appendingPathComponent("times-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: times) }
        let client = ExternalCommandClient(command: "echo \"start $(date +%s%N)\" >> '\(times.path)'; sleep 1; echo \"end $(date +%s%N)\" >> '\(times.path)'; exit 1")
        let streamed = Streamed()
        let results = await RunEngine(jobs: 3).run(scenarios, client: client, runner: try Self.runner()) { streamed.add($0.scenario) }
        let marks = try String(contentsOf: times, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        let starts = marks.filter { $0.first == "start" }.compactMap { Int($0[1]) }
        let ends = marks.filter { $0.first == "end" }.compactMap { Int($0[1]) }
        #expect(starts.count == 3 && ends.count == 3)
        #expect(starts.max()! < ends.min()!, "the three clients did not run at the same time")
        #expect(results.map(\.scenario) == scenarios.map(\.id))
        #expect(streamed.all.sorted() == scenarios.map(\.id).sorted())
    }

    @Test func aClientFileIsReadAndItsMistakesNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("client.yaml")
        try "name: py\ncommand: python3 c.py\ndirectory: sub\nenvironment: {A: b}\nflows: [ecp, cas-rest]\n"
            .write(to: good, atomically: true, encoding: .utf8)
        let client = try ExternalCommandClient.load(file: good)
        #expect(client.name == "py")
        #expect(client.directory == folder.appendingPathComponent("sub").path)
        #expect(client.supports(.ecp) && !client.supports(.webSSO))
        let bad = folder.appendingPathComponent("bad.yaml")
        try "command: x\nflows: [ecp, web_sso]\n".write(to: bad, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ExternalCommandClient.load(file: bad) }
        try "comand: x\n".write(to: bad, atomically: true, encoding: .utf8)
        let error = try #require(throws: ConfigurationError.self) { try ExternalCommandClient.load(file: bad) }
        #expect(error.description.contains("command"))
    }
}

final class Streamed: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [String] = []
    func add(_ id: String) { lock.withLock { ids.append(id) } }
    var all: [String] { lock.withLock { ids } }
}
