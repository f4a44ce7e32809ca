import Foundation
import SAMLCore

/// A forward HTTP proxy that demands Basic proxy credentials (RFC 9110 §7.7 on
/// intermediaries, §11.7.1 `Proxy-Authenticate`, §11.7.2 `Proxy-Authorization`,
/// §15.5.8 407) and forwards to its session's own mocks only.
///
/// In a ``MockSuite`` the proxy's ``ProxyScope`` names the suite's mock listeners (the IdP,
/// the SP, the HTTP-auth resources, CAS, AD FS, the circulation manager): any other target —
/// the control API, the live console, another service on a loopback port, a host elsewhere —
/// gets 403, so a client on the network that holds the proxy's credentials reaches the mocks
/// and nothing else of the machine (docs/security.md). Its password is random per suite
/// (``sessionPassword()``). Alone (no suite), the scope is every loopback origin.
///
/// Without `Proxy-Authorization`, or with wrong credentials, every request gets `407` and
/// `Proxy-Authenticate: Basic realm="SAMLHarness proxy"`. With the right ones the request
/// goes to the origin named by the absolute-form target or the `Host` field, over real
/// loopback HTTP, hop-by-hop fields removed (RFC 9110 §7.6.1) and `Via` added (§7.6.3); the
/// origin's status, fields (every `Set-Cookie` kept apart) and body come back the same way.
/// Redirects are relayed, never followed. Annotations: `proxy.result`, `proxy.upstream`,
/// plus the ``HTTPAuthResult/Key`` ones for the proxy credentials.
///
/// ```swift
/// let proxy = ForwardProxyMock()  // proxyuser / ForwardProxyMock.defaultPassword
/// let servers = try await MockServerGroup.start([.init(handler: auth), .init(handler: proxy)], log: log)
/// // curl --proxy \(servers.baseURL(of: "proxy")!) --proxy-user 'proxyuser:…' http://127.0.0.1:…/basic/x
/// ```
public struct ForwardProxyMock: MockHandler {
    /// The annotation keys and `proxy.result` values the proxy writes.
    public enum Key {
        public static let result = "proxy.result"
        /// `host:port` of the origin the request was for.
        public static let upstream = "proxy.upstream"
    }

    /// `proxy.result` values.
    public enum Result: String, Sendable, CaseIterable {
        /// Forwarded; the origin's answer is relayed.
        case forwarded
        /// 407: no, wrong or unreadable proxy credentials.
        case proxyAuthRequired = "proxy-auth-required"
        /// 400: the request named no origin, or named the proxy itself.
        case notProxyRequest = "not-a-proxy-request"
        /// 400: `Proxy-Authorization` could not be read.
        case malformedProxyAuthorization = "malformed-proxy-authorization"
        /// 403: the origin is none of the session's mocks (not on loopback, alone).
        case forbiddenUpstream = "forbidden-upstream"
        /// 501: `CONNECT` (the mocks speak plain HTTP).
        case connectUnsupported = "connect-unsupported"
        /// 502/504: the origin could not be reached or did not answer in time.
        case upstreamFailed = "upstream-failed"
    }

    /// The proxy password of a proxy made alone: `+ = & % : @`, a space and a non-ASCII letter.
    public static let defaultPassword = "pr0xy+=&% :@pässwörd"

    /// A suite's proxy password: the same characters as ``defaultPassword`` (what clients
    /// must encode), then `-` and ten random letters and digits, new for every suite, so
    /// nobody who read the source or an old ready line holds it.
    public static func sessionPassword() -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return defaultPassword + "-" + String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
    }
    /// The proxy's realm.
    public static let realm = "SAMLHarness proxy"
    /// What the proxy adds as `Via` (RFC 9110 §7.6.3).
    public static let via = "1.1 samlharness-proxy"

    /// Hop-by-hop fields, never forwarded (RFC 9110 §7.6.1; RFC 9112 §7 on Transfer-Encoding
    /// and TE; `Proxy-Connection` and `Keep-Alive` from older practice). `Expect` too: the
    /// proxy already holds the whole body, so no `100 Continue` is wanted.
    public static let hopByHopFields: Set<String> = [
        "connection", "proxy-authorization", "proxy-authenticate", "proxy-connection", "keep-alive", "te",
        "trailer", "transfer-encoding", "upgrade", "expect",
    ]

    public let name: String
    public let username: String
    public let password: String
    let client: UpstreamClient
    /// `ntlm-proxy`: the proxy's NTLM handshakes (its own user, connection-bound).
    let ntlm: NTLMAuthenticator
    let ntlmKnobs: @Sendable () -> [NTLMKnob]
    /// The origins the proxy forwards to.
    public let scope: ProxyScope

    /// - Parameters:
    ///   - username, password: the only credentials the proxy accepts.
    ///   - upstreamTimeout: the longest wait for an origin's complete answer (then 504).
    ///   - maxBodyBytes: the largest origin body relayed (larger: 502).
    public init(username: String = "proxyuser", password: String = ForwardProxyMock.defaultPassword, name: String = "proxy",
                upstreamTimeout: Duration = .seconds(30), maxBodyBytes: Int = 16 * 1024 * 1024,
                ntlmKnobs: @escaping @Sendable () -> [NTLMKnob] = { [] }, scope: ProxyScope = ProxyScope()) {
        self.name = name
        self.scope = scope
        self.username = username
        self.password = password
        self.client = UpstreamClient(timeout: upstreamTimeout, maxBodyBytes: maxBodyBytes)
        self.ntlmKnobs = ntlmKnobs
        self.ntlm = NTLMAuthenticator(users: [TestUser(username: username, password: password)], seed: "proxy:" + username,
                                      knobs: ntlmKnobs, kerberos: nil)
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        if request.method.uppercased() == "CONNECT" {
            return refuse(501, .connectUnsupported, upstream: request.target, title: "CONNECT Not Implemented",
                          message: "The harness proxy does not tunnel: the mocks speak plain HTTP. Send http:// URLs through it in absolute form (GET http://127.0.0.1:PORT/path).")
        }
        guard let upstream = Upstream(request: request) else {
            return refuse(400, .notProxyRequest, upstream: nil, title: "Not a Proxy Request",
                          message: "The request names no origin (no absolute-form target and no Host field). This is a forward proxy; send absolute-form requests.")
        }
        if upstream.isSame(asOrigin: request.origin) {
            return refuse(400, .notProxyRequest, upstream: upstream.authority, title: "Not a Proxy Request",
                          message: "The request is for the proxy itself (\(upstream.authority)). This is a forward proxy; send absolute-form requests.")
        }
        // Under `ntlm-proxy` the handshake's notes (its last message, or the connection it
        // authenticated) go on the exchange it let through.
        var granted: [String: String] = [:]
        if ntlmKnobs().contains(.proxy) {
            switch checkNTLM(request.header("Proxy-Authorization"), request: request, upstream: upstream) {
            case .refused(let refusal): return refusal
            case .granted(let notes): granted = notes
            }
        } else if let refusal = checkCredentials(request, upstream: upstream) {
            return refusal
        }
        let connectHost: String
        switch scope.judge(upstream) {
        case .forward(let host):
            connectHost = host
        case .refuse(let reason):
            return refuse(403, .forbiddenUpstream, upstream: upstream.authority, title: "Forbidden", message: reason)
        }
        var answer = await forward(request, to: upstream, connectingTo: connectHost)
        answer.annotations.merge(granted) { old, _ in old }
        return answer
    }

    /// 407 unless `Proxy-Authorization` carries the configured Basic credentials.
    private func checkCredentials(_ request: MockRequest, upstream: Upstream) -> MockResponse? {
        let fields = request.headers(named: "Proxy-Authorization")
        guard let field = fields.first else {
            return proxyChallenge(.missing, upstream: upstream, user: nil, detail: "the request carried no Proxy-Authorization field")
        }
        let schemeName = String(field.drop { $0 == " " }.prefix { $0 != " " })
        guard schemeName.lowercased() == "basic" else {
            return proxyChallenge(.wrongCredentials, upstream: upstream, user: nil,
                                  detail: "the \(schemeName) scheme is not offered; the proxy challenged with Basic")
        }
        let parsed: AuthParameters
        do {
            parsed = try AuthParameters.parse(field, expectToken68: true)
        } catch {
            return proxyMalformed("\(error)", upstream: upstream)
        }
        guard let token = parsed.token68 else {
            return proxyMalformed("`Basic` carries no base64 user-pass (RFC 7617 §2)", upstream: upstream)
        }
        switch BasicCredentials.decode(token) {
        case .failure(.notUTF8):
            return proxyChallenge(.wrongCredentials, upstream: upstream, user: nil, detail: BasicCredentials.Failure.notUTF8.description)
        case .failure(let failure):
            return proxyMalformed(failure.description, upstream: upstream)
        case .success(let credentials):
            guard credentials.matches(username: username, password: password) else {
                return proxyChallenge(.wrongCredentials, upstream: upstream, user: credentials.username,
                                      detail: credentials.username == username ? "wrong proxy password" : "no proxy user named \(credentials.username)")
            }
            return nil
        }
    }

    /// Sends the request on to the origin and relays its answer.
    private func forward(_ request: MockRequest, to upstream: Upstream, connectingTo connectHost: String) async -> MockResponse {
        let connectionTokens = Self.connectionOptions(request.headers)
        var headers = request.headers.filter { field in
            let name = field.name.lowercased()
            return !Self.hopByHopFields.contains(name) && !connectionTokens.contains(name) && name != "content-length"
                && name != "via" && name != "host"
        }
        // RFC 9112 §3.2.2: with an absolute-form target the proxy replaces Host by the
        // target's authority; otherwise Host named the origin and goes on as sent.
        headers.insert(("Host", upstream.hostField), at: 0)
        if !request.body.isEmpty || request.header("Content-Length") != nil {
            headers.append(("Content-Length", String(request.body.count)))
        }
        headers.append(("Via", Self.appendVia(request.headers(named: "Via"))))
        let answer: UpstreamClient.Response
        do {
            answer = try await client.send(host: connectHost, port: upstream.port, method: request.method,
                                           target: upstream.originForm, headers: headers, body: request.body)
        } catch let failure as UpstreamClient.Failure {
            if case .timeout = failure {
                return refuse(504, .upstreamFailed, upstream: upstream.authority, title: "Gateway Timeout",
                              message: "The origin \(upstream.authority) gave \(failure).")
            }
            return refuse(502, .upstreamFailed, upstream: upstream.authority, title: "Bad Gateway",
                          message: "The proxy could not get an answer from \(upstream.authority): \(failure).")
        } catch {
            return refuse(502, .upstreamFailed, upstream: upstream.authority, title: "Bad Gateway",
                          message: "The proxy could not get an answer from \(upstream.authority): \(error).")
        }
        let answerTokens = Self.connectionOptions(answer.headers)
        // `Date` is not relayed into the answer: the proxy's listener writes its own over it
        // (Hummingbird sets `Date` on every response), so the origin's would be recorded in
        // the traffic log without ever reaching the client — and would make the log differ
        // between two otherwise identical runs.
        var relayed = answer.headers.filter { field in
            let name = field.name.lowercased()
            return !Self.hopByHopFields.contains(name) && !answerTokens.contains(name) && name != "via" && name != "date"
        }
        relayed.append(("Via", Self.appendVia(answer.headers.filter { $0.name.lowercased() == "via" }.map(\.value))))
        return MockResponse(status: answer.status, headers: relayed, body: answer.body,
                            annotations: [Key.result: Result.forwarded.rawValue, Key.upstream: upstream.authority,
                                          HTTPAuthResult.Key.result: HTTPAuthResult.ok.rawValue,
                                          HTTPAuthResult.Key.scheme: ntlmKnobs().contains(.proxy) ? "NTLM" : "Basic",
                                          HTTPAuthResult.Key.user: username,
                                          HTTPAuthResult.Key.realm: Self.realm])
    }

    enum NTLMGate {
        case refused(MockResponse)
        /// Let through, with the handshake's ``NTLMAuthenticator/Key`` notes.
        case granted([String: String])
    }

    /// The NTLM variant of the 407 (MS-NLMP over `Proxy-Authenticate` / `Proxy-Authorization`).
    private func checkNTLM(_ field: String?, request: MockRequest, upstream: Upstream) -> NTLMGate {
        switch ntlm.judge(field, offer: .ntlmOnly, connectionID: request.connectionID) {
        case .granted(_, _, _, let notes):
            return .granted(notes)
        case .challenge(let values, let result, let detail, let notes, let closeConnection):
            var response = refuse(407, .proxyAuthRequired, upstream: upstream.authority, title: "Proxy Authentication Required",
                                  message: "The harness proxy needs NTLM credentials (EXAMPLE\\\(username)) in Proxy-Authorization: \(detail).")
            for value in values { response.addHeader("Proxy-Authenticate", value) }
            if closeConnection { response.addHeader("Connection", "close") }
            response.annotations[HTTPAuthResult.Key.result] = result.rawValue
            response.annotations[HTTPAuthResult.Key.scheme] = "NTLM"
            response.annotations[HTTPAuthResult.Key.realm] = Self.realm
            response.annotations[HTTPAuthResult.Key.detail] = detail
            response.annotations.merge(notes) { _, new in new }
            return .refused(response)
        case .malformed(let detail, let notes):
            var response = proxyMalformed(detail, upstream: upstream)
            response.annotations.merge(notes) { _, new in new }
            return .refused(response)
        }
    }

    // MARK: - Answers

    private func proxyChallenge(_ result: HTTPAuthResult, upstream: Upstream, user: String?, detail: String) -> MockResponse {
        var response = refuse(407, .proxyAuthRequired, upstream: upstream.authority, title: "Proxy Authentication Required",
                              message: "The harness proxy needs Basic credentials in Proxy-Authorization: \(detail).")
        // RFC 9110 §11.7.1: a 407 MUST carry Proxy-Authenticate; RFC 7617 §2.1 charset.
        response.addHeader("Proxy-Authenticate", "Basic realm=\(AuthParameters.quoted(Self.realm)), charset=\"UTF-8\"")
        response.annotations[HTTPAuthResult.Key.result] = result.rawValue
        response.annotations[HTTPAuthResult.Key.scheme] = "Basic"
        response.annotations[HTTPAuthResult.Key.realm] = Self.realm
        response.annotations[HTTPAuthResult.Key.detail] = detail
        if let user { response.annotations[HTTPAuthResult.Key.user] = user }
        return response
    }

    private func proxyMalformed(_ detail: String, upstream: Upstream) -> MockResponse {
        var response = refuse(400, .malformedProxyAuthorization, upstream: upstream.authority, title: "Bad Request",
                              message: "Malformed Proxy-Authorization field: \(detail).")
        response.annotations[HTTPAuthResult.Key.result] = HTTPAuthResult.malformed.rawValue
        response.annotations[HTTPAuthResult.Key.detail] = detail
        return response
    }

    private func refuse(_ status: Int, _ result: Result, upstream: String?, title: String, message: String) -> MockResponse {
        var response = MockResponse.errorPage(status: status, title: title, message: message)
        response.annotations[Key.result] = result.rawValue
        if let upstream { response.annotations[Key.upstream] = upstream }
        return response
    }

    /// Field names listed in `Connection` (RFC 9110 §7.6.1: those are hop-by-hop too).
    static func connectionOptions(_ headers: [(name: String, value: String)]) -> Set<String> {
        Set(headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }

    /// RFC 9110 §7.6.3: each intermediary appends its own entry to `Via`.
    static func appendVia(_ existing: [String]) -> String {
        (existing + [via]).joined(separator: ", ")
    }
}
