import Foundation
import SAMLCore

/// The `attack-sp` run: a valid baseline Response must be accepted first (otherwise nothing
/// can be judged), then each attack of the catalog is posted as a browser would and judged
/// by the SP's last answer and by who it logged in (``AttackIdentitySources``).
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
    /// Where to learn who was logged in.
    public var identity: AttackIdentitySources
    /// The SP's product, for its documented policies; nil: detected from the baseline's
    /// cookies when `detectProduct`.
    public var product: SPProduct?
    public var detectProduct: Bool

    public init(target: AttackTarget, material: AttackMaterial, attacks: [SAMLAttack] = AttackCatalog.all,
                judge: AttackJudge, browser: AttackBrowser, relayState: String? = nil,
                identity: AttackIdentitySources = AttackIdentitySources(), product: SPProduct? = nil,
                detectProduct: Bool = true) {
        self.target = target
        self.material = material
        self.attacks = attacks
        self.judge = judge
        self.browser = browser
        self.relayState = relayState
        self.identity = identity
        self.product = product
        self.detectProduct = detectProduct
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

    var reader: AttackIdentityReader { AttackIdentityReader(sources: identity, browser: browser) }

    public func run(progress: @Sendable (AttackResult) -> Void = { _ in }) async throws -> AttackReport {
        let mark = reader.mark()
        let baseline = try await post(try material.validResponse())
        let (accepted, detail) = judge.accepted(baseline)
        var baselineEvidence = AttackEvidence(status: baseline.status, finalURL: baseline.finalURL, detail: detail)
        guard accepted else {
            throw AttackSPError.baselineRejected("status \(baseline.status) at \(baseline.finalURL): \(detail)")
        }
        // Every source given must see the baseline's user, or it cannot tell anyone apart.
        let observations = await reader.observe(baseline, logMark: mark)
        let seenBy = try checkSources(observations)
        baselineEvidence.detail += seenBy.isEmpty ? "; the page does not name \(material.nameID)"
            : "; logged in as \(material.nameID) (\(seenBy.joined(separator: ", ")))"
        let detected = product == nil && detectProduct ? SPProduct.detect(cookieNames: baseline.cookieNames) : nil
        let runner = detected.map { product in var copy = self; copy.product = product; return copy } ?? self
        var results: [AttackResult] = []
        for attack in attacks {
            let result = await runner.judgeAttack(attack)
            progress(result)
            results.append(result)
        }
        return AttackReport(target: target, idpEntityID: material.idpEntityID, baseline: baselineEvidence, results: results,
                            product: runner.product?.rawValue,
                            productSource: product != nil ? "--sp-product" : detected.map { _ in "detected: _shibsession_ cookie" },
                            identitySources: identity.described)
    }

    /// The sources that saw the baseline's user; throws when a source given saw nobody or
    /// someone else.
    func checkSources(_ observations: [IdentityObservation]) throws -> [String] {
        var seen: [String] = []
        for source in ["identity-pattern", "session", "sp-log", "page"] {
            let given = switch source {
            case "identity-pattern": identity.identityPattern != nil
            case "session": identity.sessionURL != nil
            case "sp-log": identity.spLog != nil
            default: false
            }
            let mine = observations.filter { $0.source == source }
            switch ObservedIdentity.classify(mine, signed: material.nameID, forged: material.victimNameID) {
            case .signed: seen.append(source)
            case .other(let who, _) where given:
                throw AttackSPError.identitySource("\(source) names \(who) after the baseline login of \(material.nameID)")
            case _ where given:
                throw AttackSPError.identitySource("\(source) does not show \(material.nameID) after the baseline login (\(Self.why(source, identity)))")
            default: break
            }
        }
        return seen
    }

    static func why(_ source: String, _ identity: AttackIdentitySources) -> String {
        switch source {
        case "identity-pattern": "the pattern does not match the page after login, or captures another text"
        case "session": "\(identity.sessionURL ?? "") shows no session with it: is it the SP's session page, with attribute values shown?"
        default: "nothing naming it was written to \(identity.spLog ?? "") during the login"
        }
    }

    func judgeAttack(_ attack: SAMLAttack) async -> AttackResult {
        func result(_ outcome: AttackOutcome, _ evidence: AttackEvidence, _ reason: String?,
                    _ who: String? = nil, _ policy: AttackPolicy? = nil) -> AttackResult {
            AttackResult(id: attack.id, summary: attack.summary, reference: attack.reference, outcome: outcome,
                         strictReason: reason, evidence: evidence, loggedInAs: who, policy: policy)
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
            let mark = reader.mark()
            let answer = try await post(payload.attackResponse)
            let (accepted, detail) = judge.accepted(answer)
            var evidence = AttackEvidence(status: answer.status, finalURL: answer.finalURL, detail: detail)
            var observations = await reader.observe(answer, logMark: mark)
            // A refusal page may name anyone (an error quoting the NameID): after a refusal only
            // the SP's own records (session, log) count.
            if !accepted { observations.removeAll { $0.source == "page" || $0.source == "identity-pattern" } }

            guard case let (forged, whole)? = forgedIdentity(payload) else {
                // Nothing forged about the identity: any login is the acceptance.
                guard accepted else { return result(.rejected, evidence, reason) }
                let who = ObservedIdentity.classify(observations, signed: material.nameID, forged: material.victimNameID)
                let named = Self.named(who)
                if let named { evidence.detail += "; logged in as \(named)" }
                if let policy = product?.policy(for: attack.id) {
                    evidence.detail += "; a documented default of \(policy.product): \(policy.setting)"
                    return result(.policy, evidence, reason, named, policy)
                }
                return result(.accepted, evidence, reason, named)
            }
            let who = ObservedIdentity.classify(observations, signed: material.nameID, forged: forged, whole: whole)
            let named = Self.named(who)
            if case .forged(let identity, let source) = who {
                evidence.detail += accepted ? "; logged in as \(identity) (\(source))"
                    : "; the page refused it, but the SP's \(source) shows \(identity) logged in"
                if whole != nil { evidence.detail += ", the text before the comment (vulnerable)" }
                return result(.accepted, evidence, reason, named)
            }
            guard accepted else { return result(.rejected, evidence, reason, named) }
            switch who {
            case .whole(let identity, let source):
                evidence.detail += "; logged in as the whole NameID \(identity) (\(source))"
                return result(.readWhole, evidence, reason, named)
            case .signed(let identity, let source):
                evidence.detail += "; logged in as \(identity), the subject the IdP signed (\(source)): the forged content was ignored"
                return result(.ignoredForgery, evidence, reason, named)
            case .other(let identity, let source):
                evidence.detail += "; logged in as \(identity) (\(source)), neither \(forged) nor \(whole ?? material.nameID)"
                return result(.inconclusive, evidence, reason, named)
            case .unknown, .forged:
                evidence.detail += "; the SP logged someone in but nothing shows whom (\(forged) or \(whole ?? material.nameID)): "
                    + "show the user on the page or give --identity-pattern, --session-url or --sp-log"
                return result(.inconclusive, evidence, reason)
            }
        } catch {
            return result(.inconclusive, AttackEvidence(status: nil, finalURL: nil, detail: "\(error)"), reason)
        }
    }

    /// The identity an attack forges and, for `nameid-comment`, the genuinely signed whole
    /// NameID; nil for attacks that keep the signed subject (an expired or SHA-1 Response…).
    func forgedIdentity(_ payload: AttackPayload) -> (String, String?)? {
        if case .readWhole(let whole, let truncated) = payload.expectation { return (truncated, whole) }
        let victim = XMLWriter.escapeText(material.victimNameID)
        return payload.attackResponse.contains(">\(victim)<") ? (material.victimNameID, nil) : nil
    }

    static func named(_ who: ObservedIdentity) -> String? {
        switch who {
        case .forged(let id, let source), .whole(let id, let source), .signed(let id, let source), .other(let id, let source):
            "\(id) (\(source))"
        case .unknown: nil
        }
    }

    func post(_ response: String) async throws -> AttackBrowser.Outcome {
        try await browser.post(response: response, to: target.acsURL, relayState: relayState)
    }
}
