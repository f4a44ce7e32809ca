import Foundation
import MockServers

/// What the traffic says about a refusal a negative scenario sets up, read before the
/// client's words (issue 17 §8): the relying party's refusal the scenario's knobs must cause
/// (the SP's reason code), a different refusal the client caused instead (it rewrote the
/// Response), or a token the client handed on unvalidated that the relying party refuses.
enum RefusalEvidence {
    /// A relying party's refusal in the traffic: the SP's `sp.rejected` code.
    struct Refusal {
        let code: String
        let entry: TrafficEntry
    }

    /// The SP reason codes the scenario's knobs make an SP give (``Knob/expectedSPReason``).
    static func expectedCodes(_ scenario: Scenario) -> Set<String> {
        if let refusal = scenario.expect.refusal { return [refusal] }
        let rules = scenario.spRules ?? SPRules()
        return Set((scenario.knobs ?? []).compactMap { try? Knob(parsing: $0) }.compactMap { $0.expectedSPReason(under: rules) })
    }

    /// The SP's refusals in the run, in order. An ECP client's SOAP fault (`ecp.client-fault`,
    /// saml-ecp-v2.0 §2.3.5) is the client refusing by itself, not the SP judging the
    /// scenario's defect: it is left out, and the client's own words are judged.
    static func refusals(_ entries: [TrafficEntry]) -> [Refusal] {
        entries.compactMap { entry in
            guard entry.mock == "sp", let code = entry.annotations["sp.rejected"], code != "ecp.client-fault" else { return nil }
            return Refusal(code: code, entry: entry)
        }
    }

    /// By hand (`serve`: no client report), the SP's refusal to name in the verdicts — the one
    /// the scenario sets up when it happened, else the first — and the words naming it
    /// (`the SP refused the login with message.not-yet-valid in #7`). Nil when the SP refused
    /// nothing.
    static func byHand(_ scenario: Scenario, _ entries: [TrafficEntry]) -> (refusal: Refusal, words: String)? {
        let refusals = refusals(entries)
        let expected = expectedCodes(scenario)
        guard let refusal = refusals.first(where: { expected.contains($0.code) }) ?? refusals.first else { return nil }
        let other = expected.isEmpty || expected.contains(refusal.code)
            ? "" : " (the scenario sets up \(expected.sorted().joined(separator: " or ")))"
        return (refusal, "the SP refused the login with \(refusal.code) in #\(refusal.entry.sequence)\(other)")
    }

    /// Whether the client says it judges SAML itself, for defects with these SP reason codes
    /// (`details.validates_saml` and its synonyms, a comma-separated list): `true`/`strict`
    /// covers every defect; `signature-present` a missing signature; `time-conditions` an
    /// expired or not-yet-valid token or assertion. docs/running-clients.md.
    static func declaresValidation(_ execution: ClientExecution, of codes: Set<String>) -> Bool {
        let details = execution.report?.details ?? [:]
        let tokens = Set(["saml_validation", "validates_saml", "validation"].compactMap { details[$0]?.lowercased() }
            .flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) })
        if !tokens.isDisjoint(with: ["true", "yes", "on", "strict"]) { return true }
        guard !codes.isEmpty else { return false }
        return codes.allSatisfy { code in
            (tokens.contains("signature-present") && code == "signature.missing")
                || (tokens.contains("time-conditions") && timeCodes.contains(code))
        }
    }

    /// The SP reason codes of a token or assertion outside its validity window.
    static let timeCodes: Set<String> = ["subject-confirmation.expired", "conditions.not-yet-valid", "conditions.expired",
                                         "message.expired", "message.not-yet-valid"]

    /// WS-Trust has no relying party in the traffic: the client's result is the token it
    /// would present. A client that declares no SAML validation hands it on, and the
    /// relying party's verdict counts — the defect the AD FS mock put into the token (its
    /// knob's reason, as the SP gives it in the browser flows). Nil when the flow is not
    /// WS-Trust, the token is sound, or the client declares validation (it is held to it).
    /// AD FS's last WS-Trust answer with a token, and the knobs it was issued under (its
    /// `adfs.knobs` annotation, else the scenario's).
    static func issuedToken(_ entries: [TrafficEntry], scenarioKnobs: [Knob]) -> (entry: TrafficEntry, knobs: [Knob])? {
        let issued = entries.last { entry in
            entry.mock == "adfs" && entry.response?.status == 200 && entry.request.path.contains("/adfs/services/trust")
        }
        guard let issued else { return nil }
        return (issued, knobs(of: issued, key: "adfs.knobs", otherwise: scenarioKnobs))
    }

    /// The knobs a mock annotated an answer with (`idp.knobs`, `adfs.knobs`), else `otherwise`.
    static func knobs(of entry: TrafficEntry, key: String, otherwise: [Knob]) -> [Knob] {
        let annotated = (entry.annotations[key] ?? "").split(separator: " ").compactMap { try? Knob(parsing: String($0)) }
        return annotated.isEmpty ? otherwise : annotated
    }

    static func relyingPartyRefusesToken(_ scenario: Scenario, _ entries: [TrafficEntry],
                                         _ execution: ClientExecution) -> (code: String, entry: TrafficEntry)? {
        guard scenario.flow == .adfsWSTrust,
              let (issued, knobs) = issuedToken(entries, scenarioKnobs: (scenario.knobs ?? []).compactMap { try? Knob(parsing: $0) })
        else { return nil }
        let codes = Set(knobs.compactMap(\.expectedSPReason))
        guard let code = codes.sorted().first, !declaresValidation(execution, of: codes) else { return nil }
        return (code, issued)
    }
}
