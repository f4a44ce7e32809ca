import Foundation

/// A Markdown summary fit for a CI job summary (`$GITHUB_STEP_SUMMARY`): per run the
/// pass/fail counts per flow, then each failed, crashed or errored scenario — its title, what
/// it expected and why, its root-cause check first — linked into the HTML report by anchor.
public enum MarkdownWriter {
    public static func render(_ report: ConformanceReport, htmlFile: String = ReportFormat.html.fileName) -> String {
        var lines: [String] = []
        for run in report.runs {
            let counts = run.counts
            let verdict = counts.clean ? "✅ conformant" : "❌ not conformant"
            lines.append("# SAMLHarness conformance: \(cell(run.label)) — \(verdict)")
            lines.append("")
            var about = "\(counts.total) scenarios: **\(counts.pass) pass**, **\(counts.fail) fail**, "
                + (counts.crashed > 0 ? "**\(counts.crashed) crashed**, " : "") + "\(counts.error) error, \(counts.skipped) skipped"
                + (counts.unsupported > 0 ? ", \(counts.unsupported) unsupported (an optional feature the client lacks)" : "")
            if let seconds = run.durationSeconds { about += String(format: " in %.1f s", seconds) }
            if let scale = run.timeScale { about += String(format: " (time scale %g: deliberate waits ×%g)", scale, scale) }
            lines.append(about + ".  ")
            if let interrupted = run.interrupted {
                lines.append("⚠️ **Interrupted by \(cell(interrupted))**: only the scenarios that finished are counted; "
                             + "those stopped are errors and the rest did not run.  ")
            }
            lines.append("Catalog `\(run.catalog.digest.prefix(19))…` (\(run.catalog.scenarios.count) scenarios)"
                         + (run.shards.isEmpty ? "" : ", shards \(run.shards.joined(separator: ", "))")
                         + ", samlharness \(cell(run.harnessVersion)), started \(cell(run.started)).")
            let missing = ReportMerge.missing(run)
            if !run.shards.isEmpty, !missing.isEmpty {
                lines.append("")
                lines.append("⚠️ \(missing.count) scenarios of the catalog are in no shard of this report.")
            }
            lines.append("")
            lines.append("| flow | scenarios | pass | fail | crashed | error | skipped |")
            lines.append("|---|---:|---:|---:|---:|---:|---:|")
            let flows = Dictionary(grouping: run.results, by: \.flow)
            for flow in flows.keys.sorted() {
                let c = StatusCounts(flows[flow] ?? [])
                lines.append("| \(cell(flow)) | \(c.total) | \(c.pass) | \(c.fail) | \(c.crashed) | \(c.error) | \(c.skipped) |")
            }
            lines.append("| **all** | \(counts.total) | \(counts.pass) | \(counts.fail) | \(counts.crashed) | \(counts.error) | \(counts.skipped) |")
            lines.append("")
            let failing = run.results.filter { $0.status == .fail || $0.status == .crashed || $0.status == .error }
            guard !failing.isEmpty else { continue }
            lines.append("## Failures")
            lines.append("")
            for result in failing {
                let link = "\(htmlFile)#\(ReportText.anchor(result.scenario))"
                let icon = result.status == .error ? "⚠️ error" : result.status == .crashed ? "💥 crashed" : "❌ fail"
                lines.append("- \(icon) [`\(code(result.scenario))`](\(link)): \(cell(ReportText.oneLine(result.reason ?? "", limit: 200)))")
                if let about = result.about {
                    lines.append("  - *\(cell(about.title))* — expected \(cell(ReportText.oneLine(about.expectation, limit: 300)))")
                }
                let failed = result.failedRequired + result.verdicts.filter { $0.status == .fail && $0.level == .recommended }
                for verdict in failed {
                    let exchange = verdict.evidence.first?.exchange
                    let target = exchange.map { "\(htmlFile)#\(ReportText.anchor(result.scenario, exchange: $0))" } ?? link
                    lines.append("  - [`\(code(verdict.check))`](\(target))\(verdict.level == .recommended ? " (recommended)" : ""): "
                                 + cell(ReportText.oneLine(verdict.reason, limit: 200)))
                }
            }
            lines.append("")
        }
        if report.runs.count > 1 { lines += matrix(report) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Scenarios × clients, when the report holds several runs.
    static func matrix(_ report: ConformanceReport) -> [String] {
        var lines = ["# Conformance matrix", ""]
        lines.append("| scenario | " + report.runs.map { cell($0.label) }.joined(separator: " | ") + " |")
        lines.append("|---|" + report.runs.map { _ in ":---:" }.joined(separator: "|") + "|")
        let byRun = report.runs.map { run in Dictionary(run.results.map { ($0.scenario, $0.status) }, uniquingKeysWith: { a, _ in a }) }
        var scenarios: [String] = []
        var seen: Set<String> = []
        for run in report.runs { for result in run.results where seen.insert(result.scenario).inserted { scenarios.append(result.scenario) } }
        for scenario in scenarios {
            let cells = byRun.map { statuses in statuses[scenario].map(symbol) ?? "—" }
            lines.append("| `\(code(scenario))` | " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        return lines
    }

    static func symbol(_ status: ScenarioResult.Status) -> String {
        switch status {
        case .pass: "✅"
        case .fail: "❌"
        case .crashed: "💥"
        case .error: "⚠️"
        case .skipped: "⏭"
        case .unsupported: "➖"
        }
    }

    /// Text for a Markdown table cell or line: pipes, backticks and HTML-significant
    /// characters neutralised (a job summary renders HTML).
    static func cell(_ text: String) -> String {
        ReportText.html(text).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
            .replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
    }

    static func code(_ text: String) -> String { text.replacingOccurrences(of: "`", with: "'") }
}
