import Foundation
import enum SAMLCore.PrivateFile

/// What a run leaves in its report directory, written as it goes: `results.jsonl` (the
/// header, the catalog line, each result the moment it is known, the end line), then every
/// report format written from the results (docs/reports.md). `samlharness run` and
/// ``Conformance/run(_:filter:jobs:timeScale:reportDirectory:)`` both write through it, so
/// a report from `swift test` reads like one from the command line.
public struct RunRecorder: Sendable {
    /// The report directory.
    public let directory: URL
    public let header: RunHeader
    /// The whole selection (before sharding): its digest and scenario ids.
    public let catalog: CatalogInfo
    /// Whether passwords, tokens, tickets and cookie values are written as they were
    /// (otherwise masked, ``SecretMasker``).
    public let showSecrets: Bool
    private let lines: JSONLinesWriter

    /// The file the results stream to.
    public static let resultsFileName = "results.jsonl"

    /// Creates `directory` when needed, and starts `results.jsonl` there with `header` and
    /// the catalog line. With `showSecrets` the directory is mode 0700 and `results.jsonl` is
    /// created 0600 (``PrivateFile``), as the report files beside it.
    public init(directory: URL, header: RunHeader, catalog: CatalogInfo, showSecrets: Bool = false) throws {
        let results = directory.appendingPathComponent(Self.resultsFileName)
        if showSecrets {
            try PrivateFile.makeDirectory(directory.path)
            try PrivateFile.createEmpty(results.path)
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        self.directory = directory
        self.header = header
        self.catalog = catalog
        self.showSecrets = showSecrets
        lines = try JSONLinesWriter(url: results, existing: showSecrets)
        lines.write(header)
        lines.write(RunMetaLine.catalog(catalog))
    }

    /// `results.jsonl` in ``directory``.
    public var resultsFile: URL { directory.appendingPathComponent(Self.resultsFileName) }

    /// Appends one result (masked unless ``showSecrets``); safe from concurrent jobs.
    public func record(_ result: ScenarioResult) {
        lines.write(showSecrets ? result : SecretMasker.mask(result))
    }

    /// Ends `results.jsonl` (its end line: the run's wall-clock `seconds`, the signal that
    /// interrupted it) and writes `formats` of the report from `results` beside it. Returns
    /// the report files written; throws when one cannot be written.
    @discardableResult
    public func finish(_ results: [ScenarioResult], seconds: Double, interrupted: String? = nil,
                       formats: [ReportFormat] = ReportFormat.allCases) throws -> [URL] {
        lines.write(RunMetaLine.end(seconds: seconds, interrupted: interrupted))
        guard !formats.isEmpty else { return [] }
        let run = RunReport(client: header.client, catalog: catalog, shards: header.shard.map { [$0] } ?? [],
                            started: header.started, durationSeconds: (seconds * 1000).rounded() / 1000, jobs: header.jobs,
                            timeScale: header.timeScale, evaluatedChecks: header.evaluatedChecks, results: results,
                            interrupted: interrupted)
        return try ReportWriter.write(ConformanceReport(runs: [run], secretsMasked: !showSecrets), formats: formats,
                                      to: directory, showSecrets: showSecrets)
    }
}
