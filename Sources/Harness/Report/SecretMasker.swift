import Foundation
import SAMLCore

/// Masks secrets in what a report shows, by default (`--show-secrets` turns it off):
/// - the scenario user's password and second-factor code anywhere, as typed and as the
///   bindings encode them (form-encoded, percent-encoded, XML- and HTML-escaped, JSON);
/// - `Authorization` and `Proxy-Authorization` values (the scheme stays; of a Digest answer
///   only its `response`, so a reader sees which challenge it answered), cookie values in
///   `Cookie` and `Set-Cookie` (names and attributes stay);
/// - CAS tickets (`ST-`, `TGT-`, `PT-`, `PGT-`, `PGTIOU-`: the prefix stays), bearer tokens,
///   `access_token` / `refresh_token` / `id_token` values in URLs and JSON;
/// - the WS-Security `Password` element's text (WS-Trust `UsernameToken`).
///
/// Masking is idempotent: masking a masked trace changes nothing, so a report can mask again
/// whatever it reads.
public struct SecretMasker: Sendable {
    /// What replaces a secret.
    public static let mark = "[masked]"

    /// The literal strings to mask, longest first.
    let literals: [String]
    /// The forms of the secrets a buggy client sends unencoded (as typed; spaces as `+`),
    /// whose pieces evidence may quote (``evidence(_:)``).
    let fragmentSources: [String]
    /// Every ``fragmentLength``-byte window of the ``fragmentSources``, its bytes packed in
    /// one integer: a text that holds none of them holds no piece worth masking, which is
    /// the common case.
    let fragmentWindows: Set<UInt64>
    /// The secrets' bytes in every encoding a client may use (UTF-8, Latin-1): a base64 token
    /// that decodes to a text holding one (Basic's `user:password`) is masked whole.
    let byteSecrets: [[UInt8]]

    /// - Parameter secrets: the scenario's own secrets (password, second-factor code);
    ///   values shorter than 3 characters are not masked (they would mask half the text).
    public init(secrets: [String] = []) {
        // Kept apart by their bytes: Swift's String equality (and so a Set<String>) takes
        // the composed and decomposed forms of a text for one.
        var variants = ByteDistinct()
        var sources = ByteDistinct()
        var byteSecrets: [[UInt8]] = []
        for secret in secrets where secret.count >= 3 {
            variants.insert(secret)
            // A client that does not encode its form body sends spaces as `+`, the rest raw.
            variants.insert(secret.replacingOccurrences(of: " ", with: "+"))
            sources.insert(secret)
            sources.insert(secret.replacingOccurrences(of: " ", with: "+"))
            // The search is on bytes: a client that sends the password composed (NFC) or
            // decomposed (NFD) otherwise than the profile stores it is masked too.
            for form in [secret.precomposedStringWithCanonicalMapping, secret.decomposedStringWithCanonicalMapping] {
                variants.insert(form)
                variants.insert(form.replacingOccurrences(of: " ", with: "+"))
                sources.insert(form)
                sources.insert(form.replacingOccurrences(of: " ", with: "+"))
            }
            variants.insert(PercentEncoding.formEncode(secret))
            variants.insert(PercentEncoding.queryComponentEncode(secret))
            variants.insert(PercentEncoding.lowercasingEscapes(PercentEncoding.formEncode(secret)))
            variants.insert(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret)
            variants.insert(HTMLText.escape(secret))
            variants.insert(Self.xmlEscape(secret))
            // Every byte form a client may send (UTF-8, Latin-1) as hex (`62 30 62 3D …`, with
            // and without spaces) and percent-encoded (`%E9`, `%e9`): evidence and pages quote
            // the bytes a client sent, which for a buggy client are not UTF-8.
            var byteForms = [Array(secret.utf8)]
            if let latin1 = secret.data(using: .isoLatin1) { byteForms.append(Array(latin1)) }
            for bytes in byteForms {
                for format in ["%02X", "%02x"] {
                    variants.insert(bytes.map { String(format: format, $0) }.joined(separator: " "))
                    variants.insert(bytes.map { String(format: format, $0) }.joined())
                    variants.insert(bytes.map { Self.isUnreserved($0) ? String(UnicodeScalar($0)) : "%" + String(format: format, $0) }.joined())
                }
            }
            byteSecrets.append(contentsOf: byteForms)
            if let json = try? JSONEncoder().encode(secret), let text = String(data: json, encoding: .utf8) {
                variants.insert(String(text.dropFirst().dropLast()))
            }
        }
        literals = variants.values.filter { $0.count >= 3 }.sorted { $0.utf8.count > $1.utf8.count }
        fragmentSources = sources.values.sorted { $0.utf8.count > $1.utf8.count }
        var windows: Set<UInt64> = []
        for source in fragmentSources {
            Self.forEachWindow(of: source) { window in
                windows.insert(window)
                return true
            }
        }
        fragmentWindows = windows
        self.byteSecrets = byteSecrets
    }

    /// RFC 3986 §2.3 unreserved characters, which percent-encoding leaves as they are.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        PercentEncoding.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// Strings distinct by their UTF-8 bytes, in the order first inserted.
    struct ByteDistinct {
        private(set) var values: [String] = []
        private var seen: Set<[UInt8]> = []

        mutating func insert(_ value: String) {
            if seen.insert(Array(value.utf8)).inserted { values.append(value) }
        }
    }

    /// Pieces this long or longer of a secret are masked in evidence.
    static let fragmentLength = 8

    /// ``text(_:)``, and any piece of a secret of ``fragmentLength`` characters or more
    /// masked too: evidence quotes a window of a body (a mangled password cut at `&` or
    /// at the excerpt's edge). Only for short texts (evidence, reasons): it is quadratic in
    /// the secret's length.
    public func evidence(_ text: String) -> String {
        var result = self.text(text)
        guard result.count <= 4096, !fragmentWindows.isEmpty, mayHoldFragment(result) else { return result }
        // Longest pieces first across every form of every secret, so that the longest quote
        // goes whole before a shorter piece of another form cuts it.
        let sources = fragmentSources.map(Array.init).filter { $0.count >= Self.fragmentLength }
        guard let longest = sources.map(\.count).max() else { return result }
        for length in stride(from: longest, through: Self.fragmentLength, by: -1) {
            for characters in sources where characters.count >= length {
                for start in 0...(characters.count - length) {
                    let piece = String(characters[start..<(start + length)])
                    if FastText.contains(result, piece) { result = result.replacingOccurrences(of: piece, with: Self.mark) }
                }
            }
        }
        return result
    }

    /// Whether some ``fragmentLength``-byte window of `text` is one of a secret's (a piece
    /// of a secret that is not on a character boundary is still found by the exact search).
    func mayHoldFragment(_ text: String) -> Bool {
        var found = false
        Self.forEachWindow(of: text) { window in
            if fragmentWindows.contains(window) { found = true }
            return !found
        }
        return found
    }

    /// Calls `body` with each 8-byte window (``fragmentLength``, one `UInt64`) of `text`'s
    /// UTF-8, its bytes packed in order, until `body` returns false.
    static func forEachWindow(of text: String, _ body: (UInt64) -> Bool) {
        var window: UInt64 = 0
        var count = 0
        for byte in text.utf8 {
            window = (window << 8) | UInt64(byte)
            count += 1
            if count >= fragmentLength, !body(window) { return }
        }
    }

    // MARK: - Text

    /// `text` with every secret this masker knows, and every ticket, token and WS-Security
    /// password, masked.
    public func text(_ text: String) -> String {
        var result = text
        for literal in literals where FastText.contains(result, literal) {
            result = result.replacingOccurrences(of: literal, with: Self.mark)
        }
        for rule in Self.rules where rule.mayMatch(result) { result = rule.apply(result) }
        return maskBase64Secrets(result)
    }

    /// `text` with every base64 token (8 to 1,024 characters, RFC 4648 §4 alphabet) that
    /// decodes to bytes holding a secret replaced: `Basic` credentials quoted without their
    /// header name, a password base64-encoded in a body. Longer tokens (a SAMLResponse) are
    /// skipped unread.
    func maskBase64Secrets(_ text: String) -> String {
        guard !byteSecrets.isEmpty else { return text }
        let bytes = Array(text.utf8)
        // A token is a run of the alphabet and at most two `=` of padding at its end
        // (RFC 4648 §4): an `=` ends it, so `secret=<base64>` yields the value as a token.
        var tokens: [Range<Int>] = []
        var start: Int? = nil
        var index = 0
        func close(at end: Int) {
            if let begin = start, (8...1024).contains(end - begin) { tokens.append(begin..<end) }
            start = nil
        }
        while index <= bytes.count {
            let byte = index < bytes.count ? bytes[index] : 0
            if index < bytes.count, Self.isBase64Body(byte) {
                if start == nil { start = index }
                index += 1
                continue
            }
            if start != nil, byte == UInt8(ascii: "=") {
                var end = index
                while end < bytes.count, end - index < 2, bytes[end] == UInt8(ascii: "=") { end += 1 }
                close(at: end)
                index = end
                continue
            }
            close(at: index)
            index += 1
        }
        guard !tokens.isEmpty else { return text }
        var masked: [Range<Int>] = []
        for token in tokens {
            var body = Array(bytes[token])
            while body.count % 4 != 0 { body.append(UInt8(ascii: "=")) }
            guard let decoded = Data(base64Encoded: Data(body)).map(Array.init) else { continue }
            if byteSecrets.contains(where: { SecretForms.contains(decoded, $0) }) { masked.append(token) }
        }
        guard !masked.isEmpty else { return text }
        var out: [UInt8] = []
        var cursor = 0
        for range in masked {
            out += bytes[cursor..<range.lowerBound]
            out += Array(Self.mark.utf8)
            cursor = range.upperBound
        }
        out += bytes[cursor...]
        return String(decoding: out, as: UTF8.self)
    }

    static func isBase64Body(_ byte: UInt8) -> Bool {
        PercentEncoding.isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
    }

    /// One header's value, masked as its name calls for.
    public func header(name: String, value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            // RFC 9110 §11.6.2: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ].
            guard let space = value.firstIndex(of: " ") else { return Self.mark }
            // RFC 7616 §3.4: of a Digest answer only `response` derives from the password;
            // the nonce, algorithm, nc, qop and uri say which challenge was answered, and stay.
            if value[..<space].lowercased() == "digest" {
                return text(Self.digestRule.apply(value))
            }
            return String(value[..<space]) + " " + Self.mark
        case "cookie":
            return Self.maskCookiePairs(value)
        case "set-cookie":
            // RFC 6265 §4.1.1: the first pair is the cookie; attributes follow `;`.
            let parts = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = parts.first else { return value }
            return Self.maskCookiePairs(String(first)) + (parts.count > 1 ? ";" + parts[1] : "")
        default:
            return text(value)
        }
    }

    static func maskCookiePairs(_ value: String) -> String {
        value.split(separator: ";", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            return String(pair[...eq]) + mark
        }.joined(separator: ";")
    }

    // MARK: - Results

    public func trace(_ trace: ScenarioTrace) -> ScenarioTrace {
        var masked = trace
        masked.exchanges = trace.exchanges.map(exchange)
        masked.masked = true
        masked.secrets = []
        return masked
    }

    func exchange(_ exchange: TraceExchange) -> TraceExchange {
        var copy = exchange
        copy.request.url = text(exchange.request.url)
        copy.request.headers = exchange.request.headers.map { TraceHeader($0.name, header(name: $0.name, value: $0.value)) }
        copy.request.body = exchange.request.body.map(body)
        if let response = exchange.response {
            copy.response?.headers = response.headers.map { TraceHeader($0.name, header(name: $0.name, value: $0.value)) }
            copy.response?.body = response.body.map(body)
        }
        copy.annotations = exchange.annotations?.mapValues(text)
        copy.messages = exchange.messages?.map { message in
            var m = message
            m.xml = message.xml.map(text)
            m.relayState = message.relayState.map(text)
            m.findings = message.findings?.map(text)
            m.error = message.error.map(text)
            return m
        }
        return copy
    }

    func body(_ body: TraceBody) -> TraceBody {
        var copy = body
        copy.text = body.text.map(text)
        return copy
    }

    /// A result with its trace, reasons, evidence and client output masked. A result whose
    /// trace carries the scenario's secrets (a run in memory) is masked with them too.
    public static func mask(_ result: ScenarioResult) -> ScenarioResult {
        SecretMasker(secrets: result.trace?.secrets ?? []).result(result)
    }

    public func result(_ result: ScenarioResult) -> ScenarioResult {
        var copy = result
        // The harness's own prose (reasons, details) names checks and places; only whole
        // secrets are masked there, never an 8-character piece (`password` in
        // `security.password-only-to-idp`). Quotes of traffic and the client's own output
        // may hold a piece of a secret a buggy client cut, and are masked for those too.
        copy.reason = result.reason.map(text)
        copy.verdicts = result.verdicts.map { verdict in
            var v = verdict
            v.reason = text(verdict.reason)
            v.evidence = verdict.evidence.map { item in
                var e = item
                e.detail = text(item.detail)
                e.excerpt = item.excerpt.map(evidence)
                return e
            }
            return v
        }
        if var client = result.client {
            client.error = client.error.map(evidence)
            client.outcome = client.outcome.map(text)
            client.reportProblem = client.reportProblem.map(evidence)
            client.stderrTail = client.stderrTail.map(evidence)
            client.details = client.details?.mapValues(evidence)
            copy.client = client
        }
        copy.trace = result.trace.map(trace)
        return copy
    }

    // MARK: - Rules

    struct Rule: @unchecked Sendable {
        let expression: NSRegularExpression?
        let template: String
        /// Lowercase ASCII strings one of which every match contains (compared without
        /// regard to ASCII case): a text without any is not handed to the regex engine,
        /// which costs a UTF-16 copy of the whole text per rule.
        let triggers: [String]
        /// ICU folds two non-ASCII letters onto ASCII ones when it ignores case: `ſ`
        /// (U+017F) is `s` and the Kelvin sign (U+212A) is `k`. A case-insensitive rule sees
        /// every text that holds either.
        let foldsCase: Bool

        init(_ pattern: String, _ template: String, options: NSRegularExpression.Options = [], triggers: [String]) {
            // The patterns are constants of this file; a typo is caught by the masking tests.
            expression = try? NSRegularExpression(pattern: pattern, options: options)
            self.template = template
            self.triggers = triggers
            foldsCase = options.contains(.caseInsensitive)
        }

        func mayMatch(_ text: String) -> Bool {
            if foldsCase, FastText.contains(text, "\u{17F}") || FastText.contains(text, "\u{212A}") { return true }
            return triggers.contains { FastText.containsIgnoringASCIICase(text, lowercased: $0) }
        }

        func apply(_ text: String) -> String {
            guard let expression else { return text }
            let range = NSRange(text.startIndex..., in: text)
            return expression.stringByReplacingMatches(in: text, range: range, withTemplate: template)
        }
    }

    static let rules: [Rule] = [
        // CAS protocol §3.1, §3.3, §3.4, §3.5: tickets begin `ST-`, `PT-`, `TGT-`, `PGT-`, `PGTIOU-`.
        Rule(#"\b(ST|PT|TGT|PGT|PGTIOU)-(?!\[masked\])[A-Za-z0-9][A-Za-z0-9._\-]{5,}"#, "$1-[masked]",
             triggers: ["st-", "pt-", "gt-", "iou-"]),
        // RFC 6750 §2.1: `Bearer` b64token.
        Rule(#"(Bearer\s+)(?!\[masked\])[A-Za-z0-9\-._~+/]+=*"#, "$1[masked]", options: [.caseInsensitive], triggers: ["bearer"]),
        // RFC 6749 §4.2.2 / §5.1 token parameters, in URLs and forms…
        Rule(#"\b((?:access|refresh|id)_token=)(?!\[masked\])[^&\s"'<>#]+"#, "$1[masked]", triggers: ["_token="]),
        // …and in JSON.
        Rule(#"("(?:access|refresh|id)_token"\s*:\s*")(?!\[masked\])[^"]*"#, "$1[masked]", triggers: ["_token\""]),
        // Header lines quoted in evidence: credentials and cookies.
        // To the end of the line: a Digest field's quoted parameters are credentials too.
        Rule(#"(?m)((?:Proxy-)?Authorization:\s*(?!Digest\s)[A-Za-z]+\s+)(?!\[masked\])[^\r\n]+"#, "$1[masked]", options: [.caseInsensitive],
             triggers: ["authorization:"]),
        // …but of a Digest answer only its `response` (RFC 7616 §3.4).
        Rule(#"(?m)((?:Proxy-)?Authorization:\s*Digest\s[^\r\n]*?\bresponse\s*=\s*"?)(?!\[masked\])[^",\s\r\n]+"#, "$1[masked]",
             options: [.caseInsensitive], triggers: ["authorization:"]),
        // Password form fields (`password`, `j_password`, `passwd`…) quoted in evidence, even
        // when a buggy client sent the value unencoded and it no longer matches the password.
        Rule(#"\b([A-Za-z_]*(?:password|passwd|pwd)=)(?!\[masked\])[^&\s"'<>]+"#, "$1[masked]", options: [.caseInsensitive],
             triggers: ["password=", "passwd=", "pwd="]),
        Rule(#"("(?:password|passwd)"\s*:\s*")(?!\[masked\])[^"]*"#, "$1[masked]", options: [.caseInsensitive],
             triggers: ["password\"", "passwd\""]),
        // WS-Security UsernameToken Profile 1.1 §3.1: `<wsse:Password>` carries the password.
        Rule(#"(<(?:[A-Za-z0-9_.\-]+:)?Password\b[^>]*>)(?!\[masked\])[^<]*(</(?:[A-Za-z0-9_.\-]+:)?Password>)"#,
             "$1[masked]$2", triggers: ["password>"]),
    ]

    /// The `response` parameter of a Digest `Authorization` value (RFC 7616 §3.4), quoted or
    /// not.
    static let digestRule = Rule(#"(\bresponse\s*=\s*"?)(?!\[masked\])[^",\s]+"#, "$1[masked]", options: [.caseInsensitive],
                                 triggers: ["response"])

    static func xmlEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
    }
}

/// Substring tests on UTF-8 bytes, without Foundation's NSString bridging (a UTF-16 copy per
/// call): masking runs them over every header, URL and body of every trace. Byte equality,
/// not canonical equivalence: ``SecretMasker`` adds the NFC and NFD forms of each secret.
enum FastText {
    /// Whether `needle`'s bytes occur in `haystack`'s (for valid UTF-8 the same as a
    /// substring test on Unicode scalars; `String.contains` also equates canonically
    /// equivalent text, this does not).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        var haystack = haystack
        var needle = needle
        return haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard !n.isEmpty else { return true }
                guard n.count <= h.count, let hBase = h.baseAddress, let nBase = n.baseAddress else { return false }
                // memchr to each candidate first byte, memcmp for the rest (glibc's memmem
                // is not exported to Swift).
                let first = Int32(n[0])
                var offset = 0
                let last = h.count - n.count
                while offset <= last {
                    guard let hit = memchr(hBase + offset, first, last - offset + 1) else { return false }
                    let position = UnsafeRawPointer(hit) - UnsafeRawPointer(hBase)
                    if memcmp(hBase + position, nBase, n.count) == 0 { return true }
                    offset = position + 1
                }
                return false
            }
        }
    }

    /// Whether `lowercased` (lowercase ASCII) occurs in `haystack`, ASCII letters compared
    /// without regard to case.
    static func containsIgnoringASCIICase(_ haystack: String, lowercased: String) -> Bool {
        var haystack = haystack
        let needle = Array(lowercased.utf8)
        guard let first = needle.first else { return true }
        let firstUpper = (first >= 0x61 && first <= 0x7A) ? first - 0x20 : first
        return haystack.withUTF8 { h in
            guard needle.count <= h.count else { return false }
            var i = 0
            let last = h.count - needle.count
            while i <= last {
                let b = h[i]
                if b == first || b == firstUpper {
                    var j = 1
                    while j < needle.count {
                        var c = h[i + j]
                        if c >= 0x41 && c <= 0x5A { c += 0x20 }
                        if c != needle[j] { break }
                        j += 1
                    }
                    if j == needle.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}
