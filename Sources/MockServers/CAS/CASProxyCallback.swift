import Foundation
import SAMLCore

/// A `pgtUrl` the server will call. Real CAS calls it over HTTPS with a trusted certificate
/// (CAS protocol 3.0 §2.5.4); the mock calls plain `http` on loopback only (127.0.0.0/8,
/// `localhost`, `::1`) so it can never be turned against another host. Anything else
/// (including `https`, for which the mock has no TLS client) is refused and answered with
/// `INVALID_PROXY_CALLBACK`.
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
