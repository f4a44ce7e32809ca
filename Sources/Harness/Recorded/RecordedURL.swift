import Foundation

/// An absolute http(s) URL split the way the replay needs it: the origin
/// (`scheme://host[:port]`, RFC 6454 §4, the default port left out), the path and the raw query,
/// percent-escapes kept as written.
struct RecordedURL: Sendable, Equatable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: String?

    /// Parses `text`; nil when it is not an absolute http or https URL.
    init?(_ text: String) {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let afterScheme = text[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = String(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            // RFC 3986 §3.2.2: an IPv6 literal in brackets.
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            let portText = authority[authority.index(after: colon)...]
            if !portText.isEmpty {
                guard let value = Int(portText), (0...65535).contains(value) else { return nil }
                port = value
            }
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port == Self.defaultPort(scheme) ? nil : port
        var rest = afterScheme[authorityEnd...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let question = rest.firstIndex(of: "?") {
            path = String(rest[..<question])
            query = String(rest[rest.index(after: question)...])
        } else {
            path = String(rest)
            query = nil
        }
        if path.isEmpty { path = "/" }
    }

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// `scheme://host[:port]`.
    var origin: String { scheme + "://" + host + (port.map { ":\($0)" } ?? "") }

    /// The path and query (`/a?b=c`).
    var target: String { path + (query.map { "?" + $0 } ?? "") }
}
