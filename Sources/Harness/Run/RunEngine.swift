import Foundation

/// Runs scenarios against one client, `jobs` at a time (each scenario with its own mocks and
/// ports), streaming each result as a JSON line the moment it is known, so a killed run still
/// leaves every finished result.
public struct RunEngine: Sendable {
    public var jobs: Int
    public var timeoutOverride: Double?

    public init(jobs: Int = 1, timeoutOverride: Double? = nil) {
        self.jobs = max(1, jobs)
        self.timeoutOverride = timeoutOverride
    }

    /// The scenarios of shard `index` (1-based) of `count`: every count-th scenario in id order,
    /// so shards of one catalog are disjoint and together cover it.
    public static func shard(_ scenarios: [Scenario], index: Int, count: Int) -> [Scenario] {
        let sorted = scenarios.sorted { $0.id < $1.id }
        return sorted.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }

    /// Runs `scenarios`, `jobs` at a time; `onResult` gets each result as it is known. Once
    /// `interruption` fires no scenario starts, the running clients are stopped, and only
    /// the scenarios that started are returned.
    public func run(_ scenarios: [Scenario], client: some ClientAdapter, runner: ScenarioRunner,
                    interruption: RunInterruption? = nil,
                    onResult: @escaping @Sendable (ScenarioResult) -> Void) async -> [ScenarioResult] {
        var results: [ScenarioResult] = []
        await withTaskGroup(of: ScenarioResult.self) { group in
            var next = 0
            func startNext() {
                guard next < scenarios.count, interruption?.reason == nil else { return }
                let scenario = scenarios[next]
                next += 1
                group.addTask {
                    await runner.run(scenario, client: client, timeoutOverride: timeoutOverride, interruption: interruption)
                }
            }
            for _ in 0..<min(jobs, scenarios.count) { startNext() }
            while let result = await group.next() {
                onResult(result)
                results.append(result)
                startNext()
            }
        }
        let order = Dictionary(uniqueKeysWithValues: scenarios.enumerated().map { ($1.id, $0) })
        return results.sorted { (order[$0.scenario] ?? 0) < (order[$1.scenario] ?? 0) }
    }
}

/// Appends JSON lines to a file, one per result, flushed as written.
public final class JSONLinesWriter: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private let encoder: JSONEncoder

    public init(url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    public func write(_ value: some Encodable) {
        guard let data = try? encoder.encode(value) else { return }
        lock.withLock {
            handle.write(data + Data("\n".utf8))
            try? handle.synchronize()
        }
    }

    deinit { try? handle.close() }
}

/// The first line of a results file: what ran, against what.
public struct RunHeader: Codable, Sendable {
    public var event = "run"
    public var client: String
    public var scenarios: Int
    public var catalog: [String]
    public var shard: String?
    public var jobs: Int
    public var started: String
    public var evaluatedChecks: [String]

    enum CodingKeys: String, CodingKey {
        case event, client, scenarios, catalog, shard, jobs, started
        case evaluatedChecks = "evaluated_checks"
    }

    public init(client: String, scenarios: Int, catalog: [String], shard: String?, jobs: Int, started: String,
                evaluatedChecks: [String]) {
        self.client = client
        self.scenarios = scenarios
        self.catalog = catalog
        self.shard = shard
        self.jobs = jobs
        self.started = started
        self.evaluatedChecks = evaluatedChecks
    }
}
