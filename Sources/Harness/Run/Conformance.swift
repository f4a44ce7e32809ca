import Foundation
import MockServers

/// The catalog from a Swift package's own tests, with SAMLHarness as a package dependency.
///
/// Two entry points, for Swift Testing and XCTest alike:
///
/// - ``run(_:filter:jobs:timeScale:reportDirectory:)`` runs the scenarios a filter selects
///   against an ``AuthClient``, each with mocks of its own on loopback, and returns the
///   results; given a directory, it writes every report format there, as `samlharness run`
///   does.
/// - ``session(scenario:timeScale:)`` starts one scenario's mocks and hands your test a
///   ``ConformanceSession``: the start URL, the user and password, the `SAMLH_*` values. Your
///   test logs in however it likes; ``ConformanceSession/judge(report:)`` stops the mocks and
///   judges what it did with the same checks.
///
/// ```swift
/// let results = try await Conformance.run(MyAuthClient(), filter: ["flow:web-sso"], timeScale: 0.25,
///                                         reportDirectory: URL(fileURLWithPath: "Reports"))
/// #expect(StatusCounts(results).clean)
/// ```
public enum Conformance {
    /// The SAMLHarness checkout this library was built from (it holds `MockIdP/` and
    /// `Scenarios/`), or `$SAMLH_HOME` when set.
    public static var harnessDirectory: URL {
        if let home = ProcessInfo.processInfo.environment["SAMLH_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The time scales a run or a session takes (`run --time-scale`, docs/running-clients.md).
    public static let timeScales: ClosedRange<Double> = 0.05...1

    /// A run or a session that cannot start as asked: a bad argument, a filter that selects
    /// nothing, an unknown scenario, a broken catalog.
    public struct UsageError: Error, CustomStringConvertible, Sendable, Equatable {
        public let description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    /// Runs the scenarios `filter` selects (as `samlharness list --filter`; empty: the whole
    /// catalog) against `client`, `jobs` at a time, on a clock `timeScale` times as fast
    /// (0.05…1, as `run --time-scale`). With `reportDirectory`, writes `results.jsonl` there
    /// as the results come, then `junit.xml`, `report.json`, `report.sarif`, `summary.md` and
    /// `report.html` (secrets masked; docs/reports.md).
    ///
    /// Returns the results in catalog order; ``StatusCounts/clean`` says whether the run
    /// conforms. Throws ``UsageError`` when the catalog is broken, the filter selects nothing
    /// (a typo must not pass as a green run) or an argument is out of range, and the error
    /// of a report that cannot be written.
    @discardableResult
    public static func run(_ client: some AuthClient, filter: [String] = [], jobs: Int = 1, timeScale: Double = 1,
                           reportDirectory: URL? = nil) async throws -> [ScenarioResult] {
        try check(timeScale: timeScale)
        guard (1...64).contains(jobs) else { throw UsageError("jobs must be 1…64, got \(jobs)") }
        let catalog = try load()
        let selected = catalog.selecting(try filterOf(filter))
        guard !selected.isEmpty else {
            throw UsageError("no scenario matches the filter \(filter) (\(catalog.scenarios.count) scenarios in \(scenariosDirectory.path))")
        }
        let work = try workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        var runner = ScenarioRunner(loader: loader, mockIdPDirectory: mockIdPDirectory, workDirectory: work)
        runner.timeScale = timeScale
        // The traces are for the reports: a run without them does not build them.
        runner.recordsTrace = reportDirectory != nil
        let adapter = InProcessClient(client)
        let recorder = try reportDirectory.map { directory in
            try RunRecorder(directory: directory,
                            header: RunHeader(client: adapter.name, scenarios: selected.count, catalog: selected.map(\.id),
                                              shard: nil, jobs: jobs, timeScale: timeScale,
                                              started: ISO8601DateFormatter().string(from: Date()),
                                              evaluatedChecks: ExpectationJudge.evaluated.sorted()),
                            catalog: CatalogInfo.of(selected))
        }
        let started = Date()
        let results = await RunEngine(jobs: jobs).run(selected, client: adapter, runner: runner) { result in
            recorder?.record(result)
        }
        try recorder?.finish(results, seconds: Date().timeIntervalSince(started))
        return results
    }

    /// Starts the mocks of the catalog scenario `id` (its profile, knobs, SP, seed and clock,
    /// as `samlharness run` would) on loopback ports of their own, for a test to drive.
    /// Throws ``UsageError`` for an unknown id (naming the nearest one) or a time scale out
    /// of range, and the mocks' error when they cannot start.
    public static func session(scenario id: String, timeScale: Double = 1) async throws -> ConformanceSession {
        try await session(try scenario(id), timeScale: timeScale)
    }

    /// Starts the mocks of `scenario` — one of ``scenarios(filter:)``, or one you changed
    /// (its `knobs`, its `expect`) — for a test to drive.
    public static func session(_ scenario: Scenario, timeScale: Double = 1) async throws -> ConformanceSession {
        try check(timeScale: timeScale)
        let work = try workDirectory()
        do {
            return try await ConformanceSession.start(scenario, loader: loader, mockIdPDirectory: mockIdPDirectory,
                                                      workDirectory: work, timeScale: timeScale)
        } catch {
            try? FileManager.default.removeItem(at: work)
            throw error
        }
    }

    /// The catalog scenarios `filter` selects, in id order.
    public static func scenarios(filter: [String] = []) throws -> [Scenario] {
        try load().selecting(try filterOf(filter)).sorted { $0.id < $1.id }
    }

    /// The catalog scenario `id`; throws ``UsageError`` naming the nearest id when there is none.
    public static func scenario(_ id: String) throws -> Scenario {
        // The file is named after the scenario: read that one file when it is there.
        let files = ScenarioCatalog.scenarioFiles(under: scenariosDirectory)
        if let file = files.first(where: { $0.deletingPathExtension().lastPathComponent == id }),
           let scenario = try? loader.load(file: file), scenario.id == id {
            return scenario
        }
        let all = try load().scenarios
        if let scenario = all.first(where: { $0.id == id }) { return scenario }
        throw UsageError("no scenario `\(id)` in \(scenariosDirectory.path)\(NameSuggestion.didYouMean(id, in: all.map(\.id)))")
    }

    static var mockIdPDirectory: URL { harnessDirectory.appendingPathComponent("MockIdP") }
    static var scenariosDirectory: URL { harnessDirectory.appendingPathComponent("Scenarios") }
    static var loader: ScenarioLoader { ScenarioLoader(mockIdPDirectory: mockIdPDirectory) }

    static func load() throws -> ScenarioCatalog {
        let catalog = ScenarioCatalog.load(paths: [scenariosDirectory], loader: loader)
        if let problem = catalog.problems.first { throw problem }
        return catalog
    }

    static func filterOf(_ expressions: [String]) throws -> ScenarioFilter {
        do { return try ScenarioFilter(expressions) } catch { throw UsageError("filter: \(error)") }
    }

    static func check(timeScale: Double) throws {
        guard timeScales.contains(timeScale) else {
            throw UsageError("timeScale must be \(timeScales.lowerBound)…\(timeScales.upperBound), got \(timeScale)")
        }
    }

    /// A fresh temporary directory for result files and ticket caches.
    static func workDirectory() throws -> URL {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("samlharness-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return work
    }
}
