import ArgumentParser
import Foundation
import Harness

/// `samlharness report`: rebuilds the report formats from a run's JSON; `report merge` joins
/// shards; `report diff` compares two runs (docs/reports.md).
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Build, merge and compare conformance reports (JUnit, JSON, SARIF, Markdown, HTML).",
        discussion: """
        INPUT is a run's report directory (its report.json, else its results.jsonl), a \
        report.json, or a results.jsonl. Formats: junit (junit.xml), json (report.json), sarif \
        (report.sarif), md (summary.md), html (report.html). Secrets are masked unless \
        --show-secrets (and a masked input stays masked). Exit 0: written; 2: usage or \
        unreadable input.
        """,
        subcommands: [Build.self, Merge.self, Diff.self],
        defaultSubcommand: Build.self)

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Rebuild report formats from one or more runs (several clients: a conformance matrix).")

        @Argument(help: "Run directories, report.json or results.jsonl files.")
        var inputs: [String]

        @Option(help: "Formats, comma-separated: junit,json,sarif,md,html (default: all).")
        var format = "junit,json,sarif,md,html"

        @Option(help: "Where to write (default: the input's directory).")
        var out: String?

        @Flag(name: .customLong("show-secrets"), help: "Do not mask passwords, tokens, tickets and cookie values.")
        var showSecrets = false

        func validate() throws {
            guard !inputs.isEmpty else { throw ValidationError("give a run directory, report.json or results.jsonl") }
            do { _ = try ReportFormat.parse(format) } catch { throw ValidationError("--format: \(error)") }
        }

        func run() throws {
            let reports = try ReportCommand.load(inputs)
            let runs = reports.flatMap(\.report.runs)
            let report = ConformanceReport(runs: runs, secretsMasked: reports.allSatisfy(\.report.secretsMasked))
            let directory = URL(fileURLWithPath: out ?? ReportCommand.defaultDirectory(inputs[0]))
            try ReportCommand.write(report, formats: try ReportFormat.parse(format), to: directory, showSecrets: showSecrets)
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Join the reports of shards (run --shard I/N) into one; refuses different catalogs or clients (exit 2).")

        @Argument(help: "The shards' run directories, report.json or results.jsonl files.")
        var inputs: [String]

        @Option(help: "Where to write the merged report.")
        var out: String

        @Option(help: "Formats, comma-separated: junit,json,sarif,md,html (default: all).")
        var format = "junit,json,sarif,md,html"

        @Flag(name: .customLong("show-secrets"), help: "Do not mask passwords, tokens, tickets and cookie values.")
        var showSecrets = false

        func validate() throws {
            guard inputs.count >= 2 else { throw ValidationError("report merge: give at least two shards") }
            do { _ = try ReportFormat.parse(format) } catch { throw ValidationError("--format: \(error)") }
        }

        func run() throws {
            let reports = try ReportCommand.load(inputs)
            let merged: ConformanceReport
            do {
                merged = try ReportMerge.merge(reports.map { (file: $0.file, report: $0.report) })
            } catch let refusal as ReportMerge.Refusal {
                FileHandle.standardError.write(Data("error: \(refusal)\n".utf8))
                throw ExitCode(2)
            }
            if let run = merged.runs.first {
                let missing = ReportMerge.missing(run)
                if !missing.isEmpty {
                    FileHandle.standardError.write(Data("warning: \(missing.count) scenarios of the catalog are in no shard given: \(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? ", …" : "")\n".utf8))
                }
            }
            try ReportCommand.write(merged, formats: try ReportFormat.parse(format), to: URL(fileURLWithPath: out),
                                    showSecrets: showSecrets)
        }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Compare two runs: regressions (pass → fail/error), fixes, new and removed scenarios, per-check changes.",
            discussion: "Exit 1 when a scenario regressed or a required check went from pass to fail; 0 otherwise; 2 on unreadable input.")

        @Argument(help: "The earlier run (directory, report.json or results.jsonl).")
        var old: String

        @Argument(help: "The later run.")
        var new: String

        func run() throws {
            let reports = try ReportCommand.load([old, new])
            let runs = try reports.map { input -> RunReport in
                guard input.report.runs.count > 1 else {
                    guard let run = input.report.runs.first else {
                        FileHandle.standardError.write(Data("error: \(input.file): the report holds no run\n".utf8))
                        throw ExitCode(2)
                    }
                    return run
                }
                // Several runs of one client (shards kept apart) compare as one.
                do {
                    return try ReportMerge.merge([(file: input.file, report: input.report)]).runs[0]
                } catch {
                    FileHandle.standardError.write(Data("error: \(input.file) holds \(input.report.runs.count) runs of different clients or catalogs; diff compares one run with one run\n".utf8))
                    throw ExitCode(2)
                }
            }
            let diff = ReportDiff(old: runs[0], new: runs[1])
            print(diff.text)
            if diff.hasRegression { throw ExitCode(1) }
        }
    }

    static func load(_ inputs: [String]) throws -> [(file: String, report: ConformanceReport)] {
        do {
            return try inputs.map { (file: $0, report: try ReportLoader.load($0)) }
        } catch let error as ReportInputError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    static func defaultDirectory(_ input: String) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue { return input }
        return URL(fileURLWithPath: input).deletingLastPathComponent().path
    }

    static func write(_ report: ConformanceReport, formats: [ReportFormat], to directory: URL, showSecrets: Bool) throws {
        let started = Date()
        let files: [URL]
        do {
            files = try ReportWriter.write(report, formats: formats, to: directory, showSecrets: showSecrets)
        } catch {
            FileHandle.standardError.write(Data("error: cannot write the reports to \(directory.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
        print(String(format: "reports (%.1f s): ", Date().timeIntervalSince(started)) + files.map(\.path).joined(separator: " "))
    }
}
