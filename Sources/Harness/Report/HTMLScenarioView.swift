import Foundation

/// One scenario in the HTML report: status, verdicts with evidence, the sequence diagram,
/// and each exchange as a `<details>` with its request, answer and decoded SAML messages.
/// A scenario that failed or errored is open; the others are collapsed.
enum HTMLScenarioView {
    static func render(_ result: ScenarioResult, anchor: String, checks: [String: CheckInfo]) -> String {
        let failed = result.verdicts.filter { $0.status == .fail }
        var failing: [Int: [Verdict]] = [:]
        for verdict in failed {
            for exchange in Set(verdict.evidence.compactMap(\.exchange)) { failing[exchange, default: []].append(verdict) }
        }
        let open = result.status == .fail || result.status == .crashed || result.status == .error
        var html = "<details class=\"scenario \(result.status.rawValue)\" id=\"\(ReportText.html(anchor))\" "
            + "data-scenario=\"\(ReportText.html(result.scenario))\"\(open ? " open" : "")>"
        html += "<summary>\(HTMLReportWriter.badge(result.status.rawValue)) <span class=\"scenario-id\">\(ReportText.html(result.scenario))</span>"
            + " <span class=\"muted\">\(ReportText.html(result.flow)) · \(result.exchanges) exchanges · "
            + "\(String(format: "%.2f", result.seconds)) s</span></summary>"
        if let about = result.about {
            html += "<div class=\"about\"><p class=\"title\"><strong>\(ReportText.html(about.title))</strong></p>"
                + "<p class=\"muted\">\(ReportText.html(about.description))</p>"
                + "<p><strong>Expected:</strong> \(ReportText.html(about.expectation))</p></div>"
        }
        if let reason = result.reason { html += "<p class=\"reason\">\(ReportText.html(reason))</p>" }
        html += verdictTable(result, anchor: anchor, checks: checks)
        if let client = result.client { html += clientBlock(client) }
        if let trace = result.trace {
            html += "<h4>Sequence</h4>"
            html += HTMLSequenceDiagram.render(scenarioAnchor: anchor, exchanges: trace.exchanges, failing: failing)
            html += "<h4>Exchanges</h4><div class=\"exchanges\">"
            for exchange in trace.exchanges {
                html += HTMLExchangeView.render(exchange, id: "\(anchor)-x\(exchange.sequence)",
                                                failing: failing[exchange.sequence] ?? [], checks: checks)
            }
            html += "</div>"
        } else {
            html += "<p class=\"muted\">No trace in this report (a results file written before traces existed).</p>"
        }
        return html + "</details>"
    }

    static func verdictTable(_ result: ScenarioResult, anchor: String, checks: [String: CheckInfo]) -> String {
        guard !result.verdicts.isEmpty else { return "" }
        // The root cause first: the failed precise checks, the failed outcome checks, the rest.
        let failed = result.failedRequired
        let ordered = failed + result.verdicts.filter { verdict in !failed.contains(verdict) }
        var html = "<table class=\"verdicts\"><thead><tr><th>check</th><th>level</th><th>status</th><th>reason</th><th>evidence</th></tr></thead><tbody>"
        for verdict in ordered {
            let status = verdict.status.rawValue
            let evidence = verdict.evidence.map { e -> String in
                var item = ""
                if let exchange = e.exchange {
                    item += "<a href=\"#\(ReportText.html(anchor))-x\(exchange)\">#\(exchange)</a> "
                }
                if let mock = e.mock { item += "<span class=\"muted\">(\(ReportText.html(mock)))</span> " }
                item += ReportText.html(e.detail)
                if let excerpt = e.excerpt { item += "<pre class=\"excerpt\">\(ReportText.html(excerpt))</pre>" }
                return "<div class=\"evidence\">\(item)</div>"
            }.joined()
            let purpose = checks[verdict.check].map { " title=\"\(ReportText.html($0.purpose))\"" } ?? ""
            html += "<tr class=\"verdict \(status)\"><td><code\(purpose)>\(ReportText.html(verdict.check))</code></td>"
                + "<td>\(verdict.level.rawValue)</td><td>\(HTMLReportWriter.badge(status))</td>"
                + "<td>\(ReportText.html(verdict.reason))</td><td>\(evidence)</td></tr>"
        }
        return html + "</tbody></table>"
    }

    static func clientBlock(_ client: ScenarioResult.ClientSummary) -> String {
        var facts: [String] = []
        if let status = client.status { facts.append("exit status \(status)") }
        if client.timedOut { facts.append("timed out") }
        if let outcome = client.outcome { facts.append("outcome “\(outcome)”") }
        if let error = client.error { facts.append("error: \(error)") }
        if let problem = client.reportProblem { facts.append("report problem: \(problem)") }
        if let signal = client.signal { facts.append("ended by signal \(signal)") }
        if let startFailure = client.startFailure { facts.append("could not start: \(startFailure)") }
        var html = "<p class=\"client\"><strong>client:</strong> \(ReportText.html(facts.joined(separator: "; ")))</p>"
        if let stderr = client.stderrTail {
            html += "<details class=\"stderr\"><summary>client stderr (tail)</summary><pre>\(ReportText.html(stderr))</pre></details>"
        }
        return html
    }
}

/// One exchange: request line, headers, body; answer status, headers, body; the mock's
/// annotations; the decoded messages; and, for a failing step, the checks' explanations.
enum HTMLExchangeView {
    static func render(_ exchange: TraceExchange, id: String, failing: [Verdict], checks: [String: CheckInfo]) -> String {
        let status = exchange.response.map { "\($0.status)" } ?? exchange.tlsOutcome ?? "no answer"
        var html = "<details class=\"exchange\(failing.isEmpty ? "" : " failing")\" id=\"\(ReportText.html(id))\""
            + "\(failing.isEmpty ? "" : " open")>"
        html += "<summary><span class=\"seq\">#\(exchange.sequence)</span> <span class=\"mock\">\(ReportText.html(exchange.mock))</span> "
            + "<span class=\"method\">\(ReportText.html(exchange.request.method))</span> <span class=\"url\">\(ReportText.html(exchange.request.url))</span>"
            + " → <span class=\"status\">\(ReportText.html(status))</span>"
            + (failing.isEmpty ? "" : " <span class=\"failing-mark\">✗ \(ReportText.html(failing.map(\.check).joined(separator: ", ")))</span>")
            + "</summary>"
        for verdict in failing {
            let check = checks[verdict.check]
            html += "<div class=\"explanation\"><strong>\(ReportText.html(verdict.check))</strong> failed: \(ReportText.html(verdict.reason))"
            if let check {
                html += "<br><span class=\"muted\">The check makes sure that \(ReportText.html(check.purpose)). Reference: "
                    + (ReportText.referenceURL(check.reference).map { "<a href=\"\(ReportText.html($0))\">\(ReportText.html(check.reference))</a>" }
                        ?? ReportText.html(check.reference)) + ".</span>"
            }
            for evidence in verdict.evidence where evidence.exchange == exchange.sequence {
                html += "<div class=\"evidence\">\(ReportText.html(evidence.detail))"
                    + (evidence.excerpt.map { "<pre class=\"excerpt\">\(ReportText.html($0))</pre>" } ?? "") + "</div>"
            }
            html += "</div>"
        }
        html += "<div class=\"halves\"><div class=\"half\"><h5>Request <span class=\"muted\">at \(exchange.atMilliseconds) ms</span></h5>"
        html += "<pre class=\"line\">\(ReportText.html(exchange.request.method + " " + exchange.request.url))</pre>"
        html += headers(exchange.request.headers) + body(exchange.request.body)
        html += "</div><div class=\"half\"><h5>Answer <span class=\"muted\">after \(exchange.waitMilliseconds) ms</span></h5>"
        if let response = exchange.response {
            html += "<pre class=\"line\">\(response.status)</pre>" + headers(response.headers) + body(response.body)
        } else {
            html += "<p class=\"fail-text\">The mock never answered.</p>"
        }
        html += "</div></div>"
        if let annotations = exchange.annotations, !annotations.isEmpty {
            html += "<h5>Mock annotations</h5><table class=\"headers\">"
            for key in annotations.keys.sorted() {
                html += "<tr><th>\(ReportText.html(key))</th><td>\(ReportText.html(annotations[key] ?? ""))</td></tr>"
            }
            html += "</table>"
        }
        for message in exchange.messages ?? [] {
            html += "<details class=\"message\" open><summary>\(ReportText.html(message.name)) "
                + "<span class=\"muted\">in \(ReportText.html(message.location))</span></summary>"
            if let relayState = message.relayState {
                html += "<p><strong>RelayState:</strong> <code>\(ReportText.html(relayState))</code></p>"
            }
            for finding in message.findings ?? [] { html += "<p class=\"finding\">⚠ \(ReportText.html(finding))</p>" }
            if let error = message.error { html += "<p class=\"fail-text\">could not decode: \(ReportText.html(error))</p>" }
            if let xml = message.xml { html += "<pre class=\"xml\">\(ReportText.html(xml))</pre>" }
            html += "</details>"
        }
        return html + "</details>"
    }

    static func headers(_ headers: [TraceHeader]) -> String {
        guard !headers.isEmpty else { return "" }
        return "<table class=\"headers\">" + headers.map {
            "<tr><th>\(ReportText.html($0.name))</th><td>\(ReportText.html($0.value))</td></tr>"
        }.joined() + "</table>"
    }

    static func body(_ body: TraceBody?) -> String {
        guard let body else { return "" }
        guard let text = body.text else { return "<p class=\"muted\">binary body, \(body.bytes) bytes</p>" }
        let note = body.truncated == true ? "<p class=\"muted\">first \(text.utf8.count) of \(body.bytes) bytes</p>" : ""
        return "<pre class=\"body\">\(ReportText.html(text))</pre>" + note
    }
}
