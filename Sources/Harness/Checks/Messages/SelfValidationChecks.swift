import Foundation
import MockServers
import SAMLCore

/// Judges a client that validates SAML itself: when the IdP served a Response broken in one
/// way (the knobs on the answer say which), the client refuses it — it never posts it on, or
/// at least never reports a login from it.
struct SelfValidationJudge {
    /// What kind of breakage, for messages.
    let what: String
    /// Whether a knob breaks the Response that way (by the SP reason it causes).
    let breaks: (Knob) -> Bool

    /// Whether the client says it judges SAML itself (`details.validates_saml`): `true` or
    /// `strict` — signatures and conditions; `signature-present` — it refuses unsigned SAML
    /// only, so it is held to that for a Response whose only breakage is a missing signature.
    static func claimsValidation(_ context: CheckContext, of knobs: [Knob]) -> Bool {
        RefusalEvidence.declaresValidation(context.execution, of: Set(knobs.compactMap(\.expectedSPReason)))
    }

    /// ECP: the IdP's SOAP answer carries the Response; a client that validates does not
    /// forward a broken one to the SP's ECP endpoint. Nil when the run served none.
    func ecp(_ context: CheckContext, scenarioKnobs: [Knob]) -> CheckOutcome? {
        let served = context.entries.first { entry in
            entry.mock == "idp" && entry.request.path.hasSuffix("/SOAP/ECP") && entry.response?.status == 200
        }
        guard let served else { return nil }
        let knobs = RefusalEvidence.knobs(of: served, key: "idp.knobs", otherwise: scenarioKnobs).filter(breaks)
        guard !knobs.isEmpty else { return nil }
        let names = knobs.map(\.text).joined(separator: ", ")
        let servedEvidence = MessageTraffic.evidence(served, "ECP Response served with \(names)")
        let forwarded = context.entries.first { entry in
            entry.sequence > served.sequence && entry.mock == "sp" && entry.request.method == "POST"
                && entry.request.path.hasSuffix("/SAML2/ECP")
        }
        guard let forwarded else {
            return .pass("the client refused the ECP Response with \(what) of #\(served.sequence) (\(names)) and never forwarded it",
                         [servedEvidence])
        }
        let claimsValidation = Self.claimsValidation(context, of: knobs)
        let forwardedEvidence = MessageTraffic.evidence(forwarded, "forwarded to the SP")
        if context.execution.claimsSuccess, context.truth.found(in: context.execution.report?.resource) == nil {
            return .fail("the client took the ECP Response with \(what) of #\(served.sequence) as a login", [servedEvidence, forwardedEvidence])
        }
        if claimsValidation {
            return .fail("the client says it validates SAML, yet forwarded the ECP Response with \(what) of #\(served.sequence) (\(names)) in #\(forwarded.sequence)",
                         [servedEvidence, forwardedEvidence])
        }
        return .notApplicable("the client forwarded the ECP Response of #\(served.sequence) without judging it; it does not validate SAML itself")
    }

    /// WS-Trust: AD FS's RSTR carries the token (SAML 1.1 or 2.0); a client that validates
    /// refuses a broken one — it reports no token. One that does not hands it to the relying
    /// party (``RefusalEvidence/relyingPartyRefusesToken(_:_:_:)``). Nil when no broken
    /// token was issued.
    func wstrust(_ context: CheckContext, scenarioKnobs: [Knob]) -> CheckOutcome? {
        guard let (issued, allKnobs) = RefusalEvidence.issuedToken(context.entries, scenarioKnobs: scenarioKnobs) else { return nil }
        let knobs = allKnobs.filter(breaks)
        guard !knobs.isEmpty else { return nil }
        let names = knobs.map(\.text).joined(separator: ", ")
        let issuedEvidence = MessageTraffic.evidence(issued, "token issued with \(names)")
        let took = context.execution.claimsSuccess && context.truth.found(in: context.execution.report?.resource) != nil
        guard Self.claimsValidation(context, of: knobs) else {
            return took
                ? .notApplicable("the client took the token of #\(issued.sequence) without judging it (it declares no SAML validation); the relying party judges it")
                : .pass("the client refused the token with \(what) of #\(issued.sequence) (\(names))", [issuedEvidence])
        }
        if took || context.execution.claimsSuccess {
            return .fail("the client says it validates SAML, yet took the token with \(what) of #\(issued.sequence) (\(names))", [issuedEvidence])
        }
        return .pass("the client refused the token with \(what) of #\(issued.sequence) (\(names))", [issuedEvidence])
    }

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let served = SAMLPostTraffic.servedForms(context.entries, field: "SAMLResponse")
        let scenarioKnobs = (context.scenario.knobs ?? []).compactMap { try? Knob(parsing: $0) }
        let broken = served.compactMap { form -> (ServedSAMLForm, [Knob])? in
            let annotated = [form.entry.annotations["idp.knobs"], form.entry.annotations["adfs.knobs"]].compactMap { $0 }
                .flatMap { $0.split(separator: " ") }.compactMap { try? Knob(parsing: String($0)) }
            let knobs = (annotated.isEmpty ? scenarioKnobs : annotated).filter(breaks)
            return knobs.isEmpty ? nil : (form, knobs)
        }
        guard let (form, knobs) = broken.first else {
            return ecp(context, scenarioKnobs: scenarioKnobs) ?? wstrust(context, scenarioKnobs: scenarioKnobs)
                ?? .notApplicable("the IdP served no Response or token with \(what) in this run")
        }
        let names = knobs.map(\.text).joined(separator: ", ")
        let formEvidence = MessageTraffic.evidence(form.entry, "Response served with \(names)")
        let posts = SAMLPostTraffic.posted(context.entries, field: "SAMLResponse").filter {
            SAMLPostTraffic.source(of: $0, in: served)?.entry.sequence == form.entry.sequence
        }
        guard let post = posts.first else {
            // Addressed to a relying party outside the harness (AD FS to AWS): not posting it
            // here shows nothing; what the client did with it is seen only in its claim.
            let origins = Set(context.entries.map(\.request.origin)).union(MessageTraffic.receivers(context.entries).keys)
            if let target = URLParts(form.action), !origins.contains(target.origin) {
                let took = context.execution.claimsSuccess
                if took, Self.claimsValidation(context, of: knobs) {
                    return .fail("the client says it validates SAML, yet reported success with the Response with \(what) of #\(form.entry.sequence) (\(names)), addressed to \(target.origin)", [formEvidence])
                }
                return .notApplicable("the Response of #\(form.entry.sequence) was addressed to a relying party outside the harness (\(target.origin)); "
                                      + (took ? "the client took it without declaring SAML validation: that relying party judges it" : "the client did not claim it"))
            }
            return .pass("the client refused the Response with \(what) of #\(form.entry.sequence) (\(names)) and never posted it", [formEvidence])
        }
        let spVerdict = post.entry.annotations["sp.rejected"].map { "the SP refused it: \($0)" } ?? "the SP accepted it"
        let postEvidence = MessageTraffic.evidence(post.entry, "posted on to the SP; \(spVerdict)")
        if context.execution.claimsSuccess, context.truth.found(in: context.execution.report?.resource) == nil {
            return .fail("the client took the Response with \(what) of #\(form.entry.sequence) (\(names)) as a login and reported success",
                         [formEvidence, postEvidence])
        }
        let claimsValidation = Self.claimsValidation(context, of: knobs)
        if claimsValidation {
            return .fail("the client says it validates SAML, yet posted the Response with \(what) of #\(form.entry.sequence) (\(names)) in #\(post.entry.sequence)",
                         [formEvidence, postEvidence])
        }
        return .notApplicable("the client passed the Response of #\(form.entry.sequence) on to the SP without judging it (\(spVerdict)); it does not validate SAML itself")
    }
}

/// A client that validates SAML itself refuses an unsigned, wrongly signed or wrapped
/// response. SAML 2.0 Core §5; CVE-2017-11427, CVE-2021-21239, XSW.
struct SignatureValidatedCheck: Check {
    static let id = "security.signature-validated"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        SelfValidationJudge(what: "a missing, untrusted or wrapped signature") { knob in
            guard let reason = knob.expectedSPReason else { return false }
            return reason.hasPrefix("signature.") || reason == "assertion.multiple"
        }.evaluate(context)
    }
}

/// A client that validates SAML itself refuses expired, not-yet-valid and wrong-audience
/// assertions. SAML 2.0 Core §2.5.1; Profiles §4.1.4.3.
struct AssertionConditionsValidatedCheck: Check {
    static let id = "security.assertion-conditions-validated"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        SelfValidationJudge(what: "expired, not-yet-valid or foreign-audience conditions") { knob in
            guard let reason = knob.expectedSPReason else { return false }
            return reason.hasPrefix("conditions.") || reason == "subject-confirmation.expired" || reason == "audience.mismatch"
        }.evaluate(context)
    }
}

/// A RelayState, `target` or `redirect_uri` naming another host is not followed blindly (open
/// redirect). SAML 2.0 Bindings §3.4.3; OWASP Unvalidated Redirects.
struct RelayStateNotFollowedCheck: Check {
    static let id = "security.relaystate-not-followed"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        var known = Set(entries.compactMap { URLParts($0.request.origin)?.host })
        if let start = URLParts(context.target.start) { known.insert(start.host) }
        var foreign: [(host: String, url: String, source: String)] = []
        func consider(_ value: String, _ source: String) {
            let lower = value.lowercased()
            let candidate = lower.hasPrefix("//") ? "http:" + value : value
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("//"),
                  let parts = URLParts(candidate), !parts.host.isEmpty, !known.contains(parts.host),
                  !foreign.contains(where: { $0.host == parts.host }) else { return }
            foreign.append((parts.host, value, source))
        }
        for pair in URLParts(context.target.start)?.query ?? [] { consider(pair.value, "the start URL's `\(pair.name)`") }
        for entry in entries {
            for pair in entry.request.query where ["target", "RelayState", "redirect_uri", "return", "returnTo"].contains(pair.name) {
                consider(pair.value, "`\(pair.name)` of #\(entry.sequence)")
            }
        }
        for form in SAMLPostTraffic.servedForms(context.entries) {
            if let relay = form.relayState { consider(relay, "the RelayState served in #\(form.entry.sequence)") }
        }
        guard !foreign.isEmpty else { return .notApplicable("no RelayState, target or redirect_uri named another host in this run") }
        let hosts = Set(foreign.map(\.host))
        if let went = entries.first(where: {
            hosts.contains(MessageTraffic.destinationHost($0)) || hosts.contains(($0.request.header("Host") ?? "").lowercased().split(separator: ":").first.map(String.init) ?? "")
        }) {
            return .fail("the client went to \(MessageTraffic.destinationHost(went)) in #\(went.sequence)", [MessageTraffic.evidence(went, "request to the foreign host")])
        }
        // The traffic decides; a claim can only add what the mocks cannot see (a request to a
        // host outside the harness that failed). The start URL the harness gave the client
        // names the foreign host by design, so any echo of it (raw or decoded, in the error or
        // in `details`) is removed before reading what the client says it did.
        if let claim = Self.claim(naming: hosts, in: context) , let item = foreign.first(where: { $0.host == claim.host }) {
            return .fail("the client says it went to \(claim.host), named by \(item.source), in its \(claim.source)",
                         [Evidence(detail: "the client's \(claim.source)", excerpt: claim.excerpt)])
        }
        return .pass("no request to \(hosts.sorted().joined(separator: ", ")) (named by \(foreign[0].source)) reached the mocks, and the client did not name it (a request to a host outside the harness itself cannot be seen)")
    }

    /// Where the client's own words (its error, then each `details` value) name one of
    /// `hosts` outside any echo of the start URL: the host, which words, and an excerpt around
    /// the match.
    static func claim(naming hosts: Set<String>, in context: CheckContext) -> (host: String, source: String, excerpt: String)? {
        let start = context.target.start
        var echoes = [start, start.removingPercentEncoding ?? start]
        echoes += echoes.map { $0.replacingOccurrences(of: "+", with: " ") }
        echoes.sort { $0.count > $1.count }
        var sources: [(String, String)] = []
        if !context.execution.errorText.isEmpty { sources.append(("error", context.execution.errorText)) }
        for (key, value) in (context.execution.report?.details ?? [:]).sorted(by: { $0.key < $1.key }) {
            sources.append(("details.\(key)", value))
        }
        for (name, text) in sources {
            var rest = text
            for echo in echoes where !echo.isEmpty { rest = rest.replacingOccurrences(of: echo, with: " ") }
            // A value that is only the start URL's own query (target=…) is an echo too.
            for pair in URLParts(start)?.query ?? [] {
                for form in [pair.value, pair.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? pair.value] {
                    rest = rest.replacingOccurrences(of: "\(pair.name)=\(form)", with: " ")
                }
            }
            let lower = rest.lowercased()
            for host in hosts.sorted() {
                guard let range = lower.range(of: host) else { continue }
                let from = lower.index(range.lowerBound, offsetBy: -60, limitedBy: lower.startIndex) ?? lower.startIndex
                let to = lower.index(range.upperBound, offsetBy: 60, limitedBy: lower.endIndex) ?? lower.endIndex
                return (host, name, String(rest[from..<to]))
            }
        }
        return nil
    }
}
