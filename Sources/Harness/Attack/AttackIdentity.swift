import Foundation

/// Where `attack-sp` learns who the SP logged in after a post. A wrapping or injection attack
/// succeeds only when the SP acts on the forged content (the victim's NameID or attributes);
/// a login as the genuinely signed subject means the SP ignored the forgery. The success
/// pattern says *that* someone was logged in; these sources say *who*.
///
/// - `identityPattern`: a regular expression over the final page; its first capture group (or
///   the whole match) is the user the page names (`REMOTE_USER=(\S+)`).
/// - `sessionURL`: a page of the SP, same origin as the ACS, fetched with the post's cookies
///   (Shibboleth SP's `/Shibboleth.sso/Session` with `showAttributeValues="true"`); every
///   NameID and attribute value it shows counts.
/// - `spLog`: a log file of the SP (Shibboleth SP's `transaction.log`); the lines written
///   while the post ran count.
///
/// With none of them, the final page itself is searched for the identities involved.
public struct AttackIdentitySources: Sendable, Codable, Equatable {
    public var identityPattern: String?
    public var sessionURL: String?
    public var spLog: String?

    /// No source: the final page is searched.
    public init() {}

    /// Checks the pattern (at most one capture group) and that the session page shares the
    /// ACS's origin (the browser's cookies go only there).
    public init(identityPattern: String?, sessionURL: String?, spLog: String?, acsURL: String?) throws {
        if let identityPattern {
            let regex: NSRegularExpression
            do { regex = try NSRegularExpression(pattern: identityPattern) } catch {
                throw AttackSPError.usage("--identity-pattern \"\(identityPattern)\" is not a valid regular expression: \(error)")
            }
            if regex.numberOfCaptureGroups > 1 {
                throw AttackSPError.usage("--identity-pattern must have at most one capture group (the user), not \(regex.numberOfCaptureGroups)")
            }
        }
        if let sessionURL, let acsURL, AttackBrowser.origin(of: sessionURL) != AttackBrowser.origin(of: acsURL) {
            throw AttackSPError.usage("--session-url \(sessionURL) must be on the ACS's origin (the session cookie is sent only there)")
        }
        self.identityPattern = identityPattern
        self.sessionURL = sessionURL
        self.spLog = spLog
    }

    public var isEmpty: Bool { identityPattern == nil && sessionURL == nil && spLog == nil }

    /// One line for the report: what was consulted.
    public var described: String {
        var parts: [String] = []
        if let identityPattern { parts.append("--identity-pattern '\(identityPattern)'") }
        if let sessionURL { parts.append("session page \(sessionURL)") }
        if let spLog { parts.append("SP log \(spLog)") }
        return parts.isEmpty ? "the final page only (give --identity-pattern, --session-url or --sp-log)" : parts.joined(separator: ", ")
    }
}

/// What one source showed after a post.
public struct IdentityObservation: Sendable, Codable, Equatable {
    /// `identity-pattern`, `session`, `sp-log` or `page`.
    public var source: String
    /// The captured user (`identity-pattern`: compared whole), or the text searched.
    public var text: String
    /// True when `text` is a captured user, false when identities are searched in it.
    public var exact: Bool
}

/// Who a post logged in, as the sources tell it.
public enum ObservedIdentity: Sendable, Equatable {
    /// The forged identity (the victim; for `nameid-comment`, the text before the comment).
    case forged(String, source: String)
    /// `nameid-comment`'s whole NameID, which the IdP genuinely signed.
    case whole(String, source: String)
    /// The subject the IdP signed: the forgery was ignored.
    case signed(String, source: String)
    /// A captured user that is none of those.
    case other(String, source: String)
    /// No source named anyone.
    case unknown

    /// The identities involved in one attack, most telling first: the forged one wins over
    /// the whole NameID, which wins over the signed subject.
    public static func classify(_ observations: [IdentityObservation], signed: String, forged: String,
                                whole: String? = nil) -> ObservedIdentity {
        // Every source that shows the identity, comma-separated.
        func seen(_ identity: String) -> String? {
            let sources = observations.filter { $0.exact ? $0.text == identity : IdentityText.mentions($0.text, identity) }
                .map(\.source)
            return sources.isEmpty ? nil : sources.joined(separator: ", ")
        }
        if let source = seen(forged) { return .forged(forged, source: source) }
        if let whole, let source = seen(whole) { return .whole(whole, source: source) }
        if let source = seen(signed) { return .signed(signed, source: source) }
        if let captured = observations.first(where: { $0.exact && !$0.text.isEmpty }) {
            return .other(captured.text, source: captured.source)
        }
        return .unknown
    }
}

/// Reads the sources around one post.
public struct AttackIdentityReader: Sendable {
    public let sources: AttackIdentitySources
    public let browser: AttackBrowser
    /// The most of a log read per post.
    public var maxLogBytes = 1 << 20

    public init(sources: AttackIdentitySources, browser: AttackBrowser) {
        self.sources = sources
        self.browser = browser
    }

    /// The log's size before a post: lines after it belong to the post.
    public func mark() -> UInt64? {
        guard let path = sources.spLog else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// Everything the sources show after `answer` (the final answer of a post).
    public func observe(_ answer: AttackBrowser.Outcome, logMark: UInt64?) async -> [IdentityObservation] {
        var observations: [IdentityObservation] = []
        if let pattern = sources.identityPattern, let user = Self.capture(pattern, in: answer.body) {
            observations.append(IdentityObservation(source: "identity-pattern", text: user, exact: true))
        }
        if let url = sources.sessionURL, answer.cookieHeader != nil,
           let page = try? await browser.get(url, cookieHeader: answer.cookieHeader), page.status < 400 {
            observations.append(IdentityObservation(source: "session", text: IdentityText.plain(page.body), exact: false))
        }
        if let path = sources.spLog, let lines = readLog(path, from: logMark ?? 0), !lines.isEmpty {
            observations.append(IdentityObservation(source: "sp-log", text: lines, exact: false))
        }
        if sources.identityPattern == nil {
            observations.append(IdentityObservation(source: "page", text: IdentityText.plain(answer.body), exact: false))
        }
        return observations
    }

    func readLog(_ path: String, from mark: UInt64) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        // A log that shrank was rotated: its new lines start at 0.
        let start = size < mark ? 0 : mark
        guard size > start, (try? handle.seek(toOffset: start)) != nil,
              let data = try? handle.read(upToCount: maxLogBytes) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The first capture group of `pattern` in `text` (the whole match without a group),
    /// HTML entities decoded and trimmed; nil when it does not match or captures nothing.
    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        let group = regex.numberOfCaptureGroups >= 1 ? match.range(at: 1) : match.range
        guard group.location != NSNotFound, let range = Range(group, in: text) else { return nil }
        let user = IdentityText.decodeEntities(String(text[range])).trimmingCharacters(in: .whitespacesAndNewlines)
        return user.isEmpty ? nil : String(user.prefix(200))
    }
}

/// Finding an identity (an e-mail-like NameID) as a whole token in text.
public enum IdentityText {
    /// True when `identity` occurs in `text` as a whole: not inside a longer identifier
    /// (`admin@example.org` is not in `admin@example.org.attacker.example` nor in
    /// `xadmin@example.org`; a sentence's final dot is not a continuation).
    public static func mentions(_ text: String, _ identity: String) -> Bool {
        guard !identity.isEmpty else { return false }
        let haystack = Array(text.utf8), needle = Array(identity.utf8)
        guard haystack.count >= needle.count else { return false }
        func part(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "@") || byte >= 0x80
        }
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle {
                let before = index == 0 ? nil : haystack[index - 1]
                let end = index + needle.count
                let after = end < haystack.count ? haystack[end] : nil
                let afterNext = end + 1 < haystack.count ? haystack[end + 1] : nil
                let startsClean = before.map { !part($0) && $0 != UInt8(ascii: ".") } ?? true
                let continues = after.map { part($0) || ($0 == UInt8(ascii: ".") && afterNext.map(part) == true) } ?? false
                if startsClean && !continues { return true }
            }
            index += 1
        }
        return false
    }

    /// A page as text: tags dropped (each becomes a space), entities decoded.
    public static func plain(_ html: String) -> String {
        decodeEntities(html.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression))
    }

    /// The named entities HTML pages use for text, and every numeric one (`&#58;`, `&#x40;`).
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[amp...]
            guard let semi = tail.prefix(12).firstIndex(of: ";") else { out.append("&"); rest = tail.dropFirst(); continue }
            let name = tail[tail.index(after: amp)..<semi]
            var decoded: String?
            switch name {
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            case "amp": decoded = "&"
            case "nbsp": decoded = " "
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else if name.hasPrefix("#") {
                    decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                }
            }
            if let decoded {
                out += decoded
                rest = tail[tail.index(after: semi)...]
            } else {
                out.append("&")
                rest = tail.dropFirst()
            }
        }
        return out + rest
    }
}
