import Foundation
import SAMLCore

/// What keeps the control plane of one `serve` session — the control API and the live
/// console — to the person who started it (docs/security.md), as Jupyter and mitmweb keep
/// theirs:
///
/// - a **token** random per session, required by the console always and by the control API
///   whenever a listener of the session is reachable from beyond loopback
///   (`Authorization: Bearer TOKEN`, `?token=TOKEN`, or the console's cookie);
/// - **`Host`** must not be a DNS name other than `localhost`, the bound host or the public
///   host: a page of `rebind.example` resolved to 127.0.0.1 (DNS rebinding) gets 403, while
///   an IP literal (no name to rebind) passes;
/// - **`Origin`**, when sent, must be the request's own (`http://` + its `Host`): a page of
///   another site cannot drive the API from a browser;
/// - **state changes** (`PUT`, `POST`, `DELETE`) need `Content-Type: application/json`, which
///   no cross-site form can send and no cross-site `fetch` sends without a CORS preflight the
///   harness never grants.
public final class SessionGuard: Sendable {
    /// Why a request was refused: the status and a sentence naming what was wrong.
    public struct Refusal: Sendable, Equatable, Error {
        public let status: Int
        public let message: String

        public init(status: Int, message: String) {
            self.status = status
            self.message = message
        }
    }

    /// The session's secret: 32 hex digits from the system's random source.
    public let token: String
    /// Whether the control API demands the token (a listener is reachable beyond loopback).
    public let tokenRequired: Bool
    /// DNS names `Host` may carry besides `localhost` (the bound and the public host).
    private let names: LockedValue<Set<String>>

    /// - Parameters:
    ///   - boundHost: the address the mocks are bound to (`--host`).
    ///   - publicHost: the name the mocks hand out (`--public-host`), if another.
    ///   - token: the session's token (random by default).
    public init(boundHost: String, publicHost: String? = nil, token: String = SessionGuard.randomToken()) {
        self.token = token
        tokenRequired = !Self.isLoopbackName(boundHost)
        names = LockedValue(Set([boundHost, publicHost].compactMap { $0?.lowercased() }))
    }

    /// Another name `Host` may carry (the console's `--console-host`).
    public func allow(name: String) {
        names.withLock { _ = $0.insert(name.lowercased()) }
    }

    /// 128 random bits as 32 lower-case hex digits.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Whether `address` (a bound address or a host name) is loopback.
    public static func isLoopbackName(_ address: String) -> Bool {
        let name = address.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return name == "localhost" || name == "::1" || name.hasPrefix("127.") || name.hasPrefix("::ffff:127.")
    }

    /// The checks every request gets, token aside: `Host`, `Origin`, and the media type of a
    /// state change. Nil when the request may go on.
    public func checkRequest(method: String, header: (String) -> String?) -> Refusal? {
        var hostName: String?
        if let host = header("Host") {
            guard let name = Self.hostName(ofAuthority: host) else {
                return Refusal(status: 400, message: "the Host field \(Self.quoted(host)) is not a host[:port]")
            }
            hostName = name
            guard Self.isIPLiteral(name) || name == "localhost" || names.withLock({ $0.contains(name) }) else {
                return Refusal(status: 403, message: "the Host field names \(Self.quoted(name)), which this session does not serve "
                    + "(a page of another site resolved to this machine: DNS rebinding); use 127.0.0.1 or localhost")
            }
        }
        if let origin = header("Origin") {
            let same = header("Host").map { ["http://" + $0.lowercased(), "https://" + $0.lowercased()] } ?? []
            guard same.contains(origin.lowercased()) else {
                return Refusal(status: 403, message: "a request from the page of \(Self.quoted(origin)) may not use the control API: "
                    + "only the session's own console may (\(hostName.map { "Host \($0)" } ?? "no Host field"))")
            }
        }
        let upper = method.uppercased()
        if upper != "GET" && upper != "HEAD" && upper != "OPTIONS" {
            let type = header("Content-Type").map { $0.split(separator: ";").first.map(String.init) ?? "" }?
                .trimmingCharacters(in: .whitespaces).lowercased()
            guard type == "application/json" else {
                return Refusal(status: 415, message: "a state change (\(upper)) is taken as Content-Type: application/json only, "
                    + "not \(type.map { Self.quoted($0) } ?? "without a Content-Type") (no cross-site form can send JSON)")
            }
        }
        return nil
    }

    /// Whether `presented` is the session's token (compared in constant time).
    public func isToken(_ presented: String?) -> Bool {
        guard let presented else { return false }
        let a = Array(presented.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The token a request presents: `Authorization: Bearer …` or `?token=…`.
    public static func presentedToken(header: (String) -> String?, query: String?) -> String? {
        if let authorization = header("Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return query.flatMap { queryValue("token", in: $0) }
    }

    /// The value of `name` in a query string (percent-decoded).
    public static func queryValue(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first == Substring(name) {
                return parts.count > 1 ? String(parts[1]).removingPercentEncoding : ""
            }
        }
        return nil
    }

    /// The host of `host[:port]`, brackets of an IPv6 literal removed, lower-cased.
    static func hostName(ofAuthority authority: String) -> String? {
        let trimmed = authority.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty, !trimmed.contains("@"), !trimmed.contains("/") else { return nil }
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { return nil }
            let rest = trimmed[trimmed.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && Int(rest.dropFirst()) != nil) else { return nil }
            return String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return nil }
        if parts.count == 2, Int(parts[1]) == nil { return nil }
        return String(parts[0])
    }

    /// An IPv4 dotted quad or an IPv6 literal: no DNS name, nothing to rebind.
    static func isIPLiteral(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    static func quoted(_ text: String) -> String {
        "\"" + String(text.prefix(200)).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
