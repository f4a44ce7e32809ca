import Foundation

/// Joins the runs of shards (`run --shard I/N` on N CI machines) into one run, refusing runs
/// of different catalogs or clients: a merged report must mean "this client, this catalog".
public enum ReportMerge {
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public let message: String
        public var description: String { message }
    }

    /// - Parameter inputs: each report with the file it came from (for the error messages).
    public static func merge(_ inputs: [(file: String, report: ConformanceReport)]) throws -> ConformanceReport {
        let runs = inputs.flatMap { input in input.report.runs.map { (file: input.file, run: $0) } }
        guard let first = runs.first else { throw Refusal(message: "nothing to merge: the inputs hold no run") }
        for other in runs.dropFirst() {
            if other.run.client != first.run.client {
                throw Refusal(message: "refusing to merge runs of different clients: \(first.file) ran `\(first.run.client)`, "
                              + "\(other.file) ran `\(other.run.client)`")
            }
            if other.run.catalog.digest != first.run.catalog.digest {
                throw Refusal(message: "refusing to merge runs of different catalogs: \(first.file) has \(first.run.catalog.digest) "
                              + "(\(first.run.catalog.scenarios.count) scenarios), \(other.file) has \(other.run.catalog.digest) "
                              + "(\(other.run.catalog.scenarios.count) scenarios)")
            }
        }
        var seen: [String: String] = [:]
        var results: [ScenarioResult] = []
        for (file, run) in runs {
            for result in run.results {
                if let earlier = seen[result.scenario] {
                    throw Refusal(message: "scenario \(result.scenario) is in both \(earlier) and \(file): "
                                  + "shards of one catalog are disjoint (was a shard given twice?)")
                }
                seen[result.scenario] = file
                results.append(result)
            }
        }
        let order = Dictionary(first.run.catalog.scenarios.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        results.sort { (order[$0.scenario] ?? Int.max, $0.scenario) < (order[$1.scenario] ?? Int.max, $1.scenario) }
        let shards = runs.flatMap(\.run.shards)
        let durations = runs.compactMap(\.run.durationSeconds)
        let merged = RunReport(
            client: first.run.client, harnessVersion: first.run.harnessVersion, catalog: first.run.catalog,
            shards: Array(Set(shards)).sorted(), started: runs.map(\.run.started).min() ?? first.run.started,
            durationSeconds: durations.count == runs.count ? durations.max() : nil,
            jobs: runs.compactMap(\.run.jobs).max(),
            // Shards run at different time scales have no one scale to show.
            timeScale: Set(runs.map { $0.run.timeScale ?? 1 }).count == 1 ? first.run.timeScale : nil,
            evaluatedChecks: Array(Set(runs.flatMap(\.run.evaluatedChecks))).sorted(), results: results,
            interrupted: runs.compactMap(\.run.interrupted).first)
        return ConformanceReport(runs: [merged], secretsMasked: inputs.allSatisfy(\.report.secretsMasked))
    }

    /// The scenarios of the catalog no shard ran (a shard missing from the merge).
    public static func missing(_ run: RunReport) -> [String] {
        let ran = Set(run.results.map(\.scenario))
        return run.catalog.scenarios.filter { !ran.contains($0) }
    }
}
