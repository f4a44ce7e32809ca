import Foundation
@testable import MockServers
import Testing
import TestSupport
@testable import Harness

/// What a newcomer meets first (issue 33): the binary found from PATH, a setup mistake told
/// apart from a verdict, a crash never taken for a reported failure, reports that say what a
/// scenario is, and one convention across the CLI.
@Suite struct FirstContactTests {
    static let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)

    static func scenario(_ path: String) throws -> Scenario {
        try loader.load(file: SuiteFixture.repository.appendingPathComponent("Scenarios/\(path).yaml"))
    }

    static func runner() throws -> ScenarioRunner {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("first-contact-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return ScenarioRunner(loader: loader, mockIdPDirectory: SuiteFixture.mockIdP, workDirectory: work)
    }

    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `samlharness ARGUMENTS` the way a user's shell would: by `command` (a name found
    /// in `path`, or a path), from `directory`, off the cooperative pool.
    static func shell(_ command: String, in directory: URL, path: String, timeout: TimeInterval = 120) async -> ClientProcessRunner.Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = path
        environment.removeValue(forKey: "SAMLH_MOCKIDP_DIR")
        environment.removeValue(forKey: "SAMLH_SCENARIOS_DIR")
        var runner = ClientProcessRunner()
        runner.outputLimit = 4 << 20
        return await runner.run(command: command, directory: directory.path, environment: environment, timeout: timeout)
    }

    // MARK: The binary from PATH (item 2)

    @Test func theReferenceClientIsFoundWhenSamlharnessIsCalledByNameFromPATH() async throws {
        let bin = try Self.temporaryDirectory("path-bin")
        let elsewhere = try Self.temporaryDirectory("elsewhere")
        defer {
            try? FileManager.default.removeItem(at: bin)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        // A symbolic link on PATH to the built binary, called by name from a directory that is
        // not the checkout: argv[0] is then a bare name resolved against neither.
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("samlharness"), withDestinationURL: HarnessBinary.url)
        let reports = elsewhere.appendingPathComponent("out")
        let outcome = await Self.shell("samlharness run --builtin reference --filter web-sso.shibboleth-form-login --report-dir out",
                                       in: elsewhere, path: bin.path + ":/usr/bin:/bin")
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
        #expect(outcome.stdout.contains("PASS web-sso.shibboleth-form-login"))
        #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("report.json").path))
        let version = await Self.shell("samlharness --version", in: elsewhere, path: bin.path + ":/usr/bin:/bin")
        #expect(version.status == 0)
        // `samlharness VERSION (COMMIT)`: this checkout's commit (InstalledLayoutTests has the rest).
        #expect(version.stdout.hasPrefix("samlharness \(HarnessVersion.current) ("))
        #expect(version.stdout == BuildInfo.versionLine(executableDirectory: HarnessBinary.url.deletingLastPathComponent()) + "\n")
    }

    @Test func argumentZeroIsResolvedThroughPATHAndTheWorkingDirectory() throws {
        let bin = try Self.temporaryDirectory("argv0")
        defer { try? FileManager.default.removeItem(at: bin) }
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("tool"), withDestinationURL: HarnessBinary.url)
        let real = HarnessBinary.url.resolvingSymlinksInPath().path
        #expect(ExecutableLocation.fromArgumentZero("tool", path: "/nonexistent:" + bin.path, workingDirectory: "/") == real)
        #expect(ExecutableLocation.fromArgumentZero("./tool", path: "", workingDirectory: bin.path) == real)
        #expect(ExecutableLocation.fromArgumentZero(bin.path + "/tool", path: "", workingDirectory: "/") == real)
        // This process's own executable, by /proc/self/exe: never relative.
        #expect(ExecutableLocation.path.hasPrefix("/"))
    }

    // MARK: A setup mistake is not a verdict (item 3)

    @Test func aMissingClientCommandIsAnErrorInItsOwnWordsNotAFail() async throws {
        let scenario = try Self.scenario("web-sso/web-sso.shibboleth-form-login")
        let result = try await Self.runner().run(scenario, client: ExternalCommandClient(command: "no-such-client --verbose"))
        #expect(result.status == .error)
        #expect(result.reason == "the client command was not found: no-such-client")
        #expect(result.client?.startFailure == "the client command was not found: no-such-client")
        #expect(result.verdicts.isEmpty)
    }

    @Test func aClientThatIsNotExecutableIsAnErrorThatSaysHowToRunIt() async throws {
        let directory = try Self.temporaryDirectory("noexec")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("client.py")
        try Data("print('hi')\n".utf8).write(to: script)
        let result = try await Self.runner().run(try Self.scenario("web-sso/web-sso.shibboleth-form-login"),
                                                 client: ExternalCommandClient(command: script.path))
        #expect(result.status == .error)
        #expect(result.client?.status == 126)
        #expect(result.reason?.hasPrefix("the client command could not be executed: \(script.path): permission denied") == true)
        #expect(result.reason?.contains("python3 ") == true)
    }

    @Test func aMissingToolInsideTheClientIsNamed() async throws {
        let result = try await Self.runner().run(try Self.scenario("web-sso/web-sso.shibboleth-form-login"),
                                                 client: ExternalCommandClient(command: "true && no-such-tool-inside"))
        #expect(result.status == .error)
        #expect(result.reason == "a command the client runs was not found: no-such-tool-inside")
    }

    @Test func aRunWhoseClientNeverStartsSaysSoOnceAndExitsTwo() async throws {
        let reports = try Self.temporaryDirectory("never-ran")
        defer { try? FileManager.default.removeItem(at: reports) }
        let outcome = try await HarnessBinary.run(["run", "--client", "no-such-client", "--filter", "flow:http-basic",
                                                   "--report-dir", reports.path], timeout: 120)
        #expect(outcome.status == 2, "\(outcome.stdout)\n\(outcome.stderr)")
        #expect(outcome.stderr.components(separatedBy: "error: the client never ran: the client command was not found: no-such-client").count == 2)
        #expect(!outcome.stdout.contains("FAIL "))
        #expect(!outcome.stdout.contains("flow.resource-obtained"))
        // The reports are still written, every result an error naming the mistake.
        let report = try ReportLoader.load(reports.path)
        #expect(!report.runs[0].results.isEmpty)
        #expect(report.runs[0].results.allSatisfy { $0.status == .error && $0.client?.startFailure != nil })
    }

    @Test func theShellsComplaintsAreRead() {
        #expect(ClientEnding.startFailure(status: 127, stderr: "/bin/sh: 1: foo: not found\n", reportWritten: false, command: "foo -x")
                == "the client command was not found: foo")
        #expect(ClientEnding.startFailure(status: 127, stderr: "/bin/sh: line 1: foo: command not found\n", reportWritten: false,
                                          command: "A=1 'foo' -x") == "the client command was not found: foo")
        #expect(ClientEnding.startFailure(status: 127, stderr: "./client.sh: 3: jq: not found\n", reportWritten: false,
                                          command: "./client.sh") == "a command the client runs was not found: jq (./client.sh: 3: jq: not found)")
        // A client that ran and wrote its result is judged, whatever its status.
        #expect(ClientEnding.startFailure(status: 127, stderr: "/bin/sh: 1: foo: not found\n", reportWritten: true, command: "foo") == nil)
        #expect(ClientEnding.startFailure(status: 1, stderr: "/bin/sh: 1: foo: not found\n", reportWritten: false, command: "foo") == nil)
    }

    // MARK: Crashing is not reporting (item 4)

    @Test func aPythonClientThatDiesOfATracebackCrashesAndNeverPassesAFailureScenario() async throws {
        let scenario = try Self.scenario("web-sso/web-sso.status-responder")
        #expect(scenario.expect.outcome == .failure)
        // Its traceback even names an error word; a crash still is not a report.
        let client = ExternalCommandClient(command: #"python3 -c 'raise RuntimeError("responder error: the login failed")'"#)
        let result = try await Self.runner().run(scenario, client: client)
        #expect(result.status == .crashed)
        #expect(result.reason?.contains("unhandled exception (a Python traceback)") == true)
        #expect(result.reason?.contains("RuntimeError: responder error") == true)
        let reported = try #require(result.verdicts.first { $0.check == "flow.failure-reported" })
        #expect(reported.status == .fail)
        #expect(reported.reason.contains("a crash is not a reported failure"))
    }

    @Test func aClientEndedBySignalCrashesOnAFailureScenarioToo() async throws {
        let scenario = try Self.scenario("web-sso/web-sso.status-responder")
        let result = try await Self.runner().run(scenario, client: ExternalCommandClient(command: "echo 'Responder' >&2; kill -ABRT $$"))
        #expect(result.status == .crashed)
        #expect(result.client?.signal == SIGABRT)
        #expect(result.verdicts.first { $0.check == "flow.failure-reported" }?.status == .fail)
    }

    @Test func aClientThatExitsNonZeroWithItsErrorReportsTheFailure() async throws {
        // The same words, said as an error message and an exit status: that is reporting.
        let scenario = try Self.scenario("web-sso/web-sso.status-responder")
        let words = scenario.expect.errorWords.first ?? "error"
        let client = ExternalCommandClient(command: "echo 'login failed: \(words)' >&2; exit 1")
        let result = try await Self.runner().run(scenario, client: client)
        #expect(result.status != .crashed)
        #expect(result.verdicts.first { $0.check == "flow.failure-reported" }?.status == .pass)
    }

    @Test func unhandledExceptionsOfSeveralLanguagesAreRecognised() {
        #expect(ClientEnding.unhandledException(in: "Traceback (most recent call last):\n  File \"x\"\nValueError: x") == "a Python traceback")
        #expect(ClientEnding.unhandledException(in: "Exception in thread \"main\" java.io.IOException: x\n\tat A.main(A.java:3)") == "a Java exception")
        #expect(ClientEnding.unhandledException(in: "panic: boom\n\ngoroutine 1 [running]:\nmain.main()") == "a Go panic")
        #expect(ClientEnding.unhandledException(in: "thread 'main' panicked at src/main.rs:2:5:\nboom") == "a Rust panic")
        #expect(ClientEnding.unhandledException(in: "client.rb:3:in `<main>': boom (RuntimeError)") == "a Ruby exception")
        #expect(ClientEnding.unhandledException(in: "/c/x.js:2\nthrow new Error('boom');\n\nError: boom\n    at Object.<anonymous> (/c/x.js:2:7)\n    at node:internal/main:1:1\n")
                == "a JavaScript exception")
        // An ordinary error message is not a crash.
        #expect(ClientEnding.unhandledException(in: "error: login failed: Responder (exception in the IdP)") == nil)
        #expect(ClientEnding.unhandledException(in: "HTTP 403 from the SP: audience.mismatch") == nil)
    }

    // MARK: Reports say what a scenario is, root cause first (item 7)

    @Test func everyReportCarriesTheScenarioAndLeadsWithTheRootCause() throws {
        let about = ScenarioResult.About(title: "Form login with a + in the password", description: "The password holds + and =.",
                                         expected: "success", reason: "a healthy IdP")
        let result = ScenarioResult(
            scenario: "web-sso.plus", flow: "web-sso", status: .fail, reason: nil,
            verdicts: [
                Verdict(check: "flow.resource-obtained", level: .required, status: .fail, reason: "the mocks never issued the resource"),
                Verdict(check: "encoding.form-percent-encoded", level: .required, status: .fail, reason: "a raw `+` in j_password"),
                Verdict(check: "flow.no-false-success", level: .required, status: .pass, reason: "ok"),
            ], seconds: 0.1, exchanges: 3, client: nil, about: about)
        #expect(ScenarioResult.headline(result.verdicts) == "encoding.form-percent-encoded: a raw `+` in j_password")
        #expect(result.failedRequired.map(\.check) == ["encoding.form-percent-encoded", "flow.resource-obtained"])
        let run = RunReport(client: "c", catalog: .of(ids: ["web-sso.plus"]), shards: [], started: "2026-01-01T00:00:00Z",
                            durationSeconds: 1, jobs: 1, evaluatedChecks: [], results: [result])
        let report = ConformanceReport(runs: [run], secretsMasked: true)
        let markdown = MarkdownWriter.render(report)
        #expect(markdown.contains("*Form login with a + in the password* — expected success: a healthy IdP"))
        let encoding = try #require(markdown.range(of: "`encoding.form-percent-encoded`"))
        let outcome = try #require(markdown.range(of: "`flow.resource-obtained`"))
        #expect(encoding.lowerBound < outcome.lowerBound)
        let junit = JUnitWriter.render(report)
        #expect(junit.contains("scenario: Form login with a + in the password\nThe password holds + and =.\nexpected: success: a healthy IdP"))
        let html = HTMLReportWriter.render(report)
        #expect(html.contains("<strong>Expected:</strong> success: a healthy IdP"))
        let htmlEncoding = try #require(html.range(of: ">encoding.form-percent-encoded</code>"))
        let htmlOutcome = try #require(html.range(of: ">flow.resource-obtained</code>"))
        #expect(htmlEncoding.lowerBound < htmlOutcome.lowerBound)
        let sarif = try #require(String(data: try SARIFWriter.render(report), encoding: .utf8))
        #expect(sarif.contains("\"scenarioTitle\" : \"Form login with a + in the password\""))
        #expect(sarif.contains("Expected: success: a healthy IdP"))
        let json = try #require(String(data: try report.jsonData(), encoding: .utf8))
        #expect(json.contains("\"expected\" : \"success\""))
        #expect(json.contains("\"title\" : \"Form login with a + in the password\""))
    }

    @Test func theRunnerFillsInWhatTheScenarioIs() async throws {
        let scenario = try Self.scenario("web-sso/web-sso.status-responder")
        let result = try await Self.runner().run(scenario, client: ExternalCommandClient(command: "exit 1"))
        let about = try #require(result.about)
        #expect(about.title == scenario.title)
        #expect(about.expected == "failure")
        #expect(about.expectedError == scenario.expect.error)
        #expect(about.reason == scenario.expect.reason?.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func anInterruptedRunSaysSoInItsSummary() throws {
        let directory = try Self.temporaryDirectory("interrupted")
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = directory.appendingPathComponent("results.jsonl")
        let writer = try JSONLinesWriter(url: results)
        writer.write(RunHeader(client: "c", scenarios: 2, catalog: ["a", "b"], shard: nil, jobs: 1, timeScale: 1,
                               started: "2026-01-01T00:00:00Z", evaluatedChecks: []))
        writer.write(ScenarioResult(scenario: "a", flow: "web-sso", status: .pass, reason: nil, verdicts: [], seconds: 0.1, exchanges: 1))
        writer.write(RunMetaLine.end(seconds: 1, interrupted: "SIGINT"))
        let report = try ReportLoader.load(results.path)
        #expect(report.runs[0].interrupted == "SIGINT")
        #expect(MarkdownWriter.render(report).contains("⚠️ **Interrupted by SIGINT**"))
        #expect(HTMLReportWriter.render(report).contains("Interrupted by SIGINT"))
    }

    // MARK: One convention across the CLI (item 9)

    @Test func theCLIFollowsOneConvention() async throws {
        let version = try await HarnessBinary.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("samlharness "))
        // `list` and `run` both take scenario paths positionally, and a filter that matches
        // nothing is a usage error for both.
        let scenario = SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso/web-sso.shibboleth-form-login.yaml").path
        let list = try await HarnessBinary.run(["list", scenario, "--count"])
        #expect(list.status == 0 && list.stdout == "1\n")
        let nothing = try await HarnessBinary.run(["list", "--filter", "tag:no-such-tag"])
        #expect(nothing.status == 2)
        #expect(nothing.stderr.contains("no scenario matches --filter 'tag:no-such-tag'"))
        let reports = try Self.temporaryDirectory("positional")
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try await HarnessBinary.run(["run", scenario, "--builtin", "reference", "--report-dir", reports.path], timeout: 120)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("1 scenarios in"))
        // The verbs a newcomer needs come first in the help.
        let help = try await HarnessBinary.run(["--help"])
        let runAt = try #require(help.stdout.range(of: "  run "))
        let benchAt = try #require(help.stdout.range(of: "  bench "))
        #expect(runAt.lowerBound < benchAt.lowerBound)
        // `knobs` has a header line; `--json-out FILE` writes a file (the old `--json FILE` still works).
        let knobs = try await HarnessBinary.run(["knobs"])
        #expect(knobs.stdout.hasPrefix("# knob\tstock Shibboleth SP\tstrict SP\twhat the mock does"))
    }
}
