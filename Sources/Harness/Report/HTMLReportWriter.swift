import Foundation

/// One self-contained HTML file (inline CSS and SVG, one small inline script that only opens
/// the `<details>` an anchor points at; no external asset, works offline): an overview
/// (pass/fail per flow and per check, a conformance matrix when the report holds several
/// clients), then per scenario its verdicts, a sequence diagram of its exchanges, and each
/// exchange's request and answer with headers, bodies and the SAML messages decoded. Steps
/// named by a failed check's evidence carry the class `failing` and the check's explanation.
///
/// Everything that comes from a run — traffic, reasons, ids — is HTML-escaped
/// (``ReportText/html(_:)``); nothing from a run is ever placed in a script, a style or an
/// unquoted attribute.
public enum HTMLReportWriter {
    public static func render(_ report: ConformanceReport) -> String {
        let checks = Dictionary(report.checks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var body: [String] = []
        let title = "SAMLHarness conformance report: " + report.runs.map(\.label).joined(separator: ", ")
        body.append("<header><h1>\(ReportText.html(title))</h1>")
        body.append("<p class=\"muted\">\(ReportText.html(report.generator)), report format \(ReportText.html(report.formatVersion)), "
                    + "generated \(ReportText.html(report.generated)). "
                    + (report.secretsMasked ? "Secrets are masked." : "<strong>Secrets are shown (--show-secrets).</strong>")
                    + "</p></header>")
        body.append("<nav><a href=\"#overview\">Overview</a>"
                    + (report.runs.count > 1 ? " · <a href=\"#matrix\">Matrix</a>" : "")
                    + " · <a href=\"#checks\">Checks</a> · <a href=\"#scenarios\">Scenarios</a></nav>")
        body.append("<section id=\"overview\"><h2>Overview</h2>")
        for (index, run) in report.runs.enumerated() { body.append(overview(run, index: index)) }
        body.append("</section>")
        if report.runs.count > 1 { body.append(matrix(report)) }
        body.append(checkTable(report))
        body.append("<section id=\"scenarios\"><h2>Scenarios</h2>")
        for (index, run) in report.runs.enumerated() {
            if report.runs.count > 1 { body.append("<h3 class=\"run\">\(ReportText.html(run.label))</h3>") }
            for result in run.results {
                body.append(HTMLScenarioView.render(result, anchor: anchor(result.scenario, run: index), checks: checks))
            }
        }
        body.append("</section>")
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(ReportText.html(title))</title>
        <style>\(HTMLReportStyle.css)</style>
        </head><body>
        \(body.joined(separator: "\n"))
        <script>\(HTMLReportStyle.script)</script>
        </body></html>

        """
    }

    /// The id of a scenario's section: `s-ID` for the first run, `rN-s-ID` for the others.
    static func anchor(_ scenario: String, run: Int) -> String {
        (run == 0 ? "" : "r\(run + 1)-") + ReportText.anchor(scenario)
    }

    static func badge(_ status: String) -> String {
        "<span class=\"badge \(ReportText.html(status))\">\(ReportText.html(status))</span>"
    }

    static func overview(_ run: RunReport, index: Int) -> String {
        let counts = run.counts
        var html = "<div class=\"run-overview\"><h3>\(ReportText.html(run.label)) "
            + badge(counts.clean ? "pass" : "fail") + "</h3>"
        html += "<p>\(counts.total) scenarios: <span class=\"pass-text\">\(counts.pass) pass</span>, "
            + "<span class=\"fail-text\">\(counts.fail) fail</span>, "
            + (counts.crashed > 0 ? "<span class=\"fail-text\">\(counts.crashed) crashed</span>, " : "")
            + "\(counts.error) error, \(counts.skipped) skipped"
            + (counts.unsupported > 0 ? ", \(counts.unsupported) unsupported" : "")
            + (run.durationSeconds.map { String(format: " in %.1f s", $0) } ?? "")
            + (run.timeScale.map { String(format: " (time scale %g: deliberate waits ×%g)", $0, $0) } ?? "") + ".</p>"
        if let interrupted = run.interrupted {
            html += "<p class=\"fail-text\"><strong>Interrupted by \(ReportText.html(interrupted))</strong>: only the scenarios that "
                + "finished are counted; those stopped are errors and the rest did not run.</p>"
        }
        html += "<dl class=\"facts\"><dt>client</dt><dd>\(ReportText.html(run.client))</dd>"
            + "<dt>catalog</dt><dd><code>\(ReportText.html(run.catalog.digest))</code> (\(run.catalog.scenarios.count) scenarios)</dd>"
            + "<dt>shards</dt><dd>\(ReportText.html(run.shards.isEmpty ? "—" : run.shards.joined(separator: ", ")))</dd>"
            + "<dt>started</dt><dd>\(ReportText.html(run.started))</dd>"
            + "<dt>harness</dt><dd>\(ReportText.html(run.harnessVersion))</dd></dl>"
        html += "<table class=\"counts\"><thead><tr><th>flow</th><th>scenarios</th><th>pass</th><th>fail</th><th>crashed</th><th>error</th><th>skipped</th><th></th></tr></thead><tbody>"
        let flows = Dictionary(grouping: run.results, by: \.flow)
        for flow in flows.keys.sorted() {
            let c = StatusCounts(flows[flow] ?? [])
            html += "<tr><td>\(ReportText.html(flow))</td><td>\(c.total)</td><td>\(c.pass)</td><td class=\"\(c.fail > 0 ? "fail-text" : "")\">\(c.fail)</td>"
                + "<td class=\"\(c.crashed > 0 ? "fail-text" : "")\">\(c.crashed)</td>"
                + "<td class=\"\(c.error > 0 ? "error-text" : "")\">\(c.error)</td><td>\(c.skipped)</td><td>\(bar(c))</td></tr>"
        }
        html += "</tbody></table>"
        let failing = run.results.filter { $0.status == .fail || $0.status == .crashed || $0.status == .error }
        if !failing.isEmpty {
            html += "<h4>Failures</h4><ul class=\"failures\">"
            for result in failing {
                html += "<li>\(badge(result.status.rawValue)) <a href=\"#\(anchor(result.scenario, run: index))\">"
                    + "\(ReportText.html(result.scenario))</a>"
                    + (result.about.map { " <span class=\"muted\">(\(ReportText.html($0.title)))</span>" } ?? "")
                    + ": \(ReportText.html(ReportText.oneLine(result.reason ?? "", limit: 200)))</li>"
            }
            html += "</ul>"
        }
        return html + "</div>"
    }

    /// A small stacked bar of a flow's statuses (inline SVG).
    static func bar(_ c: StatusCounts) -> String {
        guard c.total > 0 else { return "" }
        var x = 0.0
        var parts = ""
        for (count, cls) in [(c.pass, "pass"), (c.fail, "fail"), (c.crashed, "crashed"), (c.error, "error"), (c.skipped, "skipped"), (c.unsupported, "skipped")] where count > 0 {
            let w = 120.0 * Double(count) / Double(c.total)
            parts += "<rect class=\"\(cls)\" x=\"\(String(format: "%.1f", x))\" y=\"0\" width=\"\(String(format: "%.1f", w))\" height=\"10\"/>"
            x += w
        }
        return "<svg class=\"bar\" width=\"120\" height=\"10\" viewBox=\"0 0 120 10\">\(parts)</svg>"
    }

    static func matrix(_ report: ConformanceReport) -> String {
        var html = "<section id=\"matrix\"><h2>Conformance matrix</h2><table class=\"matrix\"><thead><tr><th>scenario</th>"
        html += report.runs.map { "<th>\(ReportText.html($0.label))</th>" }.joined() + "</tr></thead><tbody>"
        let byRun = report.runs.map { run in Dictionary(run.results.map { ($0.scenario, $0) }, uniquingKeysWith: { a, _ in a }) }
        var scenarios: [String] = []
        var seen: Set<String> = []
        for run in report.runs { for r in run.results where seen.insert(r.scenario).inserted { scenarios.append(r.scenario) } }
        for scenario in scenarios {
            html += "<tr><td>\(ReportText.html(scenario))</td>"
            for (index, results) in byRun.enumerated() {
                if let result = results[scenario] {
                    html += "<td class=\"cell \(result.status.rawValue)\"><a href=\"#\(anchor(scenario, run: index))\" "
                        + "title=\"\(ReportText.html(result.reason ?? result.status.rawValue))\">\(result.status.rawValue)</a></td>"
                } else {
                    html += "<td class=\"cell absent\">—</td>"
                }
            }
            html += "</tr>"
        }
        return html + "</tbody></table></section>"
    }

    static func checkTable(_ report: ConformanceReport) -> String {
        var html = "<section id=\"checks\"><h2>Checks</h2><table class=\"checks\"><thead><tr><th>check</th><th>pass</th><th>fail</th>"
            + "<th>not applicable</th><th>not evaluated</th><th>what it makes sure of</th><th>reference</th></tr></thead><tbody>"
        let verdicts = report.runs.flatMap { $0.results.flatMap(\.verdicts) }
        let byCheck = Dictionary(grouping: verdicts, by: \.check)
        for check in report.checks {
            let v = byCheck[check.id] ?? []
            let fails = v.filter { $0.status == .fail }.count
            let reference = ReportText.referenceURL(check.reference).map {
                "<a href=\"\(ReportText.html($0))\">\(ReportText.html(check.reference))</a>"
            } ?? ReportText.html(check.reference)
            html += "<tr id=\"check-\(ReportText.html(ReportText.anchor(check.id)))\"><td><code>\(ReportText.html(check.id))</code></td>"
                + "<td>\(v.filter { $0.status == .pass }.count)</td><td class=\"\(fails > 0 ? "fail-text" : "")\">\(fails)</td>"
                + "<td>\(v.filter { $0.status == .notApplicable }.count)</td><td>\(v.filter { $0.status == .notEvaluated }.count)</td>"
                + "<td>\(ReportText.html(check.purpose))</td><td>\(reference)</td></tr>"
        }
        return html + "</tbody></table></section>"
    }
}
