import Foundation
import SAMLCore

/// What a browser does with the IdP's auto-submitting form, and no more: POST `SAMLResponse`
/// (and `RelayState`) form-encoded to the ACS, then follow the SP's redirects with a cookie jar
/// of its own — only within the ACS's origin (scheme, host, port), at most `maxRedirects`
/// times — and keep the last answer.
public struct AttackBrowser: Sendable {
    public let transport: any AttackHTTPTransport
    public var maxRedirects: Int
    /// The most of a body kept for judging and evidence.
    public var maxBodyBytes: Int

    public init(transport: any AttackHTTPTransport, maxRedirects: Int = 10, maxBodyBytes: Int = 1 << 20) {
        self.transport = transport
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
    }

    /// The last answer of a posted Response's chain.
    public struct Outcome: Sendable {
        public var status: Int
        public var finalURL: String
        public var body: String
        /// Every URL requested, the ACS first.
        public var chain: [String]
        /// Set when the chain stopped at a redirect leaving the ACS's origin (not followed).
        public var leftOrigin: String?
        /// The cookie jar at the end of the chain, as a `Cookie` header (nil when empty): what
        /// a follow-up request of the same browser (the SP's session page) sends.
        public var cookieHeader: String? = nil
        /// The names of the cookies the SP set along the chain.
        public var cookieNames: [String] = []
    }

    /// Posts `response` (XML) to `acs` the way saml-bindings-2.0-os §3.5.4 has the browser
    /// do it, with a fresh cookie jar.
    public func post(response: String, to acs: String, relayState: String?) async throws -> Outcome {
        let body = PostBinding.formBody(message: Array(response.utf8), kind: .response, relayState: relayState)
        var request = AttackHTTPRequest(method: "POST", url: acs, headers: [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Accept", "text/html,application/xhtml+xml,*/*;q=0.8"),
            ("User-Agent", "samlharness-attack-sp"),
        ], body: Array(body.utf8))
        var jar: [String: String] = [:]
        var order: [String] = []
        var chain: [String] = []
        let origin = Self.origin(of: acs)
        for _ in 0...maxRedirects {
            chain.append(request.url)
            if !jar.isEmpty {
                request.headers.removeAll { $0.name == "Cookie" }
                request.headers.append(("Cookie", order.compactMap { name in jar[name].map { "\(name)=\($0)" } }.joined(separator: "; ")))
            }
            let answer = try await transport.send(request)
            for header in answer.headers(named: "Set-Cookie") {
                // RFC 6265 §5.2: the name=value pair is what precedes the first ';'.
                let pair = header.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<eq].trimmingCharacters(in: .whitespaces)
                let value = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                if jar[name] == nil { order.append(name) }
                jar[name] = value
            }
            let text = String(decoding: answer.body.prefix(maxBodyBytes), as: UTF8.self)
            func outcome(_ left: String?) -> Outcome {
                let cookies = order.compactMap { name in jar[name].map { "\(name)=\($0)" } }
                return Outcome(status: answer.status, finalURL: request.url, body: text, chain: chain, leftOrigin: left,
                               cookieHeader: cookies.isEmpty ? nil : cookies.joined(separator: "; "), cookieNames: order)
            }
            guard [301, 302, 303, 307, 308].contains(answer.status), let location = answer.header("Location") else {
                return outcome(nil)
            }
            guard let next = Self.resolve(location, against: request.url) else { return outcome(location) }
            guard Self.origin(of: next) == origin else { return outcome(next) }
            // RFC 9110 §15.4: 307/308 repeat the method and body; 301/302/303 become a GET.
            if answer.status != 307 && answer.status != 308 {
                request = AttackHTTPRequest(method: "GET", url: next, headers: request.headers.filter {
                    $0.name != "Content-Type" && $0.name != "Cookie"
                })
            } else {
                request.url = next
            }
        }
        throw AttackSPError.tooManyRedirects(maxRedirects, chain.last ?? acs)
    }

    /// One GET of `url` with the cookies of a finished chain (no redirects followed): how
    /// `attack-sp` reads the SP's session page after a post. Returns the status and the body.
    public func get(_ url: String, cookieHeader: String?) async throws -> (status: Int, body: String) {
        var headers: [(name: String, value: String)] = [("Accept", "text/html,*/*;q=0.8"), ("User-Agent", "samlharness-attack-sp")]
        if let cookieHeader { headers.append(("Cookie", cookieHeader)) }
        let answer = try await transport.send(AttackHTTPRequest(method: "GET", url: url, headers: headers))
        return (answer.status, String(decoding: answer.body.prefix(maxBodyBytes), as: UTF8.self))
    }

    /// `scheme://host:port` (the port spelled out), lowercased: two URLs are same-origin
    /// exactly when these are equal (RFC 6454 §4).
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased() else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// A Location header made absolute (RFC 9110 §10.2.2 allows relative references).
    static func resolve(_ location: String, against base: String) -> String? {
        guard let baseURL = URL(string: base), let url = URL(string: location, relativeTo: baseURL) else { return nil }
        let absolute = url.absoluteString
        guard let scheme = URLComponents(string: absolute)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return nil
        }
        return absolute
    }
}
