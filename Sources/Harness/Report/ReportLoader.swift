import Foundation

/// The lines `run` adds to `results.jsonl` besides the header and the results: `catalog`
/// right after the header (the whole selection's digest, before sharding), `end` when the run
/// finished (a killed run has none).
public struct RunMetaLine: Codable, Sendable, Equatable {
    public var event: String
    public var catalog: CatalogInfo?
    public var harnessVersion: String?
    public var durationSeconds: Double?
    /// On the end line of a run stopped from outside: the signal (`SIGINT`, `SIGTERM`).
    public var interrupted: String?

    enum CodingKeys: String, CodingKey {
        case event, catalog, interrupted
        case harnessVersion = "harness_version"
        case durationSeconds = "duration_seconds"
    }

    public static func catalog(_ catalog: CatalogInfo) -> RunMetaLine {
        RunMetaLine(event: "catalog", catalog: catalog, harnessVersion: HarnessVersion.current)
    }

    public static func end(seconds: Double, interrupted: String? = nil) -> RunMetaLine {
        RunMetaLine(event: "end", durationSeconds: (seconds * 1000).rounded() / 1000, interrupted: interrupted)
    }
}

/// A report input that cannot be read, naming the file (and line) and what was wrong.
public struct ReportInputError: Error, CustomStringConvertible, Equatable {
    public let file: String
    public let line: Int?
    public let message: String

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(message)" }
}

/// Reads what `report`, `report merge` and `report diff` take: a run's report directory
/// (its `report.json`, else its `results.jsonl`), a `report.json`, or a `results.jsonl`.
public enum ReportLoader {
    public static func load(_ path: String) throws -> ConformanceReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReportInputError(file: path, message: "no such file or directory")
        }
        if isDirectory.boolValue {
            let directory = URL(fileURLWithPath: path)
            for name in ["report.json", "results.jsonl"] {
                let candidate = directory.appendingPathComponent(name).path
                if FileManager.default.fileExists(atPath: candidate) { return try load(candidate) }
            }
            throw ReportInputError(file: path, message: "the directory holds neither report.json nor results.jsonl")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReportInputError(file: path, message: "cannot be read: \(error.localizedDescription)")
        }
        if path.hasSuffix(".jsonl") || data.first == UInt8(ascii: "{") && isResultsFile(data) {
            return try results(data, file: path)
        }
        return try report(data, file: path)
    }

    /// A results file starts with the run header: `{"event":"run",…}` on its first line.
    static func isResultsFile(_ data: Data) -> Bool {
        let firstLine = data.prefix { $0 != 0x0A }
        guard let object = try? JSONSerialization.jsonObject(with: firstLine) as? [String: Any] else { return false }
        return object["event"] as? String == "run"
    }

    public static func report(_ data: Data, file: String) throws -> ConformanceReport {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ReportInputError(file: file, message: "not a JSON object (expected a samlharness report or results.jsonl)")
        }
        guard object["format"] as? String == ConformanceReport.formatName else {
            throw ReportInputError(file: file, message: "not a samlharness report: `format` is not \"\(ConformanceReport.formatName)\"")
        }
        let version = object["format_version"] as? String ?? "?"
        guard version.split(separator: ".").first == ConformanceReport.formatVersion.split(separator: ".").first else {
            throw ReportInputError(file: file, message: "report format version \(version); this build reads \(ConformanceReport.formatVersion.prefix { $0 != "." }).x")
        }
        do {
            return try JSONDecoder().decode(ConformanceReport.self, from: data)
        } catch {
            throw ReportInputError(file: file, message: "does not match report.schema.json: \(describe(error))")
        }
    }

    /// A `results.jsonl`: the header, the meta lines, one result per line.
    public static func results(_ data: Data, file: String) throws -> ConformanceReport {
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        var header: RunHeader?
        var catalog: CatalogInfo?
        var harnessVersion: String?
        var duration: Double?
        var interrupted: String?
        var results: [ScenarioResult] = []
        let decoder = JSONDecoder()
        for (index, line) in lines.enumerated() where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
            let number = index + 1
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            guard let object else {
                throw ReportInputError(file: file, line: number, message: "not a JSON object"
                    + (index == lines.count - 1 ? " (the last line is cut short: was the run killed?)" : ""))
            }
            do {
                switch object["event"] as? String {
                case "run":
                    header = try decoder.decode(RunHeader.self, from: Data(line))
                case "catalog":
                    let meta = try decoder.decode(RunMetaLine.self, from: Data(line))
                    catalog = meta.catalog
                    harnessVersion = meta.harnessVersion
                case "end":
                    let end = try decoder.decode(RunMetaLine.self, from: Data(line))
                    duration = end.durationSeconds
                    interrupted = end.interrupted
                case let event?:
                    throw ReportInputError(file: file, line: number, message: "unknown event `\(event)`")
                case nil:
                    guard header != nil else {
                        throw ReportInputError(file: file, line: number, message: "a result before the run header (line 1 must be {\"event\":\"run\",…})")
                    }
                    results.append(try decoder.decode(ScenarioResult.self, from: Data(line)))
                }
            } catch let error as ReportInputError {
                throw error
            } catch {
                throw ReportInputError(file: file, line: number, message: describe(error))
            }
        }
        guard let header else {
            throw ReportInputError(file: file, message: "no run header (line 1 must be {\"event\":\"run\",…})")
        }
        let run = RunReport(client: header.client, harnessVersion: harnessVersion ?? "unknown",
                            catalog: catalog ?? .of(ids: header.catalog), shards: header.shard.map { [$0] } ?? [],
                            started: header.started, durationSeconds: duration, jobs: header.jobs, timeScale: header.timeScale,
                            evaluatedChecks: header.evaluatedChecks, results: results, interrupted: interrupted)
        // A trace that says it was not masked was written with --show-secrets; the report
        // keeps it as it is, and says so.
        let masked = results.allSatisfy { $0.trace?.masked ?? true }
        return ConformanceReport(runs: [run], secretsMasked: masked)
    }

    /// A decoding error in words: the field path and what was wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)): missing field `\(key.stringValue)`"
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context): return "\(path(context)): expected \(type), found null"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
