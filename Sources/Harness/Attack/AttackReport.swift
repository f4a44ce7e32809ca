import Foundation

/// What `attack-sp` found: the baseline's evidence and one result per attack.
public struct AttackReport: Sendable, Codable, Equatable {
    public var target: AttackTarget
    public var idpEntityID: String
    public var baseline: AttackEvidence
    public var results: [AttackResult]

    /// 0 when every attack was refused (or `nameid-comment` read whole), 1 otherwise.
    public var exitCode: Int32 { results.allSatisfy(\.outcome.isGood) ? 0 : 1 }

    public var vulnerable: [AttackResult] { results.filter { $0.outcome == .accepted } }

    /// `id verdict` lines only, for comparing runs (tests pin this).
    public var verdictLines: [String] { results.map { "\($0.id) \($0.outcome.rawValue)" } }

    /// The table printed on standard output.
    public func table() -> String {
        let idWidth = max(2, results.map(\.id.count).max() ?? 0)
        let verdictWidth = max(7, results.map(\.outcome.rawValue.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = ["attack-sp: \(target.acsURL) (SP \(target.spEntityID)), IdP \(idpEntityID)",
                     "baseline: accepted (status \(baseline.status.map(String.init) ?? "-"), \(baseline.finalURL ?? "-"), \(baseline.detail))",
                     "",
                     pad("id", idWidth) + "  " + pad("verdict", verdictWidth) + "  status  evidence"]
        for result in results {
            let status = result.evidence.status.map(String.init) ?? "-"
            lines.append(pad(result.id, idWidth) + "  " + pad(result.outcome.rawValue, verdictWidth) + "  "
                         + pad(status, 6) + "  " + (result.evidence.finalURL.map { "\($0): " } ?? "") + result.evidence.detail)
        }
        let counts = AttackOutcome.allCases.compactMap { outcome -> String? in
            let n = results.filter { $0.outcome == outcome }.count
            return n == 0 ? nil : "\(n) \(outcome.rawValue)"
        }
        lines.append("")
        lines.append("\(results.count) attacks: " + counts.joined(separator: ", "))
        if !vulnerable.isEmpty {
            lines.append("VULNERABLE to: " + vulnerable.map(\.id).joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
