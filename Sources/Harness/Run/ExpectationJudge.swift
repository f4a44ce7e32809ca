import Foundation
import MockServers

/// Judges a run against the scenario's `expect`, from the truth the mocks know — never from
/// the client's claim: `flow.resource-obtained`, `flow.failure-reported` and
/// `flow.no-false-success`; every other check a scenario names by its implementation in
/// ``CheckRegistry``, or as `not-evaluated` when this build has none.
public enum ExpectationJudge {
    /// The checks this build evaluates.
    public static var evaluated: Set<String> {
        Set(["flow.resource-obtained", "flow.failure-reported", "flow.no-false-success"])
            .union(CheckRegistry.implementations.keys)
    }

    public static func verdicts(scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry],
                                execution: ClientExecution, truth: Truth) -> [Verdict] {
        var uses = scenario.checks
        // The expectation is always judged, named or not.
        let implied = scenario.expect.outcome == .success ? "flow.resource-obtained" : "flow.failure-reported"
        if !uses.contains(where: { $0.id == implied }) { uses.insert(CheckUse(id: implied), at: 0) }
        if !uses.contains(where: { $0.id == "flow.no-false-success" }) { uses.append(CheckUse(id: "flow.no-false-success")) }
        // Security and encoding judge every scenario of their flows (issue 35, item 9): one
        // behaviour, one verdict, whichever scenario showed it. A check the scenario does not
        // list counts only where it applied: its not-applicable verdict is left out.
        let flowWide = flowWideChecks(for: scenario.flow).filter { id in !uses.contains(where: { $0.id == id }) }
        let listed = uses.count
        uses += flowWide.map { CheckUse(id: $0, level: CheckCatalog.descriptor($0)?.onlyRecommended == nil ? .required : .recommended) }
        return uses.enumerated().compactMap { index, use -> Verdict? in
            let verdict = judge(use, scenario: scenario, target: target, entries: entries, execution: execution, truth: truth)
            if index >= listed, verdict.status == .notApplicable || verdict.status == .notEvaluated { return nil }
            return verdict
        }
    }

    /// The security and encoding checks that judge every scenario of `flow`, in catalog order,
    /// and the protocol checks that judge what every request of a flow must carry (an ECP
    /// client's PAOS headers: the same traffic gets the same verdict in every ECP scenario).
    public static func flowWideChecks(for flow: Flow) -> [String] { flowWide[flow] ?? [] }

    /// ``flowWideChecks(for:)`` of every flow, worked out once (every scenario asks).
    private static let flowWide: [Flow: [String]] = Dictionary(uniqueKeysWithValues: Flow.allCases.map { flow in
        (flow, CheckCatalog.all.filter { ([.security, .encoding].contains($0.category) || everyRequestChecks.contains($0.id))
            && $0.applies(to: flow) && CheckRegistry.implementations[$0.id] != nil }.map(\.id))
    })

    /// Protocol checks of what every request of their flow carries.
    static let everyRequestChecks: Set<String> = ["ecp.paos-headers"]

    static func judge(_ use: CheckUse, scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry],
                      execution: ClientExecution, truth: Truth) -> Verdict {
        switch use.id {
        case "flow.resource-obtained": resourceObtained(use, execution, truth, scenario: scenario, entries: entries)
        case "flow.failure-reported": failureReported(use, scenario, execution, truth, entries: entries)
        case "flow.no-false-success": noFalseSuccess(use, execution, truth)
        default:
            if let check = CheckRegistry.implementations[use.id] {
                verdict(check, use, CheckContext(scenario: scenario, target: target, entries: entries,
                                                 execution: execution, truth: truth, params: use.params))
            } else {
                Verdict(check: use.id, level: use.level, status: .notEvaluated,
                        reason: "this build does not evaluate `\(use.id)` yet")
            }
        }
    }

    static func verdict(_ check: any Check, _ use: CheckUse, _ context: CheckContext) -> Verdict {
        switch check.evaluate(context) {
        case .pass(let reason, let evidence):
            Verdict(check: use.id, level: use.level, status: .pass, reason: reason, evidence: evidence)
        case .fail(let reason, let evidence):
            Verdict(check: use.id, level: use.level, status: .fail, reason: reason, evidence: evidence)
        case .notApplicable(let reason):
            Verdict(check: use.id, level: use.level, status: .notApplicable, reason: reason)
        }
    }

    static func resourceObtained(_ use: CheckUse, _ execution: ClientExecution, _ truth: Truth,
                                 scenario: Scenario? = nil, entries: [TrafficEntry] = []) -> Verdict {
        if execution.byHand {
            // A device or simulator writes no report: the resource counts as obtained when the
            // mocks served it (a 2xx answer carrying the secret, ticket validation or book).
            if let token = truth.served {
                return Verdict(check: use.id, level: use.level, status: .pass,
                               reason: "the mocks served the \(token.kind) to the client (by hand: no client report)",
                               evidence: [Evidence(exchange: token.exchange, detail: token.kind, excerpt: token.value)])
            }
            // The SP's page states its refusal; so does the verdict.
            if let scenario, let refused = RefusalEvidence.byHand(scenario, entries) {
                return Verdict(check: use.id, level: use.level, status: .fail,
                               reason: "\(refused.words), and the mocks never served the resource (by hand: no client report)",
                               evidence: [Evidence(exchange: refused.refusal.entry.sequence, mock: refused.refusal.entry.mock,
                                                   detail: "the SP's refusal (\(refused.refusal.code))")])
            }
            return Verdict(check: use.id, level: use.level, status: .fail,
                           reason: "the mocks never served the resource to the client (by hand: no client report)")
        }
        if let token = truth.found(in: execution.report?.resource) {
            return Verdict(check: use.id, level: use.level, status: .pass,
                           reason: "the client's resource holds the \(token.kind) the mocks issued",
                           evidence: [Evidence(exchange: token.exchange, detail: token.kind, excerpt: token.value)])
        }
        var evidence = truth.tokens.prefix(3).map { Evidence(exchange: $0.exchange, detail: "issued \($0.kind)", excerpt: $0.value) }
        evidence.append(Evidence(detail: "the client's resource", excerpt: excerpt(execution.report?.resource)))
        let reason = truth.tokens.isEmpty
            ? "the mocks never issued the resource (no secret, ticket validation, book or token in the traffic)"
            : "none of the \(truth.tokens.count) value(s) the mocks issued appears in the client's resource"
        return Verdict(check: use.id, level: use.level, status: .fail,
                       reason: reason + (execution.reportProblem.map { "; \($0)" } ?? ""), evidence: evidence)
    }

    static func failureReported(_ use: CheckUse, _ scenario: Scenario, _ execution: ClientExecution,
                                _ truth: Truth, entries: [TrafficEntry] = []) -> Verdict {
        func verdict(_ status: Verdict.Status, _ reason: String, _ evidence: [Evidence] = []) -> Verdict {
            Verdict(check: use.id, level: use.level, status: status, reason: reason, evidence: evidence)
        }
        if execution.byHand {
            if let token = truth.served {
                return verdict(.fail, "the mocks served the \(token.kind) where the login had to fail",
                               [Evidence(exchange: token.exchange, detail: token.kind, excerpt: token.value)])
            }
            let shown = "by hand, what the app showed\(scenario.expect.error.map { " (`\($0)` expected)" } ?? "") is for you to see"
            if let refused = RefusalEvidence.byHand(scenario, entries) {
                return verdict(.pass, "\(refused.words), and the resource was never served; " + shown,
                               [Evidence(exchange: refused.refusal.entry.sequence, mock: refused.refusal.entry.mock,
                                         detail: "the SP's refusal (\(refused.refusal.code))")])
            }
            return verdict(.pass, "the resource was never served; " + shown)
        }
        // Crashing is not reporting (docs/running-clients.md, "What counts as reporting").
        if let crash = execution.crash {
            return verdict(.fail, "the client crashed (\(crash)); a crash is not a reported failure",
                           [Evidence(detail: "the client's last output", excerpt: excerpt(ClientEnding.lastLines(execution)))])
        }
        // One rule for every token: a client that does not validate SAML itself hands the
        // token to the relying party, whose verdict counts.
        if truth.found(in: execution.report?.resource) != nil,
           let refused = RefusalEvidence.relyingPartyRefusesToken(scenario, entries, execution) {
            return verdict(.pass, "the client does not validate SAML itself and handed the token of #\(refused.entry.sequence) on; the relying party refuses it (\(refused.code))",
                           [Evidence(exchange: refused.entry.sequence, mock: refused.entry.mock, detail: "token issued with its defect (\(refused.code))")])
        }
        if let token = truth.found(in: execution.report?.resource) {
            return verdict(.fail, "the client obtained the resource (\(token.kind)) where it had to fail",
                           [Evidence(exchange: token.exchange, detail: token.kind, excerpt: token.value)])
        }
        if execution.claimsSuccess {
            return verdict(.fail, "the client reported success; it had to fail naming `\(scenario.expect.error ?? "")`",
                           [Evidence(detail: "exit status \(execution.status.map(String.init) ?? "none")", excerpt: excerpt(execution.report?.outcome))])
        }
        // The traffic first: the refusal the scenario's knobs set up, by the SP.
        let expected = RefusalEvidence.expectedCodes(scenario)
        let refusals = RefusalEvidence.refusals(entries)
        if !expected.isEmpty, let first = refusals.first {
            if let hit = refusals.first(where: { expected.contains($0.code) }) {
                return verdict(.pass, "the SP refused the login with \(hit.code) in #\(hit.entry.sequence), as the scenario sets up, and the client stopped and reported a failure",
                               [Evidence(exchange: hit.entry.sequence, mock: hit.entry.mock, detail: "the SP's refusal (\(hit.code))"),
                                Evidence(detail: "the client's error", excerpt: excerpt(execution.report?.error ?? execution.stderr))])
            }
            return verdict(.fail, "the SP refused with \(first.code) in #\(first.entry.sequence), not with \(expected.sorted().joined(separator: " or ")) the scenario sets up: what stopped the login was something the client changed, not the scenario's defect",
                           [Evidence(exchange: first.entry.sequence, mock: first.entry.mock, detail: "the SP's refusal (\(first.code))")])
        }
        // The traffic first for a transport fault: the mock cut an answer short (or never
        // gave one); a client that then went on as if it had the page (posted a form read from
        // half a page) did not notice, whatever its words.
        if let cut = entries.first(where: { Self.faulted($0.response?.delivery) }) {
            let path = { (entry: TrafficEntry) in entry.request.target.split(separator: "?").first.map(String.init) ?? entry.request.target }
            if let after = entries.first(where: { $0.sequence > cut.sequence && $0.mock == cut.mock && path($0) != path(cut) && $0.mock != "control" }) {
                return verdict(.fail, "the mock cut #\(cut.sequence) short (\(Self.faultName(cut))), yet the client went on to \(after.request.method) \(path(after)) in #\(after.sequence) as if it had the whole answer",
                               [Evidence(exchange: cut.sequence, mock: cut.mock, detail: "the fault"),
                                Evidence(exchange: after.sequence, mock: after.mock, detail: "the request after it")])
            }
        }
        // The client refused by itself (nothing it sent was refused for the scenario's
        // reason): its own report must name the error. The result's `error` is read alone
        // when the client wrote one, so a word in an unrelated log line does not count.
        let said = (execution.report?.error).flatMap { $0.isEmpty ? nil : $0 } ?? execution.errorText
        let named = FaultWords.describe(scenario.expect.error ?? "")
        let cut = entries.first(where: { Self.faulted($0.response?.delivery) })
        let traffic = cut.map { [Evidence(exchange: $0.sequence, mock: $0.mock, detail: "the fault (\(Self.faultName($0)))")] } ?? []
        guard scenario.expect.names(said) else {
            return verdict(.fail, "the client failed, but its error does not name `\(named)`",
                           traffic + [Evidence(detail: "the client's error", excerpt: excerpt(said))])
        }
        let stopped = cut.map { "the client stopped after the fault of #\($0.sequence) and named `\(named)`" }
        return verdict(.pass, stopped ?? "the client stopped and named `\(named)`",
                       traffic + [Evidence(detail: "the client's error", excerpt: excerpt(said))])
    }

    /// A delivery the mock deliberately broke (a cut-off body, a reset, no answer).
    static func faulted(_ delivery: MockResponse.Delivery?) -> Bool {
        switch delivery {
        case .truncated, .reset, .noAnswer: true
        default: false
        }
    }

    static func faultName(_ entry: TrafficEntry) -> String {
        switch entry.response?.delivery {
        case .truncated: entry.annotations["transport"] ?? "a cut-off body"
        case .reset: entry.annotations["transport"] ?? "a reset"
        case .noAnswer: "no answer, the connection closed"
        default: "a fault"
        }
    }

    static func noFalseSuccess(_ use: CheckUse, _ execution: ClientExecution, _ truth: Truth) -> Verdict {
        if execution.byHand {
            return Verdict(check: use.id, level: use.level, status: .notApplicable, reason: "by hand, the client reports nothing")
        }
        guard execution.claimsSuccess else {
            return Verdict(check: use.id, level: use.level, status: .pass, reason: "the client did not claim success")
        }
        if let token = truth.found(in: execution.report?.resource) {
            return Verdict(check: use.id, level: use.level, status: .pass,
                           reason: "the client's success is backed by the \(token.kind) the mocks issued")
        }
        return Verdict(check: use.id, level: use.level, status: .fail,
                       reason: "the client claimed success, but what it returned holds nothing the mocks issued",
                       evidence: [Evidence(detail: "the client's resource", excerpt: excerpt(execution.report?.resource))])
    }

    static func excerpt(_ text: String?) -> String? {
        guard let text else { return nil }
        return text.count > 400 ? String(text.prefix(400)) + "…" : text
    }
}
