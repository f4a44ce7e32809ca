import Foundation
import MockServers
import SAMLCore

/// Reading a run's traffic the way the encoding, flow and security checks need it: what the
/// client itself sent (not the runner's control calls, not what the harness proxy relayed),
/// where a request was headed, how to name an exchange in evidence.
enum MessageTraffic {
    /// The exchanges the client under test caused: without the control API's, and without the
    /// copies the harness proxy relays to an origin (those carry its `Via`).
    static func clientEntries(_ entries: [TrafficEntry]) -> [TrafficEntry] {
        entries.filter { entry in
            guard entry.mock != "control" else { return false }
            return entry.mock == "proxy" || !isRelayed(entry)
        }
    }

    /// Which mock answers at each origin, from every exchange (the copies the proxy relays
    /// included: they name the origin behind it), so a request sent through the proxy is
    /// attributed to the server it was headed for.
    static func receivers(_ entries: [TrafficEntry]) -> [String: String] {
        var receivers: [String: String] = [:]
        for entry in entries where entry.mock != "control" && entry.mock != "proxy" {
            receivers[entry.request.origin] = receivers[entry.request.origin] ?? entry.mock
            // One server answers as 127.0.0.1 and as localhost: the Host the client named too.
            let named = destinationOrigin(entry)
            receivers[named] = receivers[named] ?? entry.mock
        }
        return receivers
    }

    /// A request the client sent through the harness proxy: received by the proxy, headed for
    /// another origin (its `Host`, or an absolute-form target).
    static func isProxied(_ entry: TrafficEntry) -> Bool {
        entry.mock == "proxy" && destinationOrigin(entry) != entry.request.origin
    }

    /// A request the harness proxy relayed to an origin (RFC 9110 §7.6.3 `Via`).
    /// Whether the scenario's start URL is itself an HTTP-auth protected page (http-basic,
    /// http-digest, http-ntlm, and the proxy flow with `proxy_target: auth-basic`): the
    /// user's credentials are for that origin.
    static func startsAtProtectedPage(_ scenario: Scenario) -> Bool {
        switch scenario.flow {
        case .httpBasic, .httpDigest, .httpNTLM: true
        case .proxy: scenario.options?.proxyTarget == "auth-basic"
        default: false
        }
    }

    static func isRelayed(_ entry: TrafficEntry) -> Bool {
        entry.request.headers(named: "Via").contains { $0.contains("samlharness-proxy") }
    }

    /// The URL the client meant: the absolute-form target of a proxied request, else the
    /// `Host` it named (one server answers as 127.0.0.1 and as localhost: two origins to a
    /// client) and the target, else the receiving mock's origin and the target.
    static func destination(_ entry: TrafficEntry) -> String {
        let request = entry.request
        guard !request.target.contains("://"), let host = request.header("Host"), !host.isEmpty,
              let scheme = URLParts(request.origin)?.scheme else { return request.url }
        return "\(scheme)://\(host)\(request.target)"
    }

    /// `scheme://host:port` of the URL a request was headed for.
    static func destinationOrigin(_ entry: TrafficEntry) -> String {
        URLParts(destination(entry))?.origin ?? entry.request.origin
    }

    /// The path a request was headed for (as written).
    static func destinationPath(_ entry: TrafficEntry) -> String {
        URLParts(destination(entry))?.path ?? entry.request.path
    }

    /// The host name (no port) a request was headed for.
    static func destinationHost(_ entry: TrafficEntry) -> String {
        URLParts(destination(entry))?.host ?? ""
    }

    /// `#12 POST /Shibboleth.sso/SAML2/POST (sp)`.
    static func label(_ entry: TrafficEntry) -> String {
        let target = entry.request.target.count > 120 ? String(entry.request.target.prefix(120)) + "…" : entry.request.target
        return "#\(entry.sequence) \(entry.request.method) \(target) (\(entry.mock))"
    }

    static func evidence(_ entry: TrafficEntry, _ detail: String, excerpt: String? = nil) -> Evidence {
        Evidence(exchange: entry.sequence, mock: entry.mock, detail: detail + replayContext(entry), excerpt: excerpt.map(shorten))
    }

    /// For an exchange a replay answered: the recorded entry that answered it and how the
    /// request differed from the recorded one, or the closest entries when none could.
    static func replayContext(_ entry: TrafficEntry) -> String {
        let a = entry.annotations
        if let number = a["replay.entry"] {
            return " [replay: recorded entry \(number)" + (a["replay.differences"].map { "; differs: \($0)" } ?? "") + "]"
        }
        if a["replay.unmatched"] != nil {
            return " [replay: not in the recording; closest entries \(a["replay.closest"] ?? "none")"
                + (a["replay.differences"].map { "; \($0)" } ?? "") + "]"
        }
        return ""
    }

    static func shorten(_ text: String) -> String {
        text.count > 600 ? String(text.prefix(600)) + "…" : text
    }

    /// Resolves a `Location` or form `action` against the URL it came from (RFC 3986 §5).
    static func resolve(_ reference: String, against base: String) -> String {
        if reference.contains("://") { return reference }
        if let url = URL(string: reference, relativeTo: URL(string: base)) { return url.absoluteString }
        if reference.hasPrefix("/"), let origin = URLParts(base)?.origin { return origin + reference }
        return reference
    }

    /// The `Location` a redirect names, resolved; nil when the answer is not a redirect.
    static func redirectLocation(_ entry: TrafficEntry) -> String? {
        guard let response = entry.response, [301, 302, 303, 307, 308].contains(response.status),
              let location = response.header("Location") else { return nil }
        return resolve(location, against: destination(entry))
    }

    /// Whether `entry`'s request went to `url` (same origin and path, same decoded query).
    static func requested(_ entry: TrafficEntry, _ url: String) -> Bool {
        guard let a = URLParts(destination(entry)), let b = URLParts(url) else { return false }
        return a.sameResource(as: b)
    }

    static func isHTML(_ response: MockResponse) -> Bool {
        (response.header("Content-Type") ?? "").lowercased().contains("html")
    }
}

/// The parts of an absolute URL the checks compare, without Foundation's re-encoding.
struct URLParts: Equatable {
    let scheme: String
    let host: String
    let port: Int?
    /// The path as written (percent-escapes kept).
    let path: String
    let rawQuery: String?

    /// Splits `url` with the replay's parser (``RecordedURL``): one way to read a URL in the
    /// harness. Nil when it is not an absolute http(s) URL.
    init?(_ url: String) {
        guard let parsed = RecordedURL(url) else { return nil }
        scheme = parsed.scheme
        host = parsed.host
        port = parsed.port
        path = parsed.path
        rawQuery = parsed.query
    }

    var effectivePort: Int { port ?? (scheme == "https" ? 443 : 80) }
    var origin: String { "\(scheme)://\(host):\(effectivePort)" }
    var decodedPath: String { String(decoding: PercentEncoding.percentDecode(path.isEmpty ? "/" : path, plusAsSpace: false), as: UTF8.self) }
    var query: [QueryParameter] { rawQuery.map(QueryParameter.parse) ?? [] }

    func sameResource(as other: URLParts) -> Bool {
        origin == other.origin && decodedPath == other.decodedPath
            && query.map { [$0.name, $0.value] } == other.query.map { [$0.name, $0.value] }
    }
}
