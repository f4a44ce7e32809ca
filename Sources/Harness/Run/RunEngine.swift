import Foundation
import MockServers

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
        let queue = Self.longestFirst(scenarios)
        await withTaskGroup(of: ScenarioResult.self) { group in
            var next = 0
            func startNext() {
                guard next < queue.count, interruption?.reason == nil else { return }
                let scenario = queue[next]
                next += 1
                group.addTask {
                    await runner.run(scenario, client: client, timeoutOverride: timeoutOverride, interruption: interruption)
                }
            }
            for _ in 0..<min(jobs, scenarios.count) { startNext() }
            while let result = await group.next() {
                // The next scenario starts before this result is written (masked, encoded):
                // the jobs stay busy meanwhile.
                startNext()
                onResult(result)
                results.append(result)
            }
        }
        let order = Dictionary(uniqueKeysWithValues: scenarios.enumerated().map { ($1.id, $0) })
        return results.sorted { (order[$0.scenario] ?? 0) < (order[$1.scenario] ?? 0) }
    }

    /// The order scenarios start in: those that wait on purpose (a `slow` or `no-answer`
    /// knob), longest wait first, then the rest as given. With several jobs the long waits
    /// overlap the many short scenarios instead of trailing after them.
    static func longestFirst(_ scenarios: [Scenario]) -> [Scenario] {
        let waits = scenarios.map(deliberateWait)
        return scenarios.indices.sorted { (-waits[$0], $0) < (-waits[$1], $1) }.map { scenarios[$0] }
    }

    /// Seconds `scenario` waits on purpose at least: its longest `slow` wait, or a
    /// `no-answer` held up to the client's request timeout.
    static func deliberateWait(_ scenario: Scenario) -> Double {
        (scenario.knobs ?? []).compactMap { try? Knob(parsing: $0) }.map { knob in
            switch knob {
            case .slow(let seconds): min(seconds, scenario.requestTimeout)
            case .noAnswer(let seconds): min(seconds, scenario.requestTimeout)
            default: 0
            }
        }.max() ?? 0
    }
}

/// Appends JSON lines to a file, one per result, flushed as written.
public final class JSONLinesWriter: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private let encoder: JSONEncoder

    /// `existing`: append to the (empty) file already at `url` (made private by the caller)
    /// rather than create one.
    public init(url: URL, existing: Bool = false) throws {
        if !existing { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
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
    /// `--time-scale` when it is not 1.
    public var timeScale: Double?
    public var started: String
    public var evaluatedChecks: [String]

    enum CodingKeys: String, CodingKey {
        case event, client, scenarios, catalog, shard, jobs
        case timeScale = "time_scale"
        case started
        case evaluatedChecks = "evaluated_checks"
    }

    public init(client: String, scenarios: Int, catalog: [String], shard: String?, jobs: Int, timeScale: Double? = nil,
                started: String, evaluatedChecks: [String]) {
        self.client = client
        self.scenarios = scenarios
        self.catalog = catalog
        self.shard = shard
        self.jobs = jobs
        self.timeScale = timeScale == 1 ? nil : timeScale
        self.started = started
        self.evaluatedChecks = evaluatedChecks
    }
}
