import Foundation
import MockServers

/// A cookie a mock set (RFC 6265 §5.2–5.3): where it was set, its scope, whether it was a
/// deletion.
struct SetCookieRecord {
    let entry: TrafficEntry
    let name: String
    let value: String
    /// The host that set it, and the `Domain` attribute (leading dot removed) when given.
    let host: String
    let domain: String?
    let path: String
    /// `Max-Age` ≤ 0 or an `Expires` in the past: the cookie is removed.
    let removes: Bool
    /// The `Secure` attribute: only over a secure channel (RFC 6265 §5.4 step 1).
    var secure = false

    /// RFC 6265 §5.4 step 1: domain-match (host-only without `Domain`) and path-match; ports
    /// play no part (RFC 6265 §8.5).
    func applies(toHost host: String, path requestPath: String) -> Bool {
        let hostMatches = domain.map { host == $0 || host.hasSuffix("." + $0) } ?? (host == self.host)
        return hostMatches && CookieTraffic.pathMatches(requestPath, path)
    }
}

enum CookieTraffic {
    /// Every `Set-Cookie` of the run's answers, in order.
    static func records(_ entries: [TrafficEntry]) -> [SetCookieRecord] {
        entries.flatMap { entry -> [SetCookieRecord] in
            guard let response = entry.response else { return [] }
            let host = MessageTraffic.destinationHost(entry)
            let requestPath = URLParts(MessageTraffic.destination(entry))?.path ?? entry.request.path
            return response.headers(named: "Set-Cookie").compactMap { parse($0, entry: entry, host: host, requestPath: requestPath) }
        }
    }

    static func parse(_ header: String, entry: TrafficEntry, host: String, requestPath: String) -> SetCookieRecord? {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let eq = first.firstIndex(of: "="), eq != first.startIndex else { return nil }
        var domain: String?, path: String?, removes = false, secure = false
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1).map(String.init)
            let value = pieces.count > 1 ? pieces[1] : ""
            switch pieces[0].lowercased() {
            case "domain" where !value.isEmpty:
                domain = (value.hasPrefix(".") ? String(value.dropFirst()) : value).lowercased()
            case "path" where value.hasPrefix("/"): path = value
            case "secure": secure = true
            case "max-age": if let seconds = Int(value), seconds <= 0 { removes = true }
            case "expires":
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
                if let date = formatter.date(from: value), date < entry.started { removes = true }
            default: break
            }
        }
        return SetCookieRecord(entry: entry, name: String(first[..<eq]), value: String(first[first.index(after: eq)...]),
                               host: host, domain: domain, path: path ?? defaultPath(requestPath), removes: removes, secure: secure)
    }

    /// RFC 6265 §5.1.4: the default-path of a request path.
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265 §5.1.4: path-match.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let path = requestPath.isEmpty ? "/" : requestPath
        if path == cookiePath { return true }
        guard path.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).first == "/"
    }
}

/// Cookies the servers set are sent back on the following requests to them (same origin,
/// matching path) until they are replaced or removed. RFC 6265 §5.3, §5.4.
struct CookiesKeptCheck: Check {
    static let id = "flow.cookies-kept"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        let records = CookieTraffic.records(entries)
        guard !records.isEmpty else { return .notApplicable("no server set a cookie in this run") }
        var evidence: [Evidence] = []
        for record in records where !record.removes {
            let origin = MessageTraffic.destinationOrigin(record.entry)
            let replaced = records.first {
                $0.entry.sequence > record.entry.sequence && $0.name == record.name && $0.path == record.path && $0.host == record.host
            }?.entry.sequence ?? Int.max
            guard let next = entries.first(where: {
                $0.sequence > record.entry.sequence && $0.sequence <= replaced
                    && MessageTraffic.destinationOrigin($0) == origin
                    && CookieTraffic.pathMatches(URLParts(MessageTraffic.destination($0))?.path ?? $0.request.path, record.path)
            }) else { continue }
            // A replay knows what the recorded client sent: a cookie it did not send back either
            // was not needed for the recorded login (requests-ecp drops the browser flow's cookie
            // when it switches to ECP, and the real SP does not mind).
            if next.annotations["replay.entry"] != nil, next.request.cookie(record.name) == nil,
               !(next.annotations["replay.cookies-missing"] ?? "").split(separator: ",").contains(Substring(record.name)) {
                continue
            }
            guard next.request.cookie(record.name) != nil else {
                return .fail("the cookie `\(record.name)` set in #\(record.entry.sequence) was not sent back in #\(next.sequence)",
                             [MessageTraffic.evidence(record.entry, "Set-Cookie", excerpt: "\(record.name)=\(record.value); Path=\(record.path)"),
                              MessageTraffic.evidence(next, "the next request to \(origin)\(record.path)",
                                                      excerpt: next.request.headers(named: "Cookie").joined(separator: "; "))])
            }
            evidence.append(MessageTraffic.evidence(next, "`\(record.name)` of #\(record.entry.sequence) sent back"))
        }
        guard !evidence.isEmpty else { return .notApplicable("the client made no request a cookie it was given applies to") }
        return .pass("every cookie was sent back on the next request it applies to (\(evidence.count))", evidence)
    }
}

/// Cookies go only to the host and path they belong to: no IdP cookie to the SP, no SP cookie
/// to the IdP (by host and path; RFC 6265 gives ports no isolation). RFC 6265 §5.4.
struct CookiesScopedCheck: Check {
    static let id = "flow.cookies-scoped"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        let records = CookieTraffic.records(entries)
        var sent = 0
        for entry in entries {
            let host = MessageTraffic.destinationHost(entry)
            let path = URLParts(MessageTraffic.destination(entry))?.path ?? entry.request.path
            for cookie in entry.request.cookies {
                let setters = records.filter { $0.entry.sequence < entry.sequence && $0.name == cookie.name && $0.value == cookie.value }
                guard !setters.isEmpty else { continue }
                sent += 1
                if setters.contains(where: { $0.applies(toHost: host, path: path) }) { continue }
                let setter = setters[setters.count - 1]
                return .fail("the cookie `\(cookie.name)` that \(setter.entry.mock) set in #\(setter.entry.sequence) (host \(setter.host), path \(setter.path)) went to \(host)\(path) in #\(entry.sequence)",
                             [MessageTraffic.evidence(setter.entry, "Set-Cookie", excerpt: "\(cookie.name)=\(cookie.value); Path=\(setter.path)"),
                              MessageTraffic.evidence(entry, "sent out of scope", excerpt: entry.request.headers(named: "Cookie").joined(separator: "; "))])
            }
        }
        guard sent > 0 else { return .notApplicable("the client sent none of the cookies the servers set in this run") }
        return .pass("all \(sent) cookie(s) sent went to the host and path they belong to")
    }
}
