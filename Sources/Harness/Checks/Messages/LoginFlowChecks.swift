import Foundation
import MockServers

/// The password submissions of a run, as the mocks judged them.
enum PasswordSubmissions {
    struct Submission {
        let entry: TrafficEntry
        /// `ok`, `bad-password`, `locked`, `wrong-credentials`, `unknown-user`…
        let outcome: String
        var rejected: Bool { outcome != "ok" }
    }

    /// Every password submission of the run, behind the proxy too: the origin's verdict on a
    /// request the client sent through the proxy is on the copy the proxy relayed (the
    /// proxy's own exchange carries only its verdict on Proxy-Authorization), so the relayed
    /// copies are read here, and the proxy's exchanges only for a refused proxy password.
    static func all(_ entries: [TrafficEntry]) -> [Submission] {
        entries.filter { $0.mock != "control" }.compactMap { entry in
            let a = entry.annotations
            if entry.mock == "proxy" {
                guard let value = a["auth.result"], ["wrong-credentials", "malformed"].contains(value) else { return nil }
                return Submission(entry: entry, outcome: "\(value) (proxy)")
            }
            if let value = a["idp.login"], ["ok", "bad-password", "locked"].contains(value),
               entry.request.method == "POST" || entry.request.header("Authorization") != nil {
                return Submission(entry: entry, outcome: value)
            }
            if let value = a["cas.login"], ["ok", "bad-password"].contains(value), entry.request.method == "POST" {
                return Submission(entry: entry, outcome: value)
            }
            if let value = a["adfs.login"], ["ok", "bad-password", "unknown-user"].contains(value) {
                return Submission(entry: entry, outcome: value)
            }
            if a["adfs.fault"]?.contains("FailedAuthentication") == true, !(a["adfs.knobs"] ?? "").contains("adfs-fault") {
                return Submission(entry: entry, outcome: "bad-password")
            }
            // A Digest answer refused as malformed or replayed is a submission too: a client
            // that loops on it sends the password's hash again and again.
            if let value = a["auth.result"], ["ok", "wrong-credentials", "malformed", "replayed-nc"].contains(value),
               value == "ok" || value == "wrong-credentials" || entry.request.header("Authorization") != nil {
                return Submission(entry: entry, outcome: value)
            }
            return nil
        }
    }
}

/// A second login in the same session reuses the IdP session instead of sending the password
/// again. SAML 2.0 Profiles §4.1.4.2; Shibboleth `_idp_session`.
struct IdPSessionReusedCheck: Check {
    static let id = "flow.idp-session-reused"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        let starts = entries.filter { entry in
            (entry.mock == "idp" && entry.request.queryValue("SAMLRequest") != nil)
                || (entry.mock == "idp" && entry.request.path.contains("Unsolicited"))
                || (entry.mock == "cas" && entry.request.path.hasSuffix("/login") && entry.request.method == "GET")
                || (entry.mock == "adfs" && entry.request.queryValue("SAMLRequest") != nil)
                // AD FS's IdP-initiated sign-on page (GET): each visit starts a login.
                || (entry.mock == "adfs" && entry.request.method == "GET" && entry.request.path.lowercased().hasSuffix("/idpinitiatedsignon.aspx"))
        }
        guard starts.count >= 2 else { return .notApplicable("the client logged in only once (\(starts.count) login start(s))") }
        let submissions = PasswordSubmissions.all(context.entries)
        guard let firstOK = submissions.first(where: { !$0.rejected }) else {
            return .notApplicable("the first login never succeeded")
        }
        let sessionSet = CookieTraffic.records(entries).contains {
            $0.entry.mock == firstOK.entry.mock && !$0.removes && $0.entry.sequence >= firstOK.entry.sequence
                && $0.entry.sequence < starts[starts.count - 1].sequence
        }
        guard sessionSet else { return .notApplicable("the IdP set no session cookie after the first login") }
        let second = starts.first { $0.sequence > firstOK.entry.sequence } ?? starts[1]
        if let again = submissions.first(where: { $0.entry.sequence > second.sequence }) {
            return .fail("the second login (from #\(second.sequence)) sent the password again in #\(again.entry.sequence) instead of reusing the IdP session",
                         [MessageTraffic.evidence(second, "the second login's start",
                                                  excerpt: "Cookie: " + second.request.headers(named: "Cookie").joined(separator: "; ")),
                          MessageTraffic.evidence(again.entry, "password submission (\(again.outcome))")])
        }
        let reused = entries.first { entry in
            entry.sequence >= second.sequence && (entry.annotations["idp.session"] == "reused" || entry.annotations["cas.login"] == "sso"
                || (entry.mock == "adfs" && (entry.annotations["adfs.result"] == "response" || entry.annotations["adfs.page"] == "signed-in")))
        }
        guard let reused else {
            return .notApplicable("the second login (from #\(second.sequence)) sent no password, but no IdP answer after it shows a reused session (the client stopped first)")
        }
        return .pass("the second login went through without the password (session reused in #\(reused.sequence))",
                     [MessageTraffic.evidence(reused, "IdP session reused")])
    }
}

/// After a rejected password the client stops within a bounded number of tries instead of
/// looping. OWASP ASVS 2.2.1; Shibboleth re-challenge behaviour.
struct BadPasswordBoundedCheck: Check {
    static let id = "flow.bad-password-bounded"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let limit = context.integer("max_attempts", check: Self.id) ?? 3
        let submissions = PasswordSubmissions.all(context.entries)
        guard let firstRejected = submissions.first(where: \.rejected) else {
            return .notApplicable("no password was rejected in this run")
        }
        if submissions.count > limit {
            return .fail("the client submitted a password \(submissions.count) times; at most \(limit) are allowed",
                         [MessageTraffic.evidence(firstRejected.entry, "first rejection (\(firstRejected.outcome))"),
                          MessageTraffic.evidence(submissions[limit].entry, "submission \(limit + 1) (\(submissions[limit].outcome))"),
                          MessageTraffic.evidence(submissions[submissions.count - 1].entry, "submission \(submissions.count)")])
        }
        return .pass("the client stopped after \(submissions.count) password submission(s) (at most \(limit))",
                     submissions.map { MessageTraffic.evidence($0.entry, "password submission (\($0.outcome))") })
    }
}

/// Once the IdP says the account is locked the client stops and reports it. Shibboleth
/// AccountLocked; NIST SP 800-63B §5.2.2.
struct LockoutRespectedCheck: Check {
    static let id = "flow.lockout-respected"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let submissions = PasswordSubmissions.all(context.entries)
        guard let locked = submissions.first(where: { $0.outcome == "locked" }) else {
            return .notApplicable("the IdP never said the account is locked in this run")
        }
        if let after = submissions.first(where: { $0.entry.sequence > locked.entry.sequence }) {
            return .fail("the client sent the password again in #\(after.entry.sequence) after the IdP locked the account in #\(locked.entry.sequence)",
                         [MessageTraffic.evidence(locked.entry, "Account Locked"), MessageTraffic.evidence(after.entry, "another submission")])
        }
        if context.execution.claimsSuccess {
            return .fail("the client reported success after the IdP locked the account in #\(locked.entry.sequence)",
                         [MessageTraffic.evidence(locked.entry, "Account Locked")])
        }
        return .pass("the client stopped at the lockout of #\(locked.entry.sequence)", [MessageTraffic.evidence(locked.entry, "Account Locked")])
    }
}

/// The attribute-release consent page is answered (accept or decline as the scenario asks),
/// not skipped or looped. Shibboleth IdP consent flow.
struct ConsentAnsweredCheck: Check {
    static let id = "flow.consent-answered"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        let pages = entries.filter { $0.annotations["idp.page"] == "consent" }
        guard !pages.isEmpty else { return .notApplicable("no consent page was shown in this run") }
        let wanted = (context.scenario.options?.consent ?? "accept") == "decline" ? "rejected" : "accepted"
        let answers = entries.filter { $0.annotations["idp.consent"] != nil }
        guard let answer = answers.first(where: { $0.sequence > pages[0].sequence }) else {
            return .fail("the consent page of #\(pages[0].sequence) was never answered",
                         [MessageTraffic.evidence(pages[0], "consent page")])
        }
        let given = answer.annotations["idp.consent"] ?? ""
        guard given == wanted else {
            return .fail("the consent page of #\(pages[0].sequence) was \(given) in #\(answer.sequence); the scenario asks to have it \(wanted)",
                         [MessageTraffic.evidence(answer, "consent \(given)")])
        }
        if pages.count > 2 * max(answers.count, 1) {
            return .fail("the consent page was shown \(pages.count) times for \(answers.count) answer(s): the client loops",
                         [MessageTraffic.evidence(pages[pages.count - 1], "consent page again")])
        }
        return .pass("consent \(given) in #\(answer.sequence)", [MessageTraffic.evidence(answer, "consent \(given)")])
    }
}

/// The second-factor page gets the one-time code and the login goes on. NIST SP 800-63B
/// §5.1.4; Shibboleth MFA flow.
struct SecondFactorCompletedCheck: Check {
    static let id = "flow.second-factor-completed"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        guard let page = entries.first(where: { $0.annotations["idp.page"] == "second-factor" }) else {
            return .notApplicable("no second-factor page was shown in this run")
        }
        guard let post = entries.first(where: {
            $0.sequence > page.sequence && $0.request.method == "POST" && $0.request.formValue("j_tokenNumber") != nil
        }) else {
            return .fail("the second-factor page of #\(page.sequence) never got a code", [MessageTraffic.evidence(page, "second-factor page")])
        }
        let code = post.request.formValue("j_tokenNumber") ?? ""
        if let given = context.target.secondFactorCode, code != given {
            return .fail("#\(post.sequence) sent the code `\(code)`, not the one given (`\(given)`)", [MessageTraffic.evidence(post, "code sent")])
        }
        if post.annotations["idp.second-factor"] == "wrong-code" {
            if context.target.secondFactorCode != nil {
                return .pass("the client sent the code it was given in #\(post.sequence); the IdP refused it as the scenario wants",
                             [MessageTraffic.evidence(post, "wrong code")])
            }
            return .fail("the IdP refused the code sent in #\(post.sequence)", [MessageTraffic.evidence(post, "wrong code")])
        }
        // The login went on only when the IdP answered the post as a step forward (a redirect,
        // the consent page, the auto-post form), not with an error (a missing csrf_token, a
        // stale execution, a lost flow cookie).
        if let status = post.response?.status, status >= 400 {
            return .fail("the IdP refused the post of #\(post.sequence) that carried the code (HTTP \(status)\(post.annotations["idp.error"].map { ", \($0)" } ?? ""))",
                         [MessageTraffic.evidence(post, "code post refused")])
        }
        guard post.response != nil else { return .notApplicable("the post of #\(post.sequence) that carried the code was never answered") }
        return .pass("the code went in #\(post.sequence) and the login went on", [MessageTraffic.evidence(post, "code accepted")])
    }
}
