import Foundation
import SAMLCore

/// The JSON conformance report: the source of truth every other format is written from
/// (JUnit, SARIF, Markdown, HTML). Its schema is `Sources/Harness/Resources/report.schema.json`;
/// docs/reports.md describes it.
///
/// A report holds one or more runs: one per client (a conformance matrix when there are
/// several), each the results of one catalog run — or of its shards, merged.
///
/// Versioning: ``formatVersion`` is `MAJOR.MINOR`. A reader accepts every minor version of
/// the major it knows (new optional fields only); a major change (a field removed, renamed
/// or retyped) is refused with a clear error.
public struct ConformanceReport: Codable, Sendable, Equatable {
    public static let formatName = "samlharness-report"
    /// 1.1 added each result's `about` (title, description, expected outcome), the client's
    /// `signal` and `start_failure`, and the status `crashed`; 1.2 the client's `details`
    /// and the status `unsupported`.
    public static let formatVersion = "1.2"

    public var format: String
    public var formatVersion: String
    /// When the report was written (ISO 8601, UTC).
    public var generated: String
    /// `samlharness VERSION`.
    public var generator: String
    /// Whether secrets were masked (``SecretMasker``).
    public var secretsMasked: Bool
    public var runs: [RunReport]

    enum CodingKeys: String, CodingKey {
        case format
        case formatVersion = "format_version"
        case generated, generator
        case secretsMasked = "secrets_masked"
        case runs
    }

    public init(runs: [RunReport], secretsMasked: Bool, generated: Date = Date()) {
        format = Self.formatName
        formatVersion = Self.formatVersion
        self.generated = ISO8601DateFormatter().string(from: generated)
        generator = "samlharness \(HarnessVersion.current)"
        self.secretsMasked = secretsMasked
        self.runs = runs
    }

    /// Every check a run's verdicts name, with its descriptor, across runs.
    public var checks: [CheckInfo] {
        var seen: [String: CheckInfo] = [:]
        for run in runs { for check in run.checks where seen[check.id] == nil { seen[check.id] = check } }
        return seen.values.sorted { $0.id < $1.id }
    }

    /// The report as JSON (sorted keys, pretty-printed: stable for diffs and tests).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// One client's run of a catalog (or of shards of it, merged).
public struct RunReport: Codable, Sendable, Equatable {
    /// The client under test, as the runner names it (`reference`, a command line, a client
    /// file's name).
    public var client: String
    public var harnessVersion: String
    public var catalog: CatalogInfo
    /// The shards this run holds (`2/4`); empty for an unsharded run.
    public var shards: [String]
    /// When the run (its earliest shard) started, ISO 8601.
    public var started: String
    /// Wall-clock seconds (the longest shard's, for merged shards); nil when unknown (a
    /// results file of a run that was killed).
    public var durationSeconds: Double?
    public var jobs: Int?
    /// `run --time-scale` when it was not 1: the deliberate waits ran this many times as long.
    public var timeScale: Double?
    /// The checks this build evaluates; the others a scenario names are `not-evaluated`.
    public var evaluatedChecks: [String]
    /// The descriptors of the checks the verdicts name (SARIF rules, HTML explanations).
    public var checks: [CheckInfo]
    public var results: [ScenarioResult]
    /// The signal that interrupted the run (`SIGINT`, `SIGTERM`), when one did: the results
    /// are those that finished (report format 1.1).
    public var interrupted: String?

    enum CodingKeys: String, CodingKey {
        case client
        case harnessVersion = "harness_version"
        case catalog, shards, started
        case durationSeconds = "duration_seconds"
        case jobs
        case timeScale = "time_scale"
        case evaluatedChecks = "evaluated_checks"
        case checks, results, interrupted
    }

    public init(client: String, harnessVersion: String = HarnessVersion.current, catalog: CatalogInfo, shards: [String],
                started: String, durationSeconds: Double?, jobs: Int?, timeScale: Double? = nil, evaluatedChecks: [String],
                results: [ScenarioResult], interrupted: String? = nil) {
        self.interrupted = interrupted
        self.client = client
        self.harnessVersion = harnessVersion
        self.catalog = catalog
        self.shards = shards
        self.started = started
        self.durationSeconds = durationSeconds
        self.jobs = jobs
        self.timeScale = timeScale == 1 ? nil : timeScale
        self.evaluatedChecks = evaluatedChecks
        self.results = results
        checks = CheckInfo.describing(results)
    }

    /// `reference` or `reference (shard 2/4)`.
    public var label: String {
        shards.isEmpty || shards.count > 1 ? client : "\(client) (shard \(shards[0]))"
    }

    public var counts: StatusCounts { StatusCounts(results) }
}

/// Which catalog a run ran: the digest identifies it (shards of one catalog share it), the
/// ids are the whole selection before sharding.
public struct CatalogInfo: Codable, Sendable, Equatable {
    /// `sha256:` of the selected scenarios (sorted by id, as JSON) and the check catalog ids.
    public var digest: String
    public var scenarios: [String]
    /// Where each scenario was read from (relative to the working directory when under it),
    /// for SARIF locations and the HTML.
    public var sources: [String: ScenarioSource]?

    public init(digest: String, scenarios: [String], sources: [String: ScenarioSource]? = nil) {
        self.digest = digest
        self.scenarios = scenarios
        self.sources = sources
    }

    /// A scenario's file and the line of its `checks:` (or `id:`).
    public struct ScenarioSource: Codable, Sendable, Equatable {
        public var file: String
        public var line: Int?

        public init(file: String, line: Int?) {
            self.file = file
            self.line = line
        }
    }

    /// The catalog info of `scenarios` (the selection, before sharding).
    public static func of(_ scenarios: [Scenario]) -> CatalogInfo {
        let sorted = scenarios.sorted { $0.id < $1.id }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes: [UInt8] = []
        for scenario in sorted {
            bytes += Array((try? encoder.encode(scenario)) ?? Data(scenario.id.utf8))
            bytes.append(0x0A)
        }
        bytes += Array(CheckCatalog.ids.joined(separator: "\n").utf8)
        let cwd = FileManager.default.currentDirectoryPath + "/"
        var sources: [String: ScenarioSource] = [:]
        for scenario in sorted {
            guard let source = scenario.source else { continue }
            let file = source.file.hasPrefix(cwd) ? String(source.file.dropFirst(cwd.count)) : source.file
            sources[scenario.id] = ScenarioSource(file: file, line: source.line(of: "checks") ?? source.line(of: "id"))
        }
        return CatalogInfo(digest: "sha256:" + MessageDigest.sha256.hex(bytes), scenarios: sorted.map(\.id),
                           sources: sources.isEmpty ? nil : sources)
    }

    /// For a results file without the catalog line (written before issue 7): the ids only.
    public static func of(ids: [String]) -> CatalogInfo {
        let sorted = ids.sorted()
        return CatalogInfo(digest: "ids-sha256:" + MessageDigest.sha256.hex(sorted.joined(separator: "\n")), scenarios: sorted)
    }
}

/// What a check is, as the report needs it.
public struct CheckInfo: Codable, Sendable, Equatable {
    public var id: String
    public var category: String
    public var purpose: String
    public var reference: String

    public init(id: String, category: String, purpose: String, reference: String) {
        self.id = id
        self.category = category
        self.purpose = purpose
        self.reference = reference
    }

    public init(_ descriptor: CheckDescriptor) {
        self.init(id: descriptor.id, category: descriptor.category.rawValue, purpose: descriptor.purpose,
                  reference: descriptor.reference)
    }

    /// The descriptors of every check `results` name (unknown ids get a placeholder).
    public static func describing(_ results: [ScenarioResult]) -> [CheckInfo] {
        let ids = Set(results.flatMap { $0.verdicts.map(\.check) })
        return ids.sorted().map { id in
            CheckCatalog.descriptor(id).map(CheckInfo.init)
                ?? CheckInfo(id: id, category: String(id.prefix { $0 != "." }), purpose: id, reference: "")
        }
    }
}

/// Scenario counts by status.
public struct StatusCounts: Sendable, Equatable {
    public var pass = 0, fail = 0, crashed = 0, error = 0, skipped = 0, unsupported = 0

    public init(_ results: [ScenarioResult]) {
        for result in results {
            switch result.status {
            case .pass: pass += 1
            case .fail: fail += 1
            case .crashed: crashed += 1
            case .error: error += 1
            case .skipped: skipped += 1
            case .unsupported: unsupported += 1
            }
        }
    }

    public var total: Int { pass + fail + crashed + error + skipped + unsupported }

    /// Whether the run is conformant: no scenario failed, crashed or errored.
    public var clean: Bool { fail + crashed + error == 0 }

    /// `N pass, N fail, N crashed, N error, N skipped, N unsupported` (crashed and
    /// unsupported only when some were).
    public var summary: String {
        "\(pass) pass, \(fail) fail, " + (crashed > 0 ? "\(crashed) crashed, " : "") + "\(error) error, \(skipped) skipped"
            + (unsupported > 0 ? ", \(unsupported) unsupported" : "")
    }
}

/// This build's version, in reports.
public enum HarnessVersion {
    public static let current = "0.8.0"
}
