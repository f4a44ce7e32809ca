import Foundation
import SAMLCore

/// The `attack-sp` run: a valid baseline Response must be accepted first (otherwise nothing
/// can be judged), then each attack of the catalog is posted as a browser would and judged
/// by the SP's last answer.
///
/// ```swift
/// let runner = AttackSPRunner(target: target, material: material, judge: judge,
///                             browser: AttackBrowser(transport: transport))
/// let report = try await runner.run()
/// print(report.table())
/// ```
public struct AttackSPRunner: Sendable {
    public var target: AttackTarget
    public var material: AttackMaterial
    public var attacks: [SAMLAttack]
    public var judge: AttackJudge
    public var browser: AttackBrowser
    public var relayState: String?

    public init(target: AttackTarget, material: AttackMaterial, attacks: [SAMLAttack] = AttackCatalog.all,
                judge: AttackJudge, browser: AttackBrowser, relayState: String? = nil) {
        self.target = target
        self.material = material
        self.attacks = attacks
        self.judge = judge
        self.browser = browser
        self.relayState = relayState
    }

    /// The attacks named in `ids` (comma-separated lists allowed), in catalog order.
    public static func select(_ ids: [String]) throws -> [SAMLAttack] {
        let wanted = Set(ids.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty })
        let unknown = wanted.subtracting(AttackCatalog.ids)
        if !unknown.isEmpty {
            throw AttackSPError.usage("unknown attack id \(unknown.sorted().joined(separator: ", ")); known: \(AttackCatalog.ids.joined(separator: ", "))")
        }
        return AttackCatalog.all.filter { wanted.contains($0.id) }
    }

    public func run(progress: @Sendable (AttackResult) -> Void = { _ in }) async throws -> AttackReport {
        let baseline = try await post(try material.validResponse())
        let (accepted, detail) = judge.accepted(baseline)
        let baselineEvidence = AttackEvidence(status: baseline.status, finalURL: baseline.finalURL, detail: detail)
        guard accepted else {
            throw AttackSPError.baselineRejected("status \(baseline.status) at \(baseline.finalURL): \(detail)")
        }
        var results: [AttackResult] = []
        for attack in attacks {
            let result = await judgeAttack(attack)
            progress(result)
            results.append(result)
        }
        return AttackReport(target: target, idpEntityID: material.idpEntityID, baseline: baselineEvidence, results: results)
    }

    func judgeAttack(_ attack: SAMLAttack) async -> AttackResult {
        func result(_ outcome: AttackOutcome, _ evidence: AttackEvidence, _ reason: String?) -> AttackResult {
            AttackResult(id: attack.id, summary: attack.summary, reference: attack.reference, outcome: outcome,
                         strictReason: reason, evidence: evidence)
        }
        let payload: AttackPayload
        do {
            payload = try attack.generate(material)
        } catch {
            return result(.inconclusive, AttackEvidence(status: nil, finalURL: nil, detail: "could not generate: \(error)"), nil)
        }
        let reason = payload.expectation.reason
        do {
            // Earlier posts prime the attack (a replay's first, valid, post) and must be accepted.
            for primer in payload.responses.dropLast() {
                let answer = try await post(primer)
                let (ok, detail) = judge.accepted(answer)
                if !ok {
                    return result(.inconclusive, AttackEvidence(status: answer.status, finalURL: answer.finalURL,
                                                                detail: "the first, valid, post was refused: \(detail)"), reason)
                }
            }
            let answer = try await post(payload.attackResponse)
            let (accepted, detail) = judge.accepted(answer)
            var evidence = AttackEvidence(status: answer.status, finalURL: answer.finalURL, detail: detail)
            guard accepted else { return result(.rejected, evidence, reason) }
            if case .readWhole(let whole, let truncated) = payload.expectation {
                if answer.body.contains(whole) {
                    evidence.detail += "; logged in as the whole NameID \(whole)"
                    return result(.readWhole, evidence, reason)
                }
                if answer.body.contains(truncated) {
                    evidence.detail += "; logged in as \(truncated), the text before the comment (vulnerable)"
                    return result(.accepted, evidence, reason)
                }
                evidence.detail += "; the page names neither \(whole) nor \(truncated): show the NameID after login to judge"
                return result(.inconclusive, evidence, reason)
            }
            return result(.accepted, evidence, reason)
        } catch {
            return result(.inconclusive, AttackEvidence(status: nil, finalURL: nil, detail: "\(error)"), reason)
        }
    }

    func post(_ response: String) async throws -> AttackBrowser.Outcome {
        try await browser.post(response: response, to: target.acsURL, relayState: relayState)
    }
}
