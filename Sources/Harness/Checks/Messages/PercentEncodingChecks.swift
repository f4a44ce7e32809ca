import Foundation
import MockServers
import SAMLCore

/// Form bodies percent-encode `+`, `=`, `/`, `&` and `%` (a raw `+` decodes as a space).
/// WHATWG URL §5.2 application/x-www-form-urlencoded serializer; HTML 4.01 §17.13.4.1.
struct FormPercentEncodedCheck: Check {
    static let id = "encoding.form-percent-encoded"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        var checked: [Evidence] = []
        for entry in entries {
            guard let type = entry.request.header("Content-Type")?.lowercased(),
                  type.hasPrefix("application/x-www-form-urlencoded") else { continue }
            let body = entry.request.bodyText
            var intended: [String: String] = [:]
            if let form = ServedForms.latest(in: entries, before: entry) {
                for field in form.form.fields where field.type == "hidden" { intended[field.name] = intended[field.name] ?? field.value }
            }
            if let problem = PercentEncodingProblems.find(in: body, intended: intended, credentials: Credentials(context)) {
                return .fail("the form body of #\(entry.sequence) is not percent-encoded: \(problem.summary)",
                             [MessageTraffic.evidence(entry, problem.summary, excerpt: problem.excerpt)])
            }
            checked.append(MessageTraffic.evidence(entry, "form body percent-encoded (\(entry.request.body.count) bytes)"))
        }
        guard !checked.isEmpty else { return .notApplicable("the client posted no form body in this run") }
        return .pass("every form body (\(checked.count)) is percent-encoded", checked)
    }
}

/// Query values the client builds or copies keep their percent-encoding: `+`, `&`, `=` and
/// non-ASCII encoded, a redirect's or the start URL's query sent as given. RFC 3986 §3.4;
/// SAML 2.0 Bindings §3.4.4.1.
struct QueryPercentEncodedCheck: Check {
    static let id = "encoding.query-percent-encoded"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        var given: [(sequence: Int, url: String)] = context.target.start.isEmpty ? [] : [(-1, context.target.start)]
        var checked: [Evidence] = []
        var built = 0
        for entry in entries {
            defer {
                if let location = MessageTraffic.redirectLocation(entry) { given.append((entry.sequence, location)) }
                if let response = entry.response, MessageTraffic.isHTML(response), response.bodyText.contains("<form") {
                    for form in HTMLFormParser.forms(in: response.bodyText) where form.action != nil {
                        given.append((entry.sequence, MessageTraffic.resolve(form.action!, against: MessageTraffic.destination(entry))))
                    }
                }
            }
            guard let raw = entry.request.rawQuery, !raw.isEmpty, let parts = URLParts(MessageTraffic.destination(entry)) else { continue }
            if let bad = raw.utf8.firstIndex(where: { $0 >= 0x80 || $0 <= 0x20 }) {
                let offset = raw.utf8.distance(from: raw.utf8.startIndex, to: bad)
                return .fail("the query of #\(entry.sequence) carries a raw byte that must be percent-encoded at offset \(offset)",
                             [MessageTraffic.evidence(entry, "RFC 3986 §3.4: only unreserved characters and escapes", excerpt: raw)])
            }
            if let offset = PercentEncoding.firstMalformedEscape(in: raw) {
                return .fail("the query of #\(entry.sequence) has a `%` that starts no escape at offset \(offset)",
                             [MessageTraffic.evidence(entry, "a raw `%` must be sent as `%25`", excerpt: raw)])
            }
            let names = parts.query.map(\.name)
            if let source = given.last(where: { item in
                guard let url = URLParts(item.url) else { return false }
                return url.origin == parts.origin && url.decodedPath == parts.decodedPath && url.query.map(\.name) == names
            }), let sourceParts = URLParts(source.url) {
                checked.append(MessageTraffic.evidence(entry, "query percent-encoded; its values are the URL's of #\(source.sequence)"))
                for (sent, got) in zip(sourceParts.query, parts.query) where sent.value != got.value {
                    let from = source.sequence < 0 ? "the start URL" : "the URL #\(source.sequence) gave"
                    let detail = "`\(sent.name)` of \(from) is `\(sent.rawValue)` but #\(entry.sequence) sent `\(got.rawValue)`"
                        + (sent.value.replacingOccurrences(of: "+", with: " ") == got.value ? ": a `+` went out raw and reads as a space" : "")
                    return .fail("the query of #\(entry.sequence) does not carry the values it was given", [
                        MessageTraffic.evidence(entry, detail, excerpt: "given:   \(source.url)\nrequest: \(entry.request.target)")])
                }
            } else {
                // A query the client built itself (an OPDS redirect_uri appended to a link):
                // what each value was meant to be is unknown here, so only the byte rules hold.
                built += 1
            }
        }
        guard !checked.isEmpty || built > 0 else { return .notApplicable("no request of the client carried a query in this run") }
        guard !checked.isEmpty else {
            return .notApplicable("\(built) query(ies) the client built itself have no raw or malformed bytes, but what their values were meant to hold is unknown here, so a raw `&` or `=` inside one cannot be seen")
        }
        return .pass("\(checked.count) query(ies) carry the values of the URLs they came from, percent-encoded"
                     + (built > 0 ? "; \(built) the client built itself have no raw or malformed bytes (their values are not known here)" : ""), checked)
    }
}

/// Non-ASCII passwords are sent as UTF-8 (forms, Basic credentials, SOAP), never Latin-1 or
/// mangled. RFC 7617 §2.1 (charset=UTF-8); WHATWG URL percent-encode sets.
struct UTF8CredentialsCheck: Check {
    static let id = "encoding.utf8-credentials"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let credentials = Credentials(context)
        // The proxy's password (RFC 7617 §2.1 holds for Proxy-Authorization too: the 407
        // asks for charset="UTF-8").
        if let proxyPassword = context.target.parameters["PROXY_PASSWORD"],
           proxyPassword.unicodeScalars.contains(where: { !$0.isASCII }), let forms = SecretForms(proxyPassword) {
            let all = MessageTraffic.clientEntries(context.entries)
            for entry in all where entry.mock == "proxy" {
                guard let basic = Credentials.basicCredentials(entry.request.header("Proxy-Authorization")),
                      basic.password != Array(proxyPassword.utf8),
                      Self.charsetOffered(before: entry, in: all, challenge: "Proxy-Authenticate") else { continue }
                let encoding = forms.encoding(of: basic.password)
                return .fail("the proxy password went \(encoding.map { "as \($0)" } ?? "mangled") in Proxy-Authorization of #\(entry.sequence)",
                             [MessageTraffic.evidence(entry, Self.describe(basic.password, against: Array(proxyPassword.utf8), encoding: encoding))])
            }
        }
        guard let password = credentials.password, !password.isEmpty else {
            return .notApplicable("the scenario gives the client no password")
        }
        guard password.unicodeScalars.contains(where: { !$0.isASCII }) else {
            return .notApplicable("the password is plain ASCII; there is nothing to encode as UTF-8")
        }
        let utf8 = Array(password.utf8)
        let forms = SecretForms(password)
        var evidence: [Evidence] = []
        var unasked: [TrafficEntry] = []
        let all = MessageTraffic.clientEntries(context.entries)
        for entry in all {
            // RFC 7617 §2.1 (and RFC 7616 §4 for Digest): the encoding is UTF-8 when the
            // challenge said charset="UTF-8"; credentials sent before any such challenge (up
            // front, or to a server that never offered one) are in an encoding the text leaves
            // open, and are not judged.
            let authorization = entry.request.header("Authorization")
            let challengeFree = authorization != nil && !Self.charsetOffered(before: entry, in: all, challenge: "WWW-Authenticate")
            for sent in Credentials.passwordsSent(in: entry) {
                if sent.place == "the Basic Authorization header", challengeFree, sent.bytes != utf8 {
                    unasked.append(entry)
                    continue
                }
                if sent.bytes == utf8 {
                    evidence.append(MessageTraffic.evidence(entry, "the password went as UTF-8 in \(sent.place)"))
                    continue
                }
                // The evidence describes the bytes, never quotes them: they are the password.
                let encoding = forms?.encoding(of: sent.bytes)
                let what = encoding.map { "as \($0)" } ?? "mangled"
                return .fail("the password went \(what) in \(sent.place) of #\(entry.sequence)",
                             [MessageTraffic.evidence(entry, Self.describe(sent.bytes, against: utf8, encoding: encoding))])
            }
            // RFC 7616 §4: a Digest answer carries no password, only a hash over it; the
            // encoding it was hashed in shows by recomputing the answer with each.
            if let field = entry.request.header("Authorization"), HTTPAuthTraffic.scheme(field).lowercased() == "digest" {
                guard !challengeFree else { continue }
                guard let encoding = forms?.digestEncoding(field, username: credentials.username, entry: entry) else { continue }
                if encoding == "UTF-8" {
                    evidence.append(MessageTraffic.evidence(entry, "the Digest response was computed over the UTF-8 password"))
                    continue
                }
                return .fail("the Digest response of #\(entry.sequence) was computed over the password in \(encoding), not UTF-8",
                             [MessageTraffic.evidence(entry, "recomputed over each encoding of the password: only \(encoding) gives the client's response")])
            }
        }
        guard !evidence.isEmpty else {
            if let first = unasked.first {
                return .notApplicable("the password went in another encoding than UTF-8 in #\(first.sequence), but no challenge before it offered charset=\"UTF-8\" (RFC 7617 §2.1 leaves the encoding open then)")
            }
            return .notApplicable("the client never sent the password in this run (form fields, query, Basic, WS-Security and Digest answers looked at)")
        }
        return .pass("the non-ASCII password went as UTF-8 (\(evidence.count) time(s))", evidence)
    }

    /// Whether a challenge (`challenge`: WWW-Authenticate or Proxy-Authenticate) answered to
    /// an earlier request to the same origin (the proxy, for Proxy-Authenticate) offered
    /// `charset="UTF-8"` (RFC 7617 §2.1, RFC 7616 §4).
    static func charsetOffered(before entry: TrafficEntry, in entries: [TrafficEntry], challenge: String) -> Bool {
        let proxy = challenge == "Proxy-Authenticate"
        let origin = MessageTraffic.destinationOrigin(entry)
        return entries.contains { earlier in
            guard earlier.sequence < entry.sequence, proxy ? earlier.mock == entry.mock : MessageTraffic.destinationOrigin(earlier) == origin,
                  let response = earlier.response else { return false }
            return response.headers(named: challenge).contains { value in
                value.lowercased().replacingOccurrences(of: " ", with: "").range(of: #"charset="?utf-8"?"#, options: .regularExpression) != nil
            }
        }
    }

    /// What was sent instead of the UTF-8 bytes, without the bytes themselves.
    static func describe(_ sent: [UInt8], against utf8: [UInt8], encoding: String?) -> String {
        if let encoding {
            return "expected \(utf8.count) bytes of UTF-8; the client sent \(sent.count) bytes, the password in \(encoding)"
        }
        let differ = zip(sent, utf8).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? min(sent.count, utf8.count)
        return "expected \(utf8.count) bytes of UTF-8; the client sent \(sent.count) bytes that differ from byte \(differ) on"
            + (sent.contains(0xEF) && sent.contains(0xBF) ? " (U+FFFD replacement characters among them)" : "")
    }
}

/// The forms the mocks served, for knowing what a posted field was meant to hold.
enum ServedForms {
    struct Served {
        let entry: TrafficEntry
        let form: HTMLForm
        let action: String
    }

    /// The latest form served before `entry` whose action is where `entry` went.
    static func latest(in entries: [TrafficEntry], before entry: TrafficEntry) -> Served? {
        guard let target = URLParts(MessageTraffic.destination(entry)) else { return nil }
        for earlier in entries.reversed() where earlier.sequence < entry.sequence {
            guard let response = earlier.response, MessageTraffic.isHTML(response), response.bodyText.contains("<form") else { continue }
            let base = MessageTraffic.destination(earlier)
            for form in HTMLFormParser.forms(in: response.bodyText) {
                let action = MessageTraffic.resolve(form.action ?? base, against: base)
                if let parts = URLParts(action), parts.origin == target.origin, parts.decodedPath == target.decodedPath {
                    return Served(entry: earlier, form: form, action: action)
                }
            }
        }
        return nil
    }
}

/// What is wrong with how a form body or query was percent-encoded.
enum PercentEncodingProblems {
    struct Problem {
        let summary: String
        let excerpt: String
    }

    /// The first problem in `body`: a `%` starting no escape, a raw `=` inside a value, or a
    /// field whose decoded value differs from what it was meant to hold (a served hidden
    /// field, the username or password) in the way an unencoded `+`, `&` or `%` makes it.
    static func find(in body: String, intended: [String: String], credentials: Credentials) -> Problem? {
        if let offset = PercentEncoding.firstMalformedEscape(in: body) {
            return Problem(summary: "a raw `%` at offset \(offset) starts no escape (send it as `%25`)", excerpt: excerpt(body, offset))
        }
        let pairs = QueryParameter.parse(body)
        for pair in pairs where pair.rawValue.contains("=") {
            return Problem(summary: "a raw `=` in the value of `\(pair.name)` (send it as `%3D`)", excerpt: pair.raw)
        }
        var meant = intended
        for pair in pairs {
            let lower = pair.name.lowercased()
            if lower.contains("pass"), let password = credentials.password { meant[pair.name] = password }
            if lower.contains("user"), let username = credentials.username { meant[pair.name] = meant[pair.name] ?? username }
        }
        for pair in pairs {
            guard let want = meant[pair.name] else { continue }
            let got = pair.value
            if SAMLPostTraffic.withoutLineEndings(got) == SAMLPostTraffic.withoutLineEndings(want) { continue }
            if want.contains("+"), want.replacingOccurrences(of: "+", with: " ") == got {
                let offset = Array(want.utf8).firstIndex(of: UInt8(ascii: "+")) ?? 0
                return Problem(summary: "`\(pair.name)`: `+` went out raw and arrived as a space (first at offset \(offset); send it as `%2B`)",
                               excerpt: String(pair.raw.prefix(300)))
            }
            if want.contains("&"), want.hasPrefix(got), want.dropFirst(got.count).first == "&" {
                return Problem(summary: "`\(pair.name)`: a raw `&` cut the value short (send it as `%26`)", excerpt: pair.raw)
            }
            if want.contains("%"), String(decoding: PercentEncoding.percentDecode(want, plusAsSpace: true), as: UTF8.self) == got {
                return Problem(summary: "`\(pair.name)`: a raw `%` was read as an escape (send it as `%25`)", excerpt: pair.raw)
            }
        }
        return nil
    }

    static func excerpt(_ text: String, _ offset: Int) -> String {
        let bytes = Array(text.utf8)
        let start = max(0, offset - 20), end = min(bytes.count, offset + 20)
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
