import Foundation
import MockServers
import SAMLCore

/// Which recorded entry answers a request — by score, as WireMock's near-miss matching and
/// mitmproxy's server replay do it. Origin, method and path (percent-escapes normalized) pick
/// the candidates; the query and form parameters (their names, places and recorded values), a
/// few headers and the cookies the replay set add to or take from each candidate's score; the
/// best candidate the strictness accepts answers, and every difference from its recorded
/// request is annotated on the exchange. docs/recorded-chains.md, "Matching".
enum ReplayMatcher {
    /// Where a parameter came.
    enum Place: String, Sendable {
        case query, form
    }

    /// One way a request differs from the recorded one.
    struct Difference: Sendable, Equatable, CustomStringConvertible {
        enum Kind: String, Sendable {
            /// Recorded, not sent.
            case missing
            /// Sent, not recorded.
            case extra
            /// Sent with another value than the recorded one (the value the replay handed out).
            case changed
            /// Sent in the other place (query instead of form body, or the other way round).
            case moved
            /// Sent in the other place too, or only there, to a server that reads it from either.
            case anywhere
            case header
            case cookie
            /// A cookie sent that the recording set only at this entry or after it: the client is
            /// further along than this entry (weighs two in the ranking).
            case laterCookie = "later-cookie"
        }

        var kind: Kind
        var text: String
        var description: String { text }
        /// A difference the recorded server would not notice (a parameter it reads from anywhere).
        var harmless: Bool { kind == .anywhere }
    }

    /// A candidate entry and how well the request fits it.
    struct Candidate: Sendable {
        var entry: RecordedChain.Entry
        var score: Int
        var maximum: Int
        var differences: [Difference]
        var strictness: RecordedChain.Matching.Strictness
        /// The SAML message (or ticket) the entry's request carried is not in this request.
        var essentialMissing: String?

        /// Whether the strictness in force lets this entry answer.
        var accepted: Bool {
            switch strictness {
            case .strict: differences.allSatisfy { $0.harmless || $0.kind == .cookie || $0.kind == .laterCookie }
            case .default: essentialMissing == nil && score * 2 >= maximum
            case .lenient: true
            }
        }

        var exact: Bool { differences.allSatisfy(\.harmless) }

        /// The differences that count when candidates are ranked.
        var weight: Int {
            differences.reduce(0) { $0 + ($1.harmless ? 0 : $1.kind == .laterCookie ? 2 : 1) }
        }

        var summary: String {
            let listed = differences.filter { !$0.harmless || strictness == .strict }
            return "score \(score)/\(maximum)" + (listed.isEmpty ? "" : ": " + listed.map(\.text).joined(separator: "; "))
        }
    }

    /// Parameters real servers read from the query string or the form body alike, by product:
    /// the request is matched by name wherever such a parameter comes. A scenario adds its own
    /// with `matching.anywhere`.
    static let anywhereTable: [(product: String, names: [String], why: String)] = [
        ("SimpleSAMLphp", ["AuthState", "StateId"],
         "modules/core/www/loginuserpass.php and the consent module read $_REQUEST (GET and POST)"),
        ("Shibboleth IdP", ["execution", "_eventId", "_eventId_proceed", "csrf_token"],
         "Spring Web Flow reads request parameters (ServletRequest.getParameter: query and body)"),
        ("CAS", ["lt", "execution", "_eventId", "service"],
         "Spring Web Flow and the CAS login controller read request parameters"),
        ("AD FS", ["client-request-id"], "read from the query or the posted form"),
        ("Keycloak", ["session_code", "tab_id", "client_id"], "read from the query or the form (JAX-RS @QueryParam / form)"),
    ]

    static let anywhereParameters: Set<String> = Set(anywhereTable.flatMap(\.names))

    /// Parameters that carry the message an entry exists for: a request without it cannot be
    /// answered as the recording answered it (under the default strictness).
    static let essentialParameters: Set<String> = ["SAMLRequest", "SAMLResponse", "SAMLart", "wresult", "ticket"]

    /// The request headers recorded to tell requests to one URL apart.
    static let recordedHeaders = ["Content-Type", "SOAPAction", "PAOS"]

    /// The value of a recorded header as it is compared: `Content-Type` by media type, `Accept`
    /// only when it names PAOS (ECP), the others as sent; nil when it does not count.
    static func headerKey(_ name: String, _ value: String?) -> String? {
        guard let value else { return nil }
        switch name.lowercased() {
        case "content-type":
            return value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        case "soapaction":
            return value.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        case "paos":
            // PAOS (ECP): the service it offers, whatever else the client lists with it.
            return value.contains("urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp") ? "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp" : value
        case "accept":
            // Kept readable in older chains; an Accept alone offers nothing (Shibboleth does ECP
            // only with a PAOS header as well).
            return nil
        default:
            return value
        }
    }

    // MARK: - Matching

    /// The entry that answers `request`, or nil (with the closest candidates) when none may.
    /// `value` renders a recorded value template with the values the replay knows now (nil
    /// when one of its variables has none yet); `cookiesSet` are the cookies the replay set.
    static func match(_ request: MockRequest, origin: String, in chain: RecordedChain, cookieIndex: CookieIndex,
                      consumed: Set<Int>, value: (String) -> String?,
                      cookiesSet: [String: String]) -> (Candidate?, [Candidate]) {
        let path = normalizedPath(request.path)
        let candidates = chain.entries
            .filter { $0.origin == origin && $0.request.method == request.method.uppercased()
                && normalizedPath($0.request.path) == path }
            .map { score(request, against: $0, chain: chain, cookieIndex: cookieIndex, value: value, cookiesSet: cookiesSet) }
        let accepted = candidates.filter(\.accepted)
        // The fewest differences answer, then the best score; among equals, an entry not yet
        // answered, first in recorded order (a wrong then a right password: the same request
        // twice); else the last.
        let best = accepted.max { a, b in
            if a.weight != b.weight { return a.weight > b.weight }
            if a.score != b.score { return a.score < b.score }
            let aFresh = !consumed.contains(a.entry.number), bFresh = !consumed.contains(b.entry.number)
            if aFresh != bFresh { return !aFresh }
            return aFresh ? a.entry.number > b.entry.number : a.entry.number < b.entry.number
        }
        return (best, candidates.sorted { ($0.weight, -$0.score) < ($1.weight, -$1.score) })
    }

    static func score(_ request: MockRequest, against entry: RecordedChain.Entry, chain: RecordedChain,
                      cookieIndex: CookieIndex, value: (String) -> String?, cookiesSet: [String: String]) -> Candidate {
        let rules = (chain.matching ?? .init()).overlaid(by: entry.request.match)
        let ignoredParameters = Set(rules.ignoreParameters ?? [])
        let ignoredHeaders = Set((rules.ignoreHeaders ?? []).map { $0.lowercased() })
        let ignoredCookies = Set(rules.ignoreCookies ?? [])
        let strictness = rules.strictness ?? .default
        // Strict: the recorded places, unless the scenario itself names a parameter the server
        // reads from anywhere (the built-in table does not apply).
        let anywhere = strictness == .strict ? Set(rules.anywhere ?? []) : anywhereParameters.union(rules.anywhere ?? [])
        var candidate = Candidate(entry: entry, score: 0, maximum: 0, differences: [], strictness: strictness)
        func note(_ kind: Difference.Kind, _ text: String) { candidate.differences.append(.init(kind: kind, text: text)) }

        let sentQuery = request.query
        let sentForm = isForm(request) ? request.formFields.map { ($0.name, $0.value) } : []
        func sent(_ name: String, _ place: Place) -> String? {
            place == .query ? sentQuery.first { $0.name == name }?.value : sentForm.first { $0.0 == name }?.1
        }
        var recorded: [(String, Place)] = entry.request.query.map { ($0, .query) }
        recorded += (entry.request.form ?? []).map { ($0, .form) }
        let recordedNames = Set(recorded.map(\.0))
        for (name, place) in recorded where !ignoredParameters.contains(name) {
            let other: Place = place == .query ? .form : .query
            let template = entry.request.values?[name]
            let expected = template.flatMap(value)
            candidate.maximum += expected == nil ? 2 : 3
            var got = sent(name, place)
            if got == nil, let elsewhere = sent(name, other) {
                if anywhere.contains(name) {
                    note(.anywhere, "\(name) sent in the \(other.rawValue), recorded in the \(place.rawValue) (read from either)")
                    got = elsewhere
                } else {
                    note(.moved, "\(name) sent in the \(other.rawValue), recorded in the \(place.rawValue)")
                    candidate.score += 1
                    continue
                }
            }
            guard let got else {
                note(.missing, "\(place.rawValue) \(name) missing")
                candidate.score -= 2
                if essentialParameters.contains(name) { candidate.essentialMissing = name }
                continue
            }
            if let expected {
                if expected == got {
                    candidate.score += 3
                } else {
                    note(.changed, "\(place.rawValue) \(name) is not the value the replay handed out")
                    candidate.score += 1
                }
            } else {
                candidate.score += 2
            }
        }
        // Each name sent in a place it was not recorded in, once, in the order sent: an extra, or
        // — recorded in the other place and sent there too — a duplicate, harmless for a
        // parameter the server reads from either place. (Sent only in the other place: `moved`,
        // above.)
        var seen = Set<String>()
        let sentNames = sentQuery.map { ($0.name, Place.query) } + sentForm.map { ($0.0, Place.form) }
        for (name, place) in sentNames where seen.insert("\(place.rawValue) \(name)").inserted
            && !recorded.contains(where: { $0 == (name, place) }) && !ignoredParameters.contains(name) {
            if recordedNames.contains(name) {
                guard sent(name, place == .query ? .form : .query) != nil else { continue }
                if anywhere.contains(name) {
                    note(.anywhere, "\(name) sent in the \(place.rawValue) as well (read from either)")
                    continue
                }
            }
            note(.extra, "\(place.rawValue) \(name) not in the recording")
            candidate.score -= 1
        }
        for name in recordedHeaders where entry.request.headers?[name] == nil && !ignoredHeaders.contains(name.lowercased()) {
            // A PAOS offer or a SOAP body the recorded request did not have asks another question.
            if let got = headerKey(name, request.header(name)), name != "Content-Type" || entry.request.method != "GET" {
                note(.header, "\(name) \(got) sent, none recorded")
            }
        }
        for (name, recordedValue) in (entry.request.headers ?? [:]).sorted(by: { $0.key < $1.key })
        where !ignoredHeaders.contains(name.lowercased()) {
            candidate.maximum += 2
            let got = headerKey(name, request.header(name))
            if got == headerKey(name, recordedValue) {
                candidate.score += 2
            } else {
                note(.header, "\(name) \(got.map { "is \($0)" } ?? "missing"), recorded \(headerKey(name, recordedValue) ?? recordedValue)")
            }
        }
        if !ignoredHeaders.contains("authorization") {
            let got = request.header("Authorization")?.split(separator: " ").first.map(String.init)
            if let scheme = entry.request.authorization {
                candidate.maximum += 2
                if got?.caseInsensitiveCompare(scheme) == .orderedSame {
                    candidate.score += 2
                } else {
                    note(.header, "Authorization \(got.map { "is \($0)" } ?? "missing"), recorded \(scheme)")
                }
            } else if let got {
                note(.header, "Authorization \(got) sent, none recorded")
            }
        }
        for name in entry.request.cookies ?? [] where !ignoredCookies.contains(name) {
            // Only the cookies the recorded servers set before this request count: one the
            // browser brought along from before the recording cannot be expected.
            guard cookieIndex.sets(name, before: entry.number) else { continue }
            candidate.maximum += 1
            guard let expected = cookiesSet[name] else {
                // The recorded request came after the answer that set it; this one comes before.
                note(.cookie, "cookie \(name) not set yet (the recorded request came after an answer that set it)")
                continue
            }
            switch request.cookie(name) {
            case expected: candidate.score += 1
            case nil: note(.cookie, "cookie \(name) missing")
            default: note(.cookie, "cookie \(name) is not the value the replay set")
            }
        }
        let recordedCookies = Set(entry.request.cookies ?? [])
        for cookie in request.cookies where !recordedCookies.contains(cookie.name) && !ignoredCookies.contains(cookie.name)
            && cookiesSet[cookie.name] == cookie.value && !cookieIndex.sets(cookie.name, before: entry.number) {
            note(.laterCookie, "cookie \(cookie.name) sent, set in the recording only after this request")
        }
        if let carried = entry.request.carries, let message = chain.message(named: carried) {
            if message.binding == .soap {
                let root = message.kind == .response ? "Response" : "AuthnRequest"
                if !soapBodyHolds(root, request.bodyText) { candidate.essentialMissing = "SOAP-carried \(root)" }
            } else {
                let name = message.kind == .response ? "SAMLResponse" : "SAMLRequest"
                if sent(name, .query) == nil, sent(name, .form) == nil { candidate.essentialMissing = name }
            }
        }
        return candidate
    }

    /// Whether a SOAP body (after the Body start tag) holds an element with this local name.
    static func soapBodyHolds(_ localName: String, _ text: String) -> Bool {
        guard let body = text.range(of: #"<([A-Za-z_][\w.-]*:)?Body[\s>]"#, options: .regularExpression) else { return false }
        return text[body.upperBound...].range(of: "<([A-Za-z_][\\w.-]*:)?\(localName)[\\s>/]",
                                              options: .regularExpression) != nil
    }

    /// The first entry whose recorded answer sets each cookie, worked out once per chain.
    struct CookieIndex: Sendable {
        let firstSet: [String: Int]

        init(_ chain: RecordedChain) {
            var first: [String: Int] = [:]
            for entry in chain.entries {
                for header in entry.response.headers where header.name.caseInsensitiveCompare("Set-Cookie") == .orderedSame {
                    guard let name = header.value.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
                    else { continue }
                    first[name] = min(first[name] ?? entry.number, entry.number)
                }
            }
            firstSet = first
        }

        /// Whether an answer recorded before entry `number` sets the cookie `name`.
        func sets(_ name: String, before number: Int) -> Bool { (firstSet[name] ?? Int.max) < number }
    }

    static func isForm(_ request: MockRequest) -> Bool {
        request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
    }

    /// RFC 3986 §6.2.2.2: percent-encoding normalization (`%7E` and `~` are the same path).
    static func normalizedPath(_ path: String) -> String {
        String(decoding: PercentEncoding.percentDecode(path, plusAsSpace: false), as: UTF8.self)
    }

    // MARK: - No answer

    /// A 404 naming the closest recorded requests and how this one differs from each,
    /// annotated `replay.unmatched`, `replay.closest` and `replay.differences`.
    static func unmatched(_ request: MockRequest, origin: String, in chain: RecordedChain,
                          candidates: [Candidate]) -> MockResponse {
        let keys = Set(request.query.map(\.name)).union(isForm(request) ? Set(request.formFields.map(\.name)) : [])
        func distance(_ entry: RecordedChain.Entry) -> Int {
            var score = 0
            if entry.origin == origin { score += 8 }
            if normalizedPath(entry.request.path) == normalizedPath(request.path) { score += 4 }
            if entry.request.method == request.method.uppercased() { score += 2 }
            let recorded = Set(entry.request.query).union(entry.request.form ?? [])
            score -= recorded.symmetricDifference(keys).count
            return score
        }
        var lines: [String] = []
        var closest: [Int] = []
        for candidate in candidates.prefix(3) {
            closest.append(candidate.entry.number)
            lines.append(describe(candidate.entry) + " (\(candidate.strictness.rawValue) matching refused it, "
                + candidate.summary + (candidate.essentialMissing.map { "; without its \($0)" } ?? "") + ")")
        }
        for entry in chain.entries.sorted(by: { distance($0) > distance($1) })
        where closest.count < 3 && !closest.contains(entry.number) {
            closest.append(entry.number)
            lines.append(describe(entry))
        }
        let sent = "\(request.method) \(request.path) query [\(request.query.map(\.name).joined(separator: ", "))]"
            + (isForm(request) ? " form [\(request.formFields.map(\.name).joined(separator: ", "))]" : "")
        let message = "The recording has no answer for \(sent) on \(origin). Closest recorded requests: "
            + lines.joined(separator: "; ")
        var response = MockResponse.errorPage(status: 404, title: "Not in the recording", message: message)
        response.annotations["replay.unmatched"] = "\(request.method) \(request.path)"
        response.annotations["replay.closest"] = closest.map(String.init).joined(separator: ",")
        response.annotations["replay.origin"] = origin
        if let first = candidates.first {
            response.annotations["replay.differences"] = "entry \(first.entry.number): " + first.summary
        }
        return response
    }

    static func describe(_ entry: RecordedChain.Entry) -> String {
        var text = "entry \(entry.number): \(entry.request.method) \(entry.request.path)"
        if !entry.request.query.isEmpty { text += " query [\(entry.request.query.joined(separator: ", "))]" }
        if let form = entry.request.form { text += " form [\(form.joined(separator: ", "))]" }
        return text + " on \(entry.origin)"
    }
}
