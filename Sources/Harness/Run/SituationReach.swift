import Foundation
import MockServers

/// Whether a run reached the situation its scenario is named for, beyond ``Scenario/exercises``
/// (issue 35, item 4): a scenario about the origin behind a proxy never reached it when the
/// proxy refused every request with 407. The outcome checks then judge nothing (their verdicts
/// become not-applicable with the reason), a precise check that failed (the proxy password's
/// encoding) stays the root cause, and without one the scenario is an error naming the 407.
enum SituationReach {
    /// The checks that judge how the login ended, which mean nothing when it never began.
    static let outcomeChecks: Set<String> = [
        "flow.failure-reported", "flow.resource-obtained", "flow.no-false-success", "flow.bad-password-bounded",
        "httpauth.challenge-answered", "security.proxy-credentials-only-to-proxy",
    ]

    /// Why the situation never arose, or nil.
    static func unreached(_ scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry]) -> String? {
        guard scenario.flow == .proxy else { return nil }
        // A scenario about the proxy's own refusal is reached by the 407, and one about the
        // proxy's own authentication (its NTLM 407) by the proxy's handshake.
        if scenario.expect.errorWords.contains("407") { return nil }
        if (scenario.knobs ?? []).contains(where: { $0.hasPrefix("ntlm-proxy") }) { return nil }
        let http = entries.filter { $0.isHTTP && $0.mock != "control" }
        let proxied = http.filter { $0.mock == "proxy" }
        guard let first = proxied.first,
              proxied.allSatisfy({ $0.response?.status == 407 }),
              !http.contains(where: { $0.mock != "proxy" }) else { return nil }
        let sent = proxied.compactMap { entry in
            Credentials.basicCredentials(entry.request.header("Proxy-Authorization")).map { (entry, $0.password) }
        }
        var how = "the client never sent Proxy-Authorization"
        if let (entry, password) = sent.first {
            how = "its Proxy-Authorization of #\(entry.sequence) was refused"
            if let proxyPassword = target.parameters["PROXY_PASSWORD"], password != Array(proxyPassword.utf8) {
                let encoding = SecretForms(proxyPassword)?.encoding(of: password)
                how += " (the proxy password went \(encoding.map { "as \($0)" } ?? "mangled"), not as the UTF-8 the 407 asked for)"
            }
        } else if !proxied.contains(where: { $0.request.header("Proxy-Authorization") == nil }) {
            how = "its proxy credentials were refused"
        }
        return "the situation this scenario exists for never arose: the proxy answered every request with 407 (first in #\(first.sequence)) and nothing reached the origin behind it; \(how)"
    }

    /// `verdicts` with the outcome checks made not-applicable for `reason`.
    static func withoutOutcome(_ verdicts: [Verdict], _ reason: String) -> [Verdict] {
        verdicts.map { verdict in
            guard outcomeChecks.contains(verdict.check), verdict.status != .notApplicable else { return verdict }
            var copy = verdict
            copy.status = .notApplicable
            copy.reason = "not judged: " + reason
            return copy
        }
    }
}
