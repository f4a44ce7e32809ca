import Foundation
import MockServers
import SAMLCore

/// 302/303 (and 301 after a POST) are followed with GET and no body; 307/308 keep the method
/// and body. RFC 9110 §15.4.3, §15.4.4, §15.4.8, §15.4.9.
struct RedirectsFollowedCheck: Check {
    static let id = "flow.redirects-followed"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        var evidence: [Evidence] = []
        for (index, redirect) in entries.enumerated() {
            guard let location = MessageTraffic.redirectLocation(redirect), let status = redirect.response?.status,
                  let follow = entries[(index + 1)...].first(where: { MessageTraffic.requested($0, location) }) else { continue }
            let method = follow.request.method, original = redirect.request.method
            let detail = "#\(redirect.sequence) \(status) after \(original) → #\(follow.sequence) \(method)"
            switch status {
            case 307, 308:
                guard method == original, follow.request.body == redirect.request.body else {
                    return .fail("the \(status) of #\(redirect.sequence) was followed with \(method) and \(follow.request.body.count) body bytes; it must keep \(original) and its \(redirect.request.body.count) bytes",
                                 [MessageTraffic.evidence(follow, detail)])
                }
            case 301 where original == "POST" && method == "POST", 302 where original == "POST" && method == "POST":
                // RFC 9110 §15.4.2–3: a user agent MAY keep POST (with its body) on 301/302.
                guard follow.request.body == redirect.request.body else {
                    return .fail("the \(status) of #\(redirect.sequence) was followed with POST but another body; keeping POST means keeping its \(redirect.request.body.count) bytes",
                                 [MessageTraffic.evidence(follow, detail, excerpt: follow.request.bodyText)])
                }
            default:
                let changes = status == 303 || original == "POST"
                let expected = changes ? "GET" : original
                guard method == expected || (method == "HEAD" && original != "POST"), !changes || follow.request.body.isEmpty else {
                    return .fail("the \(status) of #\(redirect.sequence) was followed with \(method)\(follow.request.body.isEmpty ? "" : " and a \(follow.request.body.count)-byte body"); it must be \(expected) without a body",
                                 [MessageTraffic.evidence(follow, detail, excerpt: follow.request.bodyText)])
                }
            }
            evidence.append(MessageTraffic.evidence(follow, detail))
        }
        guard !evidence.isEmpty else { return .notApplicable("the client followed no redirect in this run") }
        return .pass("\(evidence.count) redirect(s) followed with the right method", evidence)
    }
}

/// A redirect loop is broken after a bounded number of hops and reported. RFC 9110 §15.4.
struct RedirectsBoundedCheck: Check {
    static let id = "flow.redirects-bounded"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let limit = context.integer("max_redirects", check: Self.id) ?? 20
        let entries = MessageTraffic.clientEntries(context.entries)
        var followed: [TrafficEntry] = []
        for (index, redirect) in entries.enumerated() {
            guard let location = MessageTraffic.redirectLocation(redirect),
                  entries[(index + 1)...].contains(where: { MessageTraffic.requested($0, location) }) else { continue }
            followed.append(redirect)
        }
        let redirects = entries.filter { MessageTraffic.redirectLocation($0) != nil }
        guard !redirects.isEmpty else { return .notApplicable("no server answered with a redirect in this run") }
        if followed.count > limit {
            return .fail("the client followed \(followed.count) redirects; at most \(limit) are allowed",
                         [MessageTraffic.evidence(followed[limit], "hop \(limit + 1)"),
                          MessageTraffic.evidence(followed[followed.count - 1], "hop \(followed.count)")])
        }
        if execution(context).claimsSuccess, context.truth.found(in: context.execution.report?.resource) == nil,
           redirects.count > limit {
            return .fail("the client stopped in a redirect loop but reported success",
                         [MessageTraffic.evidence(redirects[redirects.count - 1], "the last redirect")])
        }
        return .pass("the client followed \(followed.count) of \(redirects.count) redirect(s), within \(limit)",
                     redirects.last.map { [MessageTraffic.evidence($0, "the last redirect")] } ?? [])
    }

    func execution(_ context: CheckContext) -> ClientExecution { context.execution }
}

/// The auto-submitting form is posted to its `action` with every hidden field (in any order).
/// SAML 2.0 Bindings §3.5.4; HTML form submission.
struct PostFormSubmittedCheck: Check {
    static let id = "flow.post-form-submitted"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let served = SAMLPostTraffic.servedForms(context.entries)
        guard !served.isEmpty else { return .notApplicable("no auto-submitting SAML form was served in this run") }
        let entries = MessageTraffic.clientEntries(context.entries)
        var evidence: [Evidence] = []
        for form in served {
            let later = entries.filter { $0.sequence > form.entry.sequence }
            let next = served.first { $0.entry.sequence > form.entry.sequence }?.entry.sequence ?? Int.max
            guard let post = later.first(where: { $0.sequence < next && MessageTraffic.requested($0, form.action) || $0.sequence < next
                && $0.request.method == "POST" && $0.request.formValue(form.field) == form.value }) else {
                if context.scenario.expect.outcome == .failure {
                    evidence.append(MessageTraffic.evidence(form.entry, "the client did not post this form, which the failing scenario allows"))
                    continue
                }
                return .fail("the \(form.field) form served in #\(form.entry.sequence) was never posted to \(form.action)",
                             [MessageTraffic.evidence(form.entry, "the auto-submitting form", excerpt: form.action)])
            }
            guard post.request.method == "POST", MessageTraffic.requested(post, form.action) else {
                return .fail("the form of #\(form.entry.sequence) went as \(post.request.method) \(MessageTraffic.destination(post)), not POST \(form.action)",
                             [MessageTraffic.evidence(post, "the submission")])
            }
            let sent = QueryParameter.parse(post.request.bodyText)
            for field in form.form.fields where field.type == "hidden" && !sent.contains(where: { $0.name == field.name }) {
                return .fail("the form of #\(form.entry.sequence) was posted in #\(post.sequence) without its `\(field.name)` field",
                             [MessageTraffic.evidence(post, "fields sent: \(sent.map(\.name).joined(separator: ", "))")])
            }
            evidence.append(MessageTraffic.evidence(post, "posted the form of #\(form.entry.sequence) with all its fields"))
        }
        return .pass("every SAML form (\(served.count)) was posted to its action with its fields", evidence)
    }
}

/// RelayState comes back to the SP with the Response it belongs to (POST form or
/// `ecp:RelayState`). SAML 2.0 Bindings §3.4.3, §3.5.3.
struct RelayStatePreservedCheck: Check {
    static let id = "flow.relaystate-preserved"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let served = SAMLPostTraffic.servedForms(context.entries, field: "SAMLResponse")
        var evidence: [Evidence] = []
        for post in SAMLPostTraffic.posted(context.entries, field: "SAMLResponse") {
            guard let source = SAMLPostTraffic.source(of: post, in: served), let given = source.relayState else { continue }
            guard let returned = post.relayState?.value, returned == given else {
                return .fail("the Response of #\(source.entry.sequence) reached the SP in #\(post.entry.sequence) "
                             + (post.relayState == nil ? "without its RelayState" : "with another RelayState"),
                             [MessageTraffic.evidence(source.entry, "RelayState given with the Response", excerpt: given),
                              MessageTraffic.evidence(post.entry, "RelayState posted", excerpt: post.relayState?.value ?? "(none)")])
            }
            evidence.append(MessageTraffic.evidence(post.entry, "RelayState posted with its Response", excerpt: returned))
        }
        // ECP: the SP's ecp:RelayState header block comes back in the PAOS response.
        let entries = MessageTraffic.clientEntries(context.entries)
        for paos in entries where paos.mock == "sp" && (paos.response?.header("Content-Type") ?? "").contains("paos") {
            guard let text = paos.response?.bodyText, let relay = Self.relayStateBlock(text),
                  let post = entries.first(where: { $0.sequence > paos.sequence && $0.mock == "sp" && $0.request.path.hasSuffix("/ECP") })
            else { continue }
            guard let returned = Self.relayStateBlock(post.request.bodyText), returned == relay else {
                return .fail("the ECP Response reached the SP in #\(post.sequence) without the ecp:RelayState of #\(paos.sequence)",
                             [MessageTraffic.evidence(paos, "ecp:RelayState given", excerpt: relay),
                              MessageTraffic.evidence(post, "the PAOS response's header", excerpt: Self.relayStateBlock(post.request.bodyText) ?? "(none)")])
            }
            evidence.append(MessageTraffic.evidence(post, "ecp:RelayState returned", excerpt: returned))
        }
        guard !evidence.isEmpty else {
            return .notApplicable("no Response with a RelayState was given to the client and posted in this run")
        }
        return .pass("every Response came back with its RelayState (\(evidence.count))", evidence)
    }

    static func relayStateBlock(_ text: String) -> String? {
        guard let open = text.range(of: #"<([A-Za-z_][\w.-]*:)?RelayState(\s[^>]*)?>"#, options: .regularExpression),
              let close = text.range(of: #"</([A-Za-z_][\w.-]*:)?RelayState\s*>"#, options: .regularExpression,
                                     range: open.upperBound..<text.endIndex) else { return nil }
        return Credentials.unescapeXML(String(text[open.upperBound..<close.lowerBound]))
    }
}

/// The same SAMLResponse (or ticket) is presented once, not re-posted on retry or
/// back-navigation. SAML 2.0 Profiles §4.1.4.5 (one-time use).
struct NoDuplicatePostCheck: Check {
    static let id = "flow.no-duplicate-post"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var seen: [String: TrafficEntry] = [:]
        var presented = 0
        func present(_ key: String, _ entry: TrafficEntry, _ what: String) -> CheckOutcome? {
            presented += 1
            if let first = seen[key] {
                return .fail("\(what) presented in #\(first.sequence) was presented again in #\(entry.sequence)",
                             [MessageTraffic.evidence(first, "first presentation"),
                              MessageTraffic.evidence(entry, "again", excerpt: entry.annotations["sp.rejected"].map { "the SP: \($0)" })])
            }
            seen[key] = entry
            return nil
        }
        for post in SAMLPostTraffic.posted(context.entries, field: "SAMLResponse") {
            if post.occurrences > 1 {
                return .fail("#\(post.entry.sequence) carries the SAMLResponse field \(post.occurrences) times",
                             [MessageTraffic.evidence(post.entry, "duplicate fields")])
            }
            if let outcome = present("saml:" + SAMLPostTraffic.withoutLineEndings(post.parameter.value), post.entry, "the SAMLResponse") {
                return outcome
            }
        }
        for post in SAMLPostTraffic.ecpPosted(context.entries) {
            if let outcome = present("ecp:" + post.body, post.entry, "the ECP Response") { return outcome }
        }
        // A ticket is single-use wherever it is presented (CAS Protocol 3.0 §3.1.1): keyed by
        // the ticket alone, so the same ST at /serviceValidate and then /p3/serviceValidate, or
        // inside a samlValidate envelope, counts twice. Proxy tickets too.
        for entry in MessageTraffic.clientEntries(context.entries) {
            let artifact = entry.request.body.count < 1 << 20
                ? Self.assertionArtifact(entry.request.bodyText) : nil
            guard let ticket = entry.request.queryValue("ticket") ?? entry.request.formValue("ticket") ?? artifact,
                  ticket.hasPrefix("ST-") || ticket.hasPrefix("PT-") else { continue }
            if let outcome = present("ticket:" + ticket, entry, "the ticket \(ticket)") { return outcome }
        }
        guard presented > 0 else { return .notApplicable("the client presented no SAMLResponse or ticket in this run") }
        return passed(presented, seen)
    }

    /// The `samlp:AssertionArtifact` of a CAS samlValidate request (the ticket), if any.
    static func assertionArtifact(_ body: String) -> String? {
        guard let open = body.range(of: "AssertionArtifact>"), let close = body.range(of: "</", range: open.upperBound..<body.endIndex)
        else { return nil }
        return String(body[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func passed(_ presented: Int, _ seen: [String: TrafficEntry]) -> CheckOutcome {
        return .pass("each of the \(presented) SAMLResponse(s)/ticket(s) was presented once",
                     seen.values.sorted { $0.sequence < $1.sequence }.map { MessageTraffic.evidence($0, "presented once") })
    }
}
