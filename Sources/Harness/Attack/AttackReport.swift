import Foundation

/// What `attack-sp` found: the baseline's evidence and one result per attack.
public struct AttackReport: Sendable, Codable, Equatable {
    public var target: AttackTarget
    public var idpEntityID: String
    public var baseline: AttackEvidence
    public var results: [AttackResult]
    /// The SP product whose documented policies were applied (`shibboleth-sp`), if any.
    public var product: String?
    /// How the product was known: `--sp-product`, or `detected: …`.
    public var productSource: String?
    /// Where the run looked to learn who was logged in.
    public var identitySources: String?

    public init(target: AttackTarget, idpEntityID: String, baseline: AttackEvidence, results: [AttackResult],
                product: String? = nil, productSource: String? = nil, identitySources: String? = nil) {
        self.target = target
        self.idpEntityID = idpEntityID
        self.baseline = baseline
        self.results = results
        self.product = product
        self.productSource = productSource
        self.identitySources = identitySources
    }

    /// 0 when every attack was refused, ignored or read whole (and, unless `failOnPolicy`,
    /// accepted only as a documented policy); 1 otherwise (ACCEPTED or inconclusive).
    public func exitCode(failOnPolicy: Bool) -> Int32 {
        results.allSatisfy { $0.outcome.isGood && !(failOnPolicy && $0.outcome == .policy) } ? 0 : 1
    }

    public var exitCode: Int32 { exitCode(failOnPolicy: false) }

    public var vulnerable: [AttackResult] { results.filter { $0.outcome == .accepted } }

    public var policies: [AttackResult] { results.filter { $0.outcome == .policy } }

    /// `id verdict` lines only, for comparing runs (tests pin this).
    public var verdictLines: [String] { results.map { "\($0.id) \($0.outcome.rawValue)" } }

    /// The table printed on standard output.
    public func table() -> String {
        let idWidth = max(2, results.map(\.id.count).max() ?? 0)
        let verdictWidth = max(7, results.map(\.outcome.rawValue.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = ["attack-sp: \(target.acsURL) (SP \(target.spEntityID)), IdP \(idpEntityID)",
                     "baseline: accepted (status \(baseline.status.map(String.init) ?? "-"), \(baseline.finalURL ?? "-"), \(baseline.detail))"]
        if let identitySources { lines.append("who logged in: \(identitySources)") }
        if let product { lines.append("SP product: \(product)\(productSource.map { " (\($0))" } ?? "")") }
        lines += ["", pad("id", idWidth) + "  " + pad("verdict", verdictWidth) + "  status  evidence"]
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
        if !policies.isEmpty {
            lines.append("POLICY (accepted as \(product ?? "the product") documents by default; not a flaw of it, but a setting to change):")
            for result in policies {
                guard let policy = result.policy else { continue }
                lines.append("  \(result.id): \(policy.setting): \(policy.change) [\(policy.reference)]")
            }
        }
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
