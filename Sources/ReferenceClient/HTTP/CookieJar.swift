import Foundation

/// The login's own cookie jar (RFC 6265, the parts a login needs).
///
/// URLSession trap: `HTTPCookieStorage.shared` is process-wide, so two logins in one
/// process (or the runner's parallel scenarios) would share sessions. The session is
/// configured with `httpCookieStorage = nil` and `httpShouldSetCookies = false`, and this
/// jar — one per client run — sets the `Cookie` header itself. It also avoids the Linux
/// Foundation habit of joining several `Set-Cookie` headers into one comma-separated field
/// (see ``splitSetCookie(_:)``).
final class CookieJar: @unchecked Sendable {
    struct Cookie: Equatable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var expires: Date?
        /// The origin whose answer set it (to end one server's session: ``forget(setBy:)``).
        var setBy: String = ""
    }

    private let lock = NSLock()
    private var cookies: [Cookie] = []
    private let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// The `Cookie` header for a request to `url`, or nil.
    func header(for url: URL, now: Date = Date()) -> String? {
        guard enabled, let host = url.host?.lowercased() else { return nil }
        // Foundation trap: `URL.path` drops a trailing slash ("/app/" → "/app"), which
        // breaks RFC 6265 path-match for `Path=/app/`; `path(percentEncoded:)` keeps it.
        let urlPath = url.path(percentEncoded: true)
        let path = urlPath.isEmpty ? "/" : urlPath
        let secure = url.scheme == "https"
        let matching = lock.withLock {
            cookies.removeAll { $0.expires.map { $0 <= now } ?? false }
            return cookies.filter { cookie in
                // RFC 6265 §5.4: domain-match (host-only: identical), path-match, secure.
                let domainOK = cookie.hostOnly ? host == cookie.domain
                    : host == cookie.domain || host.hasSuffix("." + cookie.domain)
                return domainOK && Self.pathMatches(path, cookie.path) && (!cookie.secure || secure)
            }.sorted { $0.path.count > $1.path.count }
        }
        return matching.isEmpty ? nil : matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies of a response from `url`.
    func store(setCookie field: String?, from url: URL, now: Date = Date()) {
        guard let field, let host = url.host?.lowercased() else { return }
        for line in Self.splitSetCookie(field) {
            guard var cookie = Self.parse(line, host: host, requestPath: url.path(percentEncoded: true), now: now) else { continue }
            // RFC 6265 §5.3 step 6: a Domain attribute must domain-match the request host.
            if !cookie.hostOnly && !(host == cookie.domain || host.hasSuffix("." + cookie.domain)) { continue }
            cookie.domain = cookie.domain.lowercased()
            cookie.setBy = Origin(url)?.description ?? ""
            lock.withLock {
                cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                cookies.append(cookie)
            }
        }
    }

    /// Forgets the cookies one origin set (ends the session there, keeps the others).
    /// Cookies ignore ports (RFC 6265 §8.5), so on loopback the SP's and the IdP's share a
    /// host; the setter tells them apart.
    func forget(setBy origin: Origin) {
        lock.withLock { cookies.removeAll { $0.setBy == origin.description } }
    }

    /// Forgets the cookies `origin` set that a request for `path` would carry (RFC 6265
    /// §5.1.4 path-match), keeping its cookies for other paths.
    func forget(setBy origin: Origin, applyingTo path: String) {
        let path = path.isEmpty ? "/" : path
        lock.withLock {
            cookies.removeAll { cookie in
                guard cookie.setBy == origin.description else { return false }
                return path == cookie.path || (path.hasPrefix(cookie.path)
                    && (cookie.path.hasSuffix("/") || path.dropFirst(cookie.path.count).hasPrefix("/")))
            }
        }
    }

    /// Cookie names held (for details).
    var names: [String] { lock.withLock { cookies.map(\.name) } }

    /// Splits a `Set-Cookie` field that Linux Foundation joined with ", ": a comma starts a
    /// new cookie only when `name=` follows (an `Expires` date's comma is followed by a day).
    static func splitSetCookie(_ field: String) -> [String] {
        var parts: [String] = []
        var current = ""
        let characters = Array(field)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "," {
                let rest = String(characters[(index + 1)...]).drop { $0 == " " }
                let token = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " }
                if !token.isEmpty, rest.dropFirst(token.count).first == "=" {
                    parts.append(current)
                    current = ""
                    index += 1
                    continue
                }
            }
            current.append(character)
            index += 1
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func parse(_ line: String, host: String, requestPath: String, now: Date) -> Cookie? {
        let pieces = line.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = pieces.first, let equals = first.firstIndex(of: "=") else { return nil }
        let name = first[..<equals].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        var cookie = Cookie(name: name, value: first[first.index(after: equals)...].trimmingCharacters(in: .whitespaces),
                            domain: host, hostOnly: true, path: defaultPath(requestPath), secure: false, expires: nil)
        var maxAge: Double?
        for attribute in pieces.dropFirst() {
            let pair = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let key = pair.first?.lowercased() ?? ""
            let value = pair.count > 1 ? pair[1] : ""
            switch key {
            case "domain" where !value.isEmpty:
                cookie.domain = value.hasPrefix(".") ? String(value.dropFirst()) : value
                cookie.hostOnly = false
            case "path" where value.hasPrefix("/"): cookie.path = value
            case "secure": cookie.secure = true
            case "max-age": maxAge = Double(value)
            case "expires": cookie.expires = httpDate(value)
            default: break
            }
        }
        // RFC 6265 §5.3 step 3: Max-Age wins over Expires.
        if let maxAge { cookie.expires = now.addingTimeInterval(maxAge) }
        return cookie
    }

    /// RFC 6265 §5.1.4 default-path.
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        requestPath == cookiePath
            || (requestPath.hasPrefix(cookiePath) && (cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"))
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE, dd-MMM-yyyy HH:mm:ss zzz"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
