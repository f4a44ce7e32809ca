import ArgumentParser
import Foundation
import Harness
import Logging
import MockServers

/// `samlharness run`: the catalog against a client under test, each scenario with its own
/// mocks; results stream to `REPORT_DIR/results.jsonl` as they finish, and the reports
/// (`--format`, docs/reports.md) are written from them at the end.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenarios against a client under test and judge what it obtained.",
        discussion: """
        The client gets SAMLH_FLOW, SAMLH_START_URL, SAMLH_USERNAME, SAMLH_PASSWORD, \
        SAMLH_RESULT_FILE, SAMLH_TIMEOUT and the flow's SAMLH_* parameters (docs/running-clients.md), \
        and writes {"outcome","error","resource"} to SAMLH_RESULT_FILE. Its claim is never the \
        verdict: success means the secret, ticket, book or token the mocks issued appears in its \
        resource. Every check a scenario names is evaluated over the traffic (docs/checks.md), \
        besides the expectation (flow.resource-obtained or flow.failure-reported, and \
        flow.no-false-success); a check id with no implementation in a build is reported as \
        not-evaluated. Results stream to REPORT_DIR/results.jsonl; at the end the reports are \
        written beside it: junit.xml, report.json, report.sarif, summary.md, report.html \
        (--format; secrets masked unless --show-secrets; docs/reports.md). Exit 0: every \
        required check passed; 1: some failed, a client crashed or a scenario errored; 2: usage, or the \
        client never ran anywhere (a command not found or not executable: said once, nothing judged); \
        130/143: stopped by \
        SIGINT/SIGTERM (no scenario starts after it, running clients are stopped, the finished \
        results and the reports are written).
        """)

    @Option(help: "The client under test: a shell command line.")
    var client: String?

    @Option(name: .customLong("client-file"), help: "A client file (YAML: name, command, directory, environment, flows).")
    var clientFile: String?

    @Option(help: "A built-in client: reference (samlh-reference-client, built beside samlharness).")
    var builtin: String?

    @Argument(help: "Scenario files or folders (default: the Scenarios/ catalog), as `list PATH…`.")
    var positionalPaths: [String] = []

    @Option(name: .customLong("scenarios"), parsing: .upToNextOption, help: "Scenario files or folders (the same as the positional paths).")
    var optionPaths: [String] = []

    var scenarioPaths: [String] { positionalPaths + optionPaths }

    @Option(name: .customLong("filter"), help: "Select scenarios (as `samlharness list --filter`); repeatable.")
    var filters: [String] = []

    @Option(help: "Scenarios run in parallel, each with its own mocks.")
    var jobs = 1

    @Option(help: "Run shard I of N (1-based): every N-th scenario in id order.")
    var shard: String?

    @Option(name: .customLong("report-dir"), help: "Where results.jsonl and the reports are written (default: Reports/ beside Scenarios/).")
    var reportDirectory: String?

    @Option(help: "Report formats written at the end, comma-separated: junit,json,sarif,md,html (default: all).")
    var format = "junit,json,sarif,md,html"

    @Flag(name: .customLong("show-secrets"), help: "Do not mask passwords, tokens, tickets and cookie values in results and reports.")
    var showSecrets = false

    @Option(help: "Seconds per scenario instead of each scenario's own timeout.")
    var timeout: Double?

    @Option(name: .customLong("time-scale"),
            help: ArgumentHelp(TimeScaleHelp.meaning + " run: 0.05…1; each scenario's own timeout is scaled too, never below the smaller of 10 s and its real value (--timeout is not scaled). For clients that honour SAMLH_REQUEST_TIMEOUT, as the reference client does.",
                               valueName: "factor"))
    var timeScale: Double = 1

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory (default: found above the working directory).")
    var mockIdPDirectory: String?

    func validate() throws {
        let given = [client, clientFile, builtin].compactMap { $0 }
        guard given.count == 1 else { throw ValidationError("give exactly one of --client, --client-file, --builtin") }
        if let builtin, builtin != "reference" { throw ValidationError("--builtin: the built-in client is `reference`") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1…64") }
        if let shard { _ = try Self.parseShard(shard) }
        if let timeout, !(timeout > 0 && timeout <= 600) { throw ValidationError("--timeout must be > 0 and ≤ 600") }
        guard (0.05...1).contains(timeScale) else { throw ValidationError("--time-scale must be 0.05…1, got \(timeScale)") }
        do { _ = try ScenarioFilter(filters) } catch { throw ValidationError("\(error)") }
        do { _ = try ReportFormat.parse(format) } catch { throw ValidationError("--format: \(error)") }
    }

    static func parseShard(_ text: String) throws -> (Int, Int) {
        let parts = text.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
            throw ValidationError("--shard I/N with 1 ≤ I ≤ N, e.g. 2/4; got `\(text)`")
        }
        return (parts[0], parts[1])
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            // The mocks stop under clients' open connections every scenario; their shutdown
            // messages are not news. Only critical ones are shown.
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .critical
            return handler
        }
        let mockIdP: URL
        let catalog: ScenarioCatalog
        let adapter: ExternalCommandClient
        let loader: ScenarioLoader
        do {
            mockIdP = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
            loader = ScenarioLoader(mockIdPDirectory: mockIdP)
            let paths = try scenarioPaths.isEmpty ? [ScenariosDirectory.locate(mockIdP: mockIdP)]
                : scenarioPaths.map { URL(fileURLWithPath: $0) }
            catalog = ScenarioCatalog.load(paths: paths, loader: loader)
            adapter = try makeAdapter()
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if !catalog.problems.isEmpty {
            for problem in catalog.problems { FileHandle.standardError.write(Data("error: \(problem)\n".utf8)) }
            throw ExitCode(2)
        }
        var selected = catalog.selecting(try ScenarioFilter(filters))
        // A filter that matches nothing (a typo in a CI job) must not pass as a green run.
        if selected.isEmpty {
            let what = filters.isEmpty ? "the catalog is empty" : "no scenario matches " + filters.map { "--filter '\($0)'" }.joined(separator: " ")
            FileHandle.standardError.write(Data("error: \(what) (\(catalog.scenarios.count) scenarios read; `samlharness list --filter …` shows a selection)\n".utf8))
            throw ExitCode(2)
        }
        // The whole selection's digest, before sharding: shards of one catalog share it.
        let catalogInfo = CatalogInfo.of(selected)
        if let shard {
            let (index, count) = try Self.parseShard(shard)
            selected = RunEngine.shard(selected, index: index, count: count)
        }
        // A checkout writes beside its Scenarios/; an installed copy (share/samlharness) never
        // writes beside its data, but in the working directory.
        let defaultReports = MockIdPDirectory.isInstalled(mockIdP)
            ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Reports")
            : mockIdP.deletingLastPathComponent().appendingPathComponent("Reports")
        let reports = reportDirectory.map { URL(fileURLWithPath: $0) } ?? defaultReports
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("samlharness-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let header = RunHeader(client: adapter.name, scenarios: selected.count, catalog: selected.map(\.id), shard: shard,
                               jobs: jobs, timeScale: timeScale, started: ISO8601DateFormatter().string(from: Date()),
                               evaluatedChecks: ExpectationJudge.evaluated.sorted())
        let recorder = try RunRecorder(directory: reports, header: header, catalog: catalogInfo, showSecrets: showSecrets)
        var runner = ScenarioRunner(loader: loader, mockIdPDirectory: mockIdP, workDirectory: work)
        runner.timeScale = timeScale
        let started = Date()
        let progress = Progress(total: selected.count,
                                live: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil)
        // SIGINT/SIGTERM: no new scenario starts, the running clients are stopped (their
        // process groups), and the finished results and the reports are still written.
        let interruption = RunInterruption()
        let signals = TerminationSignals()
        let watcher = Task {
            let name = await signals.wait()
            guard !Task.isCancelled else { return }
            interruption.interrupt(name)
            FileHandle.standardError.write(Data("samlharness run: \(name): stopping the running clients; writing the finished results\n".utf8))
        }
        let results = await RunEngine(jobs: jobs, timeoutOverride: timeout)
            .run(selected, client: adapter, runner: runner, interruption: interruption) { result in
                recorder.record(result)
                progress.report(result)
            }
        watcher.cancel()
        progress.finish()
        let duration = Date().timeIntervalSince(started)
        try writeReports(results, duration: duration, interrupted: interruption.reason, with: recorder)
        if let signal = interruption.reason {
            print("interrupted by \(signal): \(results.count) of \(selected.count) scenarios ran (those stopped are errors); "
                  + "partial results in \(recorder.resultsFile.path)")
            throw ExitCode(signal == "SIGINT" ? 130 : 143)
        }
        let counts = StatusCounts(results)
        let notEvaluated = results.flatMap(\.verdicts).filter { $0.status == .notEvaluated }.count
        print(String(format: "%d scenarios in %.1f s%@: %@; %d check verdicts not evaluated by this build; results in %@",
                     results.count, duration, timeScale == 1 ? "" : String(format: " (--time-scale %g)", timeScale), counts.summary,
                     notEvaluated, recorder.resultsFile.path))
        // A client that never started anywhere is a setup mistake, not a conformance verdict:
        // said once, with the configuration-error status.
        if let setup = Self.setupFailure(results) {
            FileHandle.standardError.write(Data(("error: the client never ran: \(setup) (in every one of the \(results.filter { $0.client != nil }.count) "
                + "scenarios that started it; nothing was judged). Check --client / --client-file: the command, its directory, that it is executable.\n").utf8))
            throw ExitCode(2)
        }
        if !counts.clean { throw ExitCode(1) }
    }

    /// The one reason the client could not start, when it failed to start for that reason in
    /// every scenario that got as far as starting it (skipped ones, and those whose mocks
    /// could not start, never did).
    static func setupFailure(_ results: [ScenarioResult]) -> String? {
        let started = results.filter { $0.client != nil }
        let reasons = Set(started.map { $0.status == .error ? $0.client?.startFailure ?? "" : "" })
        guard reasons.count == 1, let reason = reasons.first, !reason.isEmpty else { return nil }
        return reason
    }

    /// The end of results.jsonl, and the reports of `--format` written from the results beside it.
    func writeReports(_ results: [ScenarioResult], duration: Double, interrupted: String? = nil,
                      with recorder: RunRecorder) throws {
        let formats = try ReportFormat.parse(format)
        let started = Date()
        do {
            let files = try recorder.finish(results, seconds: duration, interrupted: interrupted, formats: formats)
            guard !files.isEmpty else { return }
            print(String(format: "reports (%.1f s): ", Date().timeIntervalSince(started))
                  + files.map(\.lastPathComponent).joined(separator: ", ") + " in " + recorder.directory.path)
        } catch {
            FileHandle.standardError.write(Data("error: cannot write the reports to \(recorder.directory.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Plain lines, one per scenario (CI, pipes); on a terminal, failures as lines and a
    /// status line kept up to date below them.
    final class Progress: @unchecked Sendable {
        let total: Int
        let live: Bool
        private let lock = NSLock()
        private var counts: [ScenarioResult.Status: Int] = [:]
        private var done = 0

        init(total: Int, live: Bool) {
            self.total = total
            self.live = live
        }

        func report(_ result: ScenarioResult) {
            lock.withLock {
                done += 1
                counts[result.status, default: 0] += 1
                let line = "\(result.status.rawValue.uppercased()) \(result.scenario) (\(String(format: "%.2f", result.seconds)) s)"
                    + (result.reason.map { ": " + $0.replacingOccurrences(of: "\n", with: "\n    ") } ?? "")
                if !live {
                    print(line)
                    return
                }
                var output = "\r\u{1B}[2K"
                if result.status != .pass { output += line + "\n" }
                output += "[\(done)/\(total)] \(counts[.pass] ?? 0) pass, \(counts[.fail] ?? 0) fail, "
                    + ((counts[.crashed] ?? 0) > 0 ? "\(counts[.crashed] ?? 0) crashed, " : "")
                    + "\(counts[.error] ?? 0) error, \(counts[.skipped] ?? 0) skipped"
                    + ((counts[.unsupported] ?? 0) > 0 ? ", \(counts[.unsupported] ?? 0) unsupported" : "")
                FileHandle.standardOutput.write(Data(output.utf8))
            }
        }

        func finish() {
            if live { FileHandle.standardOutput.write(Data("\n".utf8)) }
        }
    }

    func makeAdapter() throws -> ExternalCommandClient {
        if let client { return ExternalCommandClient(command: client) }
        if let clientFile { return try ExternalCommandClient.load(file: URL(fileURLWithPath: clientFile)) }
        // Beside the executable's real path (/proc/self/exe), wherever `samlharness` was called
        // from: by name on PATH, through a symbolic link, from another directory.
        let executable = ExecutableLocation.directory.appendingPathComponent("samlh-reference-client")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ConfigurationError(file: executable.path, line: nil,
                                     message: "the reference client is not built beside samlharness (swift build --product samlh-reference-client)")
        }
        return ExternalCommandClient(command: "'" + executable.path.replacingOccurrences(of: "'", with: "'\\''") + "'",
                                     name: "reference")
    }
}
