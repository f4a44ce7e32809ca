import Foundation

/// JUnit XML, the shape Jenkins, GitLab, GitHub test reporters and JUnit viewers read
/// (Ant/Surefire `junit-10.xsd`): one `testsuite` per flow (per client and flow when the
/// report holds several clients), one `testcase` per scenario × check, `classname` = the
/// scenario id, `name` = the check id.
///
/// - a failed required check: `<failure type="CHECK" message="REASON">` with the evidence;
/// - a failed recommended check passes, with a warning in `system-out` (it does not fail
///   the scenario either);
/// - `not-applicable` / `not-evaluated`: `<skipped>` with the reason;
/// - a scenario that errored: an extra testcase `(run)` with `<error>`; one that was skipped
///   (flow not supported): a testcase `(run)` with `<skipped>`.
public enum JUnitWriter {
    public static func render(_ report: ConformanceReport) -> String {
        var suites: [String] = []
        var totals = (tests: 0, failures: 0, errors: 0, skipped: 0, time: 0.0)
        let checks = Dictionary(report.checks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for run in report.runs {
            let flows = Dictionary(grouping: run.results, by: \.flow)
            for flow in flows.keys.sorted() {
                let results = flows[flow] ?? []
                var cases: [String] = []
                var counts = (tests: 0, failures: 0, errors: 0, skipped: 0)
                for result in results {
                    for verdict in result.verdicts {
                        counts.tests += 1
                        cases.append(testcase(result, verdict, checks[verdict.check], &counts))
                    }
                    if [.error, .crashed, .skipped, .unsupported].contains(result.status) || result.verdicts.isEmpty {
                        counts.tests += 1
                        cases.append(runCase(result, &counts))
                    }
                }
                let time = results.reduce(0) { $0 + $1.seconds }
                let name = report.runs.count > 1 ? "\(run.label): \(flow)" : flow
                suites.append("""
                  <testsuite name="\(ReportText.xml(name))" tests="\(counts.tests)" failures="\(counts.failures)" \
                errors="\(counts.errors)" skipped="\(counts.skipped)" time="\(ReportText.seconds(time))" \
                timestamp="\(ReportText.xml(run.started))" package="samlharness.\(ReportText.xml(flow))">
                    <properties>
                      <property name="client" value="\(ReportText.xml(run.client))"/>
                      <property name="catalog" value="\(ReportText.xml(run.catalog.digest))"/>
                      <property name="harness_version" value="\(ReportText.xml(run.harnessVersion))"/>
                      <property name="shards" value="\(ReportText.xml(run.shards.joined(separator: ",")))"/>
                    </properties>
                \(cases.joined(separator: "\n"))
                  </testsuite>
                """)
                totals.tests += counts.tests
                totals.failures += counts.failures
                totals.errors += counts.errors
                totals.skipped += counts.skipped
                totals.time += time
            }
        }
        let clients = report.runs.map(\.label).joined(separator: ", ")
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="samlharness: \(ReportText.xml(clients))" tests="\(totals.tests)" failures="\(totals.failures)" \
        errors="\(totals.errors)" time="\(ReportText.seconds(totals.time))">
        \(suites.joined(separator: "\n"))
        </testsuites>

        """
    }

    static func testcase(_ result: ScenarioResult, _ verdict: Verdict, _ check: CheckInfo?,
                         _ counts: inout (tests: Int, failures: Int, errors: Int, skipped: Int)) -> String {
        let open = "    <testcase classname=\"\(ReportText.xml(result.scenario))\" name=\"\(ReportText.xml(verdict.check))\""
        switch verdict.status {
        case .pass:
            return open + "/>"
        case .fail where result.status == .unsupported:
            // An optional feature the client lacks: not a failure (the `(run)` case says which).
            counts.skipped += 1
            return open + ">\n      <skipped type=\"unsupported\" message=\"\(ReportText.xml(ReportText.oneLine(verdict.reason)))\"/>\n    </testcase>"
        case .fail where verdict.level == .recommended:
            return open + ">\n      <system-out>warning: recommended check failed: \(ReportText.xml(verdict.reason))\n"
                + "\(ReportText.xml(ReportText.evidence(verdict.evidence)))</system-out>\n    </testcase>"
        case .fail:
            counts.failures += 1
            var body = "\(verdict.check): \(verdict.reason)\n"
            body += about(result)
            if let check { body += "check: \(check.purpose)\nreference: \(check.reference)\n" }
            if !verdict.evidence.isEmpty { body += "evidence:\n" + ReportText.evidence(verdict.evidence) + "\n" }
            body += "details: report.html#\(ReportText.anchor(result.scenario))\n"
            return open + ">\n      <failure type=\"\(ReportText.xml(verdict.check))\" message=\"\(ReportText.xml(ReportText.oneLine(verdict.reason)))\">"
                + ReportText.xml(body) + "</failure>\n    </testcase>"
        case .notApplicable, .notEvaluated:
            counts.skipped += 1
            return open + ">\n      <skipped type=\"\(verdict.status.rawValue)\" message=\"\(ReportText.xml(ReportText.oneLine(verdict.reason)))\"/>\n    </testcase>"
        }
    }

    /// The scenario's title, description and expectation, for a failure's text.
    static func about(_ result: ScenarioResult) -> String {
        guard let about = result.about else { return "" }
        return "scenario: \(about.title)\n\(about.description)\nexpected: \(about.expectation)\n"
    }

    /// The testcase standing for the run itself: an error, a skip, or a scenario with no
    /// verdict at all.
    static func runCase(_ result: ScenarioResult,
                        _ counts: inout (tests: Int, failures: Int, errors: Int, skipped: Int)) -> String {
        let open = "    <testcase classname=\"\(ReportText.xml(result.scenario))\" name=\"(run)\" time=\"\(ReportText.seconds(result.seconds))\""
        let reason = result.reason ?? result.status.rawValue
        switch result.status {
        case .error, .crashed:
            counts.errors += 1
            var body = reason + "\n" + about(result)
            if let client = result.client {
                if let status = client.status { body += "client exit status: \(status)\n" }
                if client.timedOut { body += "client timed out\n" }
                if let error = client.error { body += "client error: \(error)\n" }
                if let signal = client.signal { body += "client ended by signal \(signal)\n" }
                if let stderr = client.stderrTail { body += "client stderr (tail):\n\(stderr)\n" }
            }
            let type = result.status == .crashed ? "client-crashed" : result.client?.startFailure != nil ? "client-setup" : "scenario-error"
            return open + ">\n      <error type=\"\(type)\" message=\"\(ReportText.xml(ReportText.oneLine(reason)))\">"
                + ReportText.xml(body) + "</error>\n    </testcase>"
        case .skipped:
            counts.skipped += 1
            return open + ">\n      <skipped message=\"\(ReportText.xml(ReportText.oneLine(reason)))\"/>\n    </testcase>"
        case .unsupported:
            counts.skipped += 1
            return open + ">\n      <skipped type=\"unsupported\" message=\"\(ReportText.xml(ReportText.oneLine(reason)))\"/>\n    </testcase>"
        case .fail:
            counts.failures += 1
            return open + ">\n      <failure type=\"scenario-fail\" message=\"\(ReportText.xml(ReportText.oneLine(reason)))\"/>\n    </testcase>"
        case .pass:
            return open + "/>"
        }
    }
}
