import Foundation
import SAMLCore

/// A `pgtUrl` the server will call. Real CAS calls it over HTTPS with a trusted certificate
/// (CAS protocol 3.0 §2.5.4); the mock calls plain `http` on loopback only (127.0.0.0/8,
/// `localhost`, `::1`) so it can never be turned against another host. Anything else
/// (including `https`, for which the mock has no TLS client) is refused and answered with
/// `INVALID_PROXY_CALLBACK`.
///
/// Nor is every loopback port fair game: a client could otherwise make the mock GET the
/// control API or any other service of the machine. The callback must reach one of the
/// suite's own mock listeners (not the control API, not the forward proxy) or an origin of
/// the profile's `cas.proxy_callback_allow` (``refusal(mockBases:allowed:)``), as Apereo CAS
/// calls only what the service's proxy policy allows.
struct CASProxyCallback: Sendable {
    let url: String
    let host: String
    let port: Int
    /// `/path?query` as it goes on the request line.
    let target: String

    init?(_ url: String) {
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let components = URLComponents(string: url), components.scheme?.lowercased() == "http",
              var host = components.host, components.user == nil, components.password == nil else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard Self.isLoopback(host) else { return nil }
        self.url = url
        self.host = host
        self.port = components.port ?? 80
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// `http://host:port`, lower case, the IPv6 host in brackets.
    var origin: String {
        let lower = host.lowercased()
        return "http://" + (lower.contains(":") ? "[\(lower)]" : lower) + ":\(port)"
    }

    /// The listeners a pgtUrl must never reach even though the suite binds them.
    static let notCallbacks: Set<String> = ["control", "proxy"]

    /// Why the mock will not call this callback, or nil when it may: its port is one of the
    /// suite's mock listeners (`mockBases`, listener name → base URL, as
    /// ``MockEnvironment/baseURLs``; the control API and the forward proxy excepted), or its
    /// origin is in `allowed` (``allowListOrigin(_:)`` of each).
    func refusal(mockBases: [String: String], allowed: [String]) -> String? {
        if Set(allowed.compactMap(Self.allowListOrigin)).contains(origin) { return nil }
        var listeners: [Int: String] = [:]
        for (name, base) in mockBases where !Self.notCallbacks.contains(name) {
            if let port = URLComponents(string: base)?.port { listeners[port] = listeners[port] ?? name }
        }
        if listeners[port] != nil { return nil }
        let known = listeners.sorted { $0.key < $1.key }.map { "\($0.value) :\($0.key)" }.joined(separator: ", ")
        return "the pgtUrl's origin \(origin) is neither one of this session's mock listeners (\(known.isEmpty ? "none" : known)) "
            + "nor in the profile's cas.proxy_callback_allow; the mock CAS calls no other port (docs/cas.md)"
    }

    /// `text` as an allow-list origin (`http://HOST:PORT`, HOST on loopback, nothing after the
    /// port but an optional `/`), normalised as ``origin``; nil when it is not one.
    static func allowListOrigin(_ text: String) -> String? {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
              components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
              components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/",
              let callback = CASProxyCallback(text) else { return nil }
        return callback.origin
    }

    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" { return true }
        let octets = lower.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// GETs the callback, with `parameters` added to its query; true on 200 or 202 (Apereo
    /// CAS `SimpleHttpClient.isValidEndPoint` with its default acceptable codes).
    func call(parameters: [(String, String)]) async -> Bool {
        var requestTarget = target
        for (name, value) in parameters {
            requestTarget += (requestTarget.contains("?") ? "&" : "?") + name + "=" + PercentEncoding.queryComponentEncode(value)
        }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let client = UpstreamClient(timeout: .seconds(5), maxBodyBytes: 1 << 20)
        do {
            let response = try await client.send(host: host, port: port, method: "GET", target: requestTarget,
                                                 headers: [("Host", authority), ("User-Agent", "Apereo CAS (SAMLHarness mock)"),
                                                           ("Accept", "*/*"), ("Connection", "close")],
                                                 body: [])
            return response.status == 200 || response.status == 202
        } catch {
            return false
        }
    }
}
