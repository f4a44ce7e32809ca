import Foundation
import MockServers
import SAMLCore

/// The SAMLResponse reaches the SP byte-identical to what the IdP served (HTTP-POST form or
/// ECP SOAP body), so its signature still verifies. SAML 2.0 Bindings §3.5.4.
struct SAMLResponseIntactCheck: Check {
    static let id = "encoding.samlresponse-intact"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let served = SAMLPostTraffic.servedForms(context.entries, field: "SAMLResponse")
        var evidence: [Evidence] = []
        for post in SAMLPostTraffic.posted(context.entries, field: "SAMLResponse") {
            guard let source = SAMLPostTraffic.source(of: post, in: served) else { continue }
            let sent = source.value, arrived = post.parameter.value
            if SAMLPostTraffic.withoutLineEndings(sent) == SAMLPostTraffic.withoutLineEndings(arrived) {
                evidence.append(MessageTraffic.evidence(post.entry, "posted the SAMLResponse served in #\(source.entry.sequence) unchanged (\(arrived.utf8.count) bytes)"))
                continue
            }
            return .fail("the SAMLResponse posted in #\(post.entry.sequence) differs from the one the IdP served in #\(source.entry.sequence)",
                         [MessageTraffic.evidence(source.entry, "served SAMLResponse (\(sent.utf8.count) bytes)", excerpt: sent),
                          MessageTraffic.evidence(post.entry, SAMLPostTraffic.firstDifference(sent, arrived),
                                                  excerpt: SAMLPostTraffic.diagnosis(arrived: arrived, served: sent))])
        }
        let ecpServed = SAMLPostTraffic.ecpServed(context.entries)
        for post in SAMLPostTraffic.ecpPosted(context.entries) {
            guard let source = ecpServed.last(where: { $0.entry.sequence < post.entry.sequence }) else { continue }
            if source.body == post.body {
                evidence.append(MessageTraffic.evidence(post.entry, "posted the samlp:Response of #\(source.entry.sequence) unchanged"))
            } else if post.entry.annotations["sp.accepted"] != nil {
                evidence.append(MessageTraffic.evidence(post.entry, "re-serialized the samlp:Response of #\(source.entry.sequence); the SP still verified it"))
            } else if let served = Self.canonicalResponse(source.entry.response?.bodyText ?? ""),
                      served == Self.canonicalResponse(post.entry.request.bodyText) {
                // An ECP client puts the Response into an envelope of its own (SAML 2.0
                // Profiles §4.2.4.5), which may re-serialize it; what the signature covers —
                // its exclusive canonical form (SAML 2.0 Core §5.4.3) — is what counts.
                evidence.append(MessageTraffic.evidence(post.entry, "re-serialized the samlp:Response of #\(source.entry.sequence); its exclusive canonical form is the IdP's"))
            } else {
                return .fail("the samlp:Response posted in #\(post.entry.sequence) differs from the one the IdP answered in #\(source.entry.sequence)",
                             [MessageTraffic.evidence(source.entry, "the IdP's SOAP Body", excerpt: source.body),
                              MessageTraffic.evidence(post.entry, SAMLPostTraffic.firstDifference(source.body, post.body)
                                                      + (post.entry.annotations["sp.rejected"].map { "; the SP refused it: \($0)" } ?? ""))])
            }
        }
        guard !evidence.isEmpty else {
            return .notApplicable(served.isEmpty && ecpServed.isEmpty
                                  ? "no SAMLResponse was served in this run" : "the client never posted the SAMLResponse it was served")
        }
        return .pass("every SAMLResponse reached the SP as the IdP served it (\(evidence.count) post(s))", evidence)
    }

    /// The exclusive canonical form (what a SAML signature covers) of the first
    /// samlp:Response in a SOAP envelope; nil when it cannot be read.
    static func canonicalResponse(_ envelope: String) -> [UInt8]? {
        guard envelope.utf8.count < 4 << 20, let document = try? XMLDocument(parsing: envelope),
              let response = document.root.descendants("Response", SAMLNamespace.protocol_).first else { return nil }
        return try? response.canonicalized(.exclusive)
    }
}

/// The SAMLRequest, RelayState, SigAlg and Signature query values reach the IdP as the SP's
/// redirect gave them. SAML 2.0 Bindings §3.4.4.1.
struct SAMLRequestIntactCheck: Check {
    static let id = "encoding.samlrequest-intact"
    static let names = ["SAMLRequest", "RelayState", "SigAlg", "Signature"]

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        var evidence: [Evidence] = []
        var redirects = 0
        for (index, redirect) in entries.enumerated() {
            guard let location = MessageTraffic.redirectLocation(redirect), let sent = URLParts(location),
                  sent.query.first(named: "SAMLRequest") != nil else { continue }
            redirects += 1
            // Following a redirect is a GET (SAML 2.0 Bindings §3.4.3); a SOAP POST to the same
            // endpoint (an ECP client that ignored the browser redirect) is no follow-up.
            guard let follow = entries[(index + 1)...].first(where: {
                guard $0.request.method == "GET", let parts = URLParts(MessageTraffic.destination($0)) else { return false }
                return parts.origin == sent.origin && parts.decodedPath == sent.decodedPath
            }), let arrived = URLParts(MessageTraffic.destination(follow)) else { continue }
            let signed = sent.query.first(named: "Signature") != nil
            for name in Self.names {
                let given = sent.query.first(named: name), got = arrived.query.first(named: name)
                guard given != nil || got != nil else { continue }
                if given?.rawValue == got?.rawValue { continue }
                if let given, let got, given.value == got.value, !signed { continue }
                var detail = "`\(name)` in #\(follow.sequence) differs from the redirect of #\(redirect.sequence)"
                if given == nil { detail = "`\(name)` appeared in #\(follow.sequence) though the redirect of #\(redirect.sequence) had none" }
                if got == nil { detail = "`\(name)` of the redirect in #\(redirect.sequence) is missing from #\(follow.sequence)" }
                var excerpt = "redirect: \(given?.raw ?? "(none)")\nrequest:  \(got?.raw ?? "(none)")"
                if name == "SAMLRequest", let given, let got {
                    let findings = EncodingDiagnoser.diagnose(got.value, binding: .redirect, expected: given.value).report
                    excerpt += "\n" + findings
                } else if signed, let given, let got, given.value == got.value {
                    detail += " in its encoding; the Signature covers the octets as sent (§3.4.4.1)"
                }
                return .fail(detail, [MessageTraffic.evidence(redirect, "the SP's redirect", excerpt: location),
                                      MessageTraffic.evidence(follow, detail, excerpt: excerpt)])
            }
            evidence.append(MessageTraffic.evidence(follow, "the query of #\(redirect.sequence)'s redirect arrived unchanged"))
        }
        guard !evidence.isEmpty else {
            return .notApplicable(redirects == 0 ? "no redirect carried a SAMLRequest in this run"
                                                 : "the client never followed the redirect carrying the SAMLRequest")
        }
        return .pass("the SAMLRequest query reached the IdP as the SP gave it (\(evidence.count) redirect(s))", evidence)
    }
}

/// A line-wrapped or padded base64 value is posted back as received: no line breaks removed or
/// added, no `=` padding stripped. SAML 2.0 Bindings §3.5.4; RFC 4648 §3.1.
struct Base64UnalteredCheck: Check {
    static let id = "encoding.base64-unaltered"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let served = SAMLPostTraffic.servedForms(context.entries)
        var evidence: [Evidence] = []
        for post in SAMLPostTraffic.posted(context.entries) {
            guard let source = SAMLPostTraffic.source(of: post, in: served) else { continue }
            let sent = SAMLPostTraffic.normalizedLineEndings(source.value)
            let arrived = SAMLPostTraffic.normalizedLineEndings(post.parameter.value)
            let lines = sent.filter { $0 == "\n" }.count
            if sent == arrived {
                evidence.append(MessageTraffic.evidence(post.entry, "posted as served in #\(source.entry.sequence)"
                                                        + (lines > 0 ? " with its \(lines) line break(s)" : "")))
                continue
            }
            let padding = { (s: String) in s.reversed().drop { $0 == "\n" || $0 == "\r" }.prefix { $0 == "=" }.count }
            let arrivedLines = arrived.filter { $0 == "\n" }.count
            let what: String
            if SAMLPostTraffic.withoutLineEndings(sent) == SAMLPostTraffic.withoutLineEndings(arrived) {
                what = lines > arrivedLines
                    ? "line breaks removed: \(lines) served, \(arrivedLines) posted"
                    : "line breaks added: \(lines) served, \(arrivedLines) posted"
            } else if padding(sent) != padding(arrived) {
                what = "`=` padding changed: \(padding(sent)) served, \(padding(arrived)) posted"
            } else {
                what = "the base64 text changed; " + SAMLPostTraffic.firstDifference(source.value, post.parameter.value)
            }
            return .fail("the \(post.field) posted in #\(post.entry.sequence) is not the base64 served in #\(source.entry.sequence): \(what)",
                         [MessageTraffic.evidence(source.entry, "served \(post.field)", excerpt: source.value),
                          MessageTraffic.evidence(post.entry, what,
                                                  excerpt: SAMLPostTraffic.diagnosis(arrived: post.parameter.value, served: source.value))])
        }
        guard !evidence.isEmpty else {
            return .notApplicable(served.isEmpty ? "no SAML message was served in a form in this run"
                                                 : "the client never posted the SAML message it was served")
        }
        return .pass("every base64 value went back as served (\(evidence.count) post(s))", evidence)
    }
}

/// RelayState is returned byte for byte, not decoded, re-encoded or trimmed — on the
/// HTTP-Redirect leg to the IdP and on the HTTP-POST leg to the SP. SAML 2.0 Bindings §3.4.3, §3.5.3.
struct RelayStateUnalteredCheck: Check {
    static let id = "encoding.relaystate-unaltered"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var evidence: [Evidence] = []
        var servedAny = false
        let entries = MessageTraffic.clientEntries(context.entries)
        // The Redirect leg: the SP's Location → the request to the IdP.
        for (index, redirect) in entries.enumerated() {
            guard let location = MessageTraffic.redirectLocation(redirect), let sent = URLParts(location),
                  sent.query.first(named: "SAMLRequest") != nil, let given = sent.query.first(named: "RelayState") else { continue }
            servedAny = true
            guard let follow = entries[(index + 1)...].first(where: {
                $0.request.method == "GET"
                    && (URLParts(MessageTraffic.destination($0)).map { $0.origin == sent.origin && $0.decodedPath == sent.decodedPath } ?? false)
            }) else { continue }
            let got = URLParts(MessageTraffic.destination(follow))?.query.first(named: "RelayState")
            guard got?.value == given.value else {
                return fail(redirect, follow, served: given.value, returned: got?.value, leg: "the redirect to the IdP")
            }
            evidence.append(MessageTraffic.evidence(follow, "RelayState of #\(redirect.sequence) went to the IdP unchanged"))
        }
        // The POST leg: the IdP's form → the ACS.
        let served = SAMLPostTraffic.servedForms(context.entries)
        servedAny = servedAny || served.contains { $0.relayState != nil }
        for post in SAMLPostTraffic.posted(context.entries) {
            guard let source = SAMLPostTraffic.source(of: post, in: served) else { continue }
            let returned = post.relayState?.value
            switch (source.relayState, returned) {
            case (nil, nil), (nil, ""?): continue
            case let (given?, got) where got == given:
                evidence.append(MessageTraffic.evidence(post.entry, "RelayState of #\(source.entry.sequence)'s form posted unchanged", excerpt: given))
            case let (given, got):
                return fail(source.entry, post.entry, served: given, returned: got, leg: "the form post to the SP")
            }
        }
        guard !evidence.isEmpty else {
            return .notApplicable(servedAny ? "the client never sent back the RelayState it was given"
                                            : "no RelayState was given to the client in this run")
        }
        return .pass("every RelayState came back byte for byte (\(evidence.count) leg(s))", evidence)
    }

    func fail(_ source: TrafficEntry, _ post: TrafficEntry, served: String?, returned: String?, leg: String) -> CheckOutcome {
        let detail: String
        switch (served, returned) {
        case (nil, let got?): detail = "a RelayState appeared in #\(post.sequence) that #\(source.sequence) never gave: `\(got)`"
        case (.some, nil): detail = "the RelayState of #\(source.sequence) was dropped from #\(post.sequence)"
        case let (given?, got?): detail = "RelayState changed between #\(source.sequence) and #\(post.sequence): "
            + SAMLPostTraffic.firstDifference(given, got)
        case (nil, nil): detail = "no RelayState"
        }
        return .fail("the RelayState did not come back unchanged on \(leg) (#\(post.sequence))",
                     [MessageTraffic.evidence(source, "given", excerpt: served ?? "(none)"),
                      MessageTraffic.evidence(post, detail, excerpt: returned ?? "(none)")])
    }
}
