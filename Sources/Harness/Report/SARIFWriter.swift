import Foundation

/// SARIF 2.1.0 (OASIS), for code-scanning dashboards: one SARIF run per client run; the
/// rules are the checks the verdicts name (id = check id, descriptions from the catalog,
/// `helpUri` to the specification or CVE behind the check); one result per failed check,
/// `error` for a required check and `warning` for a recommended one, located at the scenario
/// (a logical location, and the scenario file when known), with the evidence in its message
/// and properties. Scenarios that errored are run-level notifications
/// (`invocations[0].toolExecutionNotifications`).
public enum SARIFWriter {
    public static let schemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

    public static func render(_ report: ConformanceReport) throws -> Data {
        let document: [String: Any] = [
            "$schema": schemaURI,
            "version": "2.1.0",
            "runs": report.runs.map(run),
        ]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    static func run(_ run: RunReport) -> [String: Any] {
        let rules = run.checks.map(rule)
        let ruleIndex = Dictionary(run.checks.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        var results: [[String: Any]] = []
        var notifications: [[String: Any]] = []
        for result in run.results {
            let failed = result.failedRequired + result.verdicts.filter { $0.status == .fail && $0.level == .recommended }
            for verdict in failed {
                results.append(self.result(result, verdict, ruleIndex[verdict.check], run.catalog.sources?[result.scenario]))
            }
            if result.status == .error || result.status == .crashed {
                notifications.append([
                    "level": "error",
                    "message": ["text": "\(result.scenario): \(result.status == .crashed ? "crashed: " : "")\(result.reason ?? "error")"],
                    "locations": [["logicalLocations": [logicalLocation(result)]]],
                ])
            }
        }
        var invocation: [String: Any] = [
            "executionSuccessful": !run.results.contains { $0.status == .error },
            "startTimeUtc": run.started,
            "properties": ["client": run.client, "shards": run.shards, "catalog": run.catalog.digest],
        ]
        if !notifications.isEmpty { invocation["toolExecutionNotifications"] = notifications }
        return [
            "tool": ["driver": [
                "name": "samlharness",
                "version": run.harnessVersion,
                "informationUri": "https://docs.oasis-open.org/security/saml/v2.0/",
                "rules": rules,
            ] as [String: Any]],
            "automationDetails": ["id": "samlharness/\(run.client)/"],
            "invocations": [invocation],
            "results": results,
            "columnKind": "unicodeCodePoints",
        ]
    }

    static func rule(_ check: CheckInfo) -> [String: Any] {
        var rule: [String: Any] = [
            "id": check.id,
            "name": check.id.split(separator: ".").map { $0.split(separator: "-").map { $0.capitalized }.joined() }.joined(),
            "shortDescription": ["text": check.purpose],
            "fullDescription": ["text": "\(check.purpose) (\(check.reference))"],
            "help": ["text": "\(check.id): \(check.purpose)\nReference: \(check.reference)",
                     "markdown": "**\(check.id)**: \(check.purpose)\n\nReference: \(check.reference)"],
            "defaultConfiguration": ["level": "error"],
            "properties": ["category": check.category, "reference": check.reference, "tags": ["saml", check.category]],
        ]
        if let url = ReportText.referenceURL(check.reference) { rule["helpUri"] = url }
        return rule
    }

    static func logicalLocation(_ result: ScenarioResult) -> [String: Any] {
        ["name": result.scenario, "fullyQualifiedName": "\(result.flow)/\(result.scenario)", "kind": "module"]
    }

    static func result(_ result: ScenarioResult, _ verdict: Verdict, _ ruleIndex: Int?,
                       _ source: CatalogInfo.ScenarioSource?) -> [String: Any] {
        var text = "\(result.scenario)" + (result.about.map { " (\($0.title))" } ?? "") + ": \(verdict.check) failed: \(verdict.reason)"
        if let first = verdict.evidence.first {
            text += " (evidence: " + (first.exchange.map { "exchange #\($0): " } ?? "") + ReportText.oneLine(first.detail, limit: 200) + ")"
        }
        if let about = result.about { text += ". Expected: " + ReportText.oneLine(about.expectation, limit: 400) }
        var location: [String: Any] = ["logicalLocations": [logicalLocation(result)]]
        if let source {
            var physical: [String: Any] = ["artifactLocation": ["uri": source.file]]
            if let line = source.line, line >= 1 { physical["region"] = ["startLine": line] }
            location["physicalLocation"] = physical
        }
        var item: [String: Any] = [
            "ruleId": verdict.check,
            "level": verdict.level == .required ? "error" : "warning",
            "message": ["text": text],
            "locations": [location],
            "partialFingerprints": ["samlharness/v1": "\(result.scenario)|\(verdict.check)"],
            "properties": [
                "scenario": result.scenario,
                "flow": result.flow,
                "scenarioStatus": result.status.rawValue,
                "scenarioTitle": result.about?.title ?? "",
                "scenarioDescription": result.about?.description ?? "",
                "expected": result.about?.expectation ?? "",
                "evidence": verdict.evidence.map { evidence -> [String: Any] in
                    var e: [String: Any] = ["detail": evidence.detail]
                    if let exchange = evidence.exchange { e["exchange"] = exchange }
                    if let mock = evidence.mock { e["mock"] = mock }
                    if let excerpt = evidence.excerpt { e["excerpt"] = excerpt }
                    return e
                },
            ] as [String: Any],
        ]
        if let ruleIndex { item["ruleIndex"] = ruleIndex }
        return item
    }
}
