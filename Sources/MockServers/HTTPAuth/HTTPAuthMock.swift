import Foundation
import SAMLCore

/// HTTP authentication challenges (DESIGN.md flow 3): resources behind Basic (RFC 7617) and
/// Digest (RFC 7616) in several protection spaces, each its own realm (RFC 9110 §11.5).
///
/// A request without credentials gets 401 and the space's `WWW-Authenticate` challenge
/// (RFC 9110 §11.6.1); wrong credentials get a fresh challenge every time (never a lockout);
/// credentials that cannot be read get 400 naming what was wrong; right ones get 200 and a
/// page with a secret derived from the user and the realm, so a test can prove the client
/// got through (``secret(username:realm:)``). Every answer is annotated (``HTTPAuthResult/Key``).
///
/// ```swift
/// let auth = HTTPAuthMock(users: profile.users)
/// let servers = try await MockServerGroup.start([.init(handler: auth)], log: log)
/// // GET \(servers.baseURL(of: "auth")!)/digest/sha256/page
/// ```
public struct HTTPAuthMock: MockHandler {
    public let name: String
    public let users: [TestUser]
    public let spaces: [ProtectionSpace]
    let nonces: DigestNonceStore
    let seed: String
    /// The NTLM and Negotiate spaces' handshakes (connection-bound).
    public let ntlm: NTLMAuthenticator

    /// - Parameters:
    ///   - users: who may log in; passwords are compared byte for byte.
    ///   - spaces: the protection spaces (``ProtectionSpace/defaults`` unless a scenario
    ///     wants others).
    ///   - nonceLifetime: how long a Digest nonce is fresh; a right answer with an older one
    ///     gets `stale=true` (RFC 7616 §3.3).
    ///   - maxNonces: how many nonces are remembered at most.
    ///   - seed: makes nonces and opaque values reproducible; random by default.
    ///   - now: the clock nonces are timed by.
    public init(users: [TestUser], spaces: [ProtectionSpace] = ProtectionSpace.defaults, name: String = "auth",
                nonceLifetime: Duration = .seconds(300), maxNonces: Int = 4096, seed: String = UUID().uuidString,
                now: @escaping @Sendable () -> Date = { Date() }, ntlmKnobs: @escaping @Sendable () -> [NTLMKnob] = { [] }) {
        self.name = name
        self.users = users
        self.spaces = spaces
        self.seed = seed
        self.ntlm = NTLMAuthenticator(users: users, seed: seed, now: now, knobs: ntlmKnobs)
        let (seconds, attoseconds) = nonceLifetime.components
        self.nonces = DigestNonceStore(lifetime: TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18,
                                       capacity: maxNonces, seed: seed, now: now)
    }

    /// Makes every Digest nonce handed out so far expired: the next right answer with one of
    /// them gets `401` with `stale=true` and a fresh nonce.
    public func expireNonces() { nonces.expireAll() }

    /// The secret the protected page shows `username` in `realm`:
    /// `AUTH-` and 20 hex digits of `SHA-256(username LF realm)`.
    public static func secret(username: String, realm: String) -> String {
        "AUTH-" + MessageDigest.sha256.hex(username + "\n" + realm).prefix(20).uppercased()
    }

    /// The space covering `path` (the longest root wins).
    public func space(for path: String) -> ProtectionSpace? {
        spaces.filter { $0.contains(path: path) }.max { $0.root.count < $1.root.count }
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        let path = request.path
        if path == "/" { return index() }
        if path == Self.movedPath { return moved() }
        guard let space = space(for: path) else { return .notFound(path) }
        let fields = request.headers(named: "Authorization")
        if let offer = space.scheme.ntlmOffer {
            guard fields.count <= 1 else {
                return malformed(space, "the request carried \(fields.count) Authorization fields; it is a singleton field")
            }
            return continued(windows(fields.first, offer: offer, space: space, request: request), request: request)
        }
        guard let authorization = fields.first else {
            return challenge(space, .missing, detail: "the request carried no Authorization field")
        }
        guard fields.count == 1 else {
            return malformed(space, "the request carried \(fields.count) Authorization fields; it is a singleton field")
        }
        let schemeName = String(authorization.drop { $0 == " " }.prefix { $0 != " " })
        guard schemeName.lowercased() == space.scheme.name.lowercased() else {
            return challenge(space, .wrongCredentials, scheme: schemeName,
                             detail: "the \(schemeName) scheme is not offered in realm \"\(space.realm)\"; the challenge offered \(space.scheme.name)")
        }
        let answer: MockResponse
        switch space.scheme {
        case .basic:
            answer = basic(authorization, space: space, request: request)
        case .digest(let algorithms):
            answer = digest(authorization, space: space, algorithms: algorithms, request: request)
        case .ntlm, .negotiate:
            answer = .notFound(path)  // answered above
        }
        return continued(answer, request: request)
    }

    /// The prefix of a page name that makes an authenticated page lead on to a second
    /// resource of the same space: `/basic/reports/2024/continue-q3.html` answers a right
    /// request with 302 to `/basic/reports/2024/q3.html` — the same directory, which RFC 7617
    /// §2.2 puts in the credentials' scope — so every client makes a second request in a
    /// space it has authenticated to (the situation `httpauth.protection-space-reused` judges).
    public static let continuePrefix = "continue-"

    /// A granted answer for a ``continuePrefix`` page turned into the redirect to the page
    /// without the prefix (query kept); every other answer as it is.
    func continued(_ answer: MockResponse, request: MockRequest) -> MockResponse {
        guard answer.status == 200, let slash = request.path.lastIndex(of: "/") else { return answer }
        let name = String(request.path[request.path.index(after: slash)...])
        guard name.hasPrefix(Self.continuePrefix) else { return answer }
        let path: String = String(request.path[...slash]) + String(name.dropFirst(Self.continuePrefix.count))
        var location: String = path
        if let query = request.rawQuery { location += "?" + query }
        var redirect = MockResponse.redirect(location)
        redirect.annotations = answer.annotations
        redirect.annotations["auth.continue"] = path
        return redirect
    }

    /// The path segment under which the first right Digest answer of a run meets a nonce that
    /// went stale meanwhile (RFC 7616 §3.3): 401 with `stale=true` and a fresh nonce, as a
    /// server with a short nonce lifetime answers a slow client. Every client then meets the
    /// situation `httpauth.digest-stale-retried` judges, without waiting out a lifetime.
    public static let staleFirstSegment = "/stale-first/"

    // MARK: - Answers

    /// 401 with the space's challenge (RFC 9110 §15.5.2: a 401 MUST carry WWW-Authenticate).
    func challenge(_ space: ProtectionSpace, _ result: HTTPAuthResult, scheme: String? = nil, user: String? = nil,
                   algorithm: String? = nil, stale: Bool = false, detail: String) -> MockResponse {
        var response = MockResponse.errorPage(
            status: 401, title: "Authorization Required",
            message: "This resource is in realm \"\(space.realm)\" and needs \(space.scheme.name) credentials: \(detail).")
        for value in challengeValues(space, stale: stale) { response.addHeader("WWW-Authenticate", value) }
        return annotate(response, result, space: space, scheme: scheme ?? space.scheme.name, user: user,
                        algorithm: algorithm, detail: detail)
    }

    /// The WWW-Authenticate values of a space, one per challenge (RFC 7616 §3.7).
    func challengeValues(_ space: ProtectionSpace, stale: Bool) -> [String] {
        let realm = AuthParameters.quoted(space.realm)
        switch space.scheme {
        case .basic:
            // RFC 7617 §2.1: the only allowed charset value is "UTF-8".
            return ["Basic realm=\(realm), charset=\"UTF-8\""]
        case .digest(let algorithms):
            // RFC 7616 §3.3; one nonce serves every algorithm offered (as in the §3.9.1 example).
            let nonce = nonces.issue(realm: space.realm)
            return algorithms.map { algorithm in
                var parts = ["Digest realm=\(realm)", "qop=\"auth\"", "algorithm=\(algorithm.rawValue)",
                             "nonce=\"\(nonce)\"", "opaque=\"\(opaque(for: space))\"", "charset=UTF-8"]
                if stale { parts.append("stale=true") }
                return parts.joined(separator: ", ")
            }
        case .ntlm, .negotiate:
            return space.scheme.ntlmOffer?.values ?? []
        }
    }

    /// The opaque value of a space: stable for the mock's lifetime.
    func opaque(for space: ProtectionSpace) -> String {
        String(MessageDigest.sha256.hex(seed + ":opaque:" + space.realm).prefix(32))
    }

    /// 400 naming what could not be read.
    func malformed(_ space: ProtectionSpace, _ detail: String, scheme: String? = nil, user: String? = nil) -> MockResponse {
        let response = MockResponse.errorPage(status: 400, title: "Bad Request",
                                              message: "Malformed Authorization field: \(detail).")
        return annotate(response, .malformed, space: space, scheme: scheme ?? space.scheme.name, user: user,
                        algorithm: nil, detail: detail)
    }

    /// 200 and the protected page with the user's secret.
    func granted(_ space: ProtectionSpace, user: TestUser, scheme: String, algorithm: String? = nil) -> MockResponse {
        let secret = Self.secret(username: user.username, realm: space.realm)
        let response = MockResponse.html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Authorized</title></head>
        <body><h1>Welcome, \(HTMLText.escape(user.username))</h1>
        <p id="realm">\(HTMLText.escape(space.realm))</p>
        <p id="scheme">\(scheme)\(algorithm.map { " " + $0 } ?? "")</p>
        <p id="secret">\(secret)</p></body></html>

        """)
        return annotate(response, .ok, space: space, scheme: scheme, user: user.username, algorithm: algorithm,
                        detail: "authorized")
    }

    func annotate(_ response: MockResponse, _ result: HTTPAuthResult, space: ProtectionSpace, scheme: String,
                          user: String?, algorithm: String?, detail: String) -> MockResponse {
        var response = response
        response.annotations[HTTPAuthResult.Key.result] = result.rawValue
        response.annotations[HTTPAuthResult.Key.scheme] = scheme
        response.annotations[HTTPAuthResult.Key.realm] = space.realm
        response.annotations[HTTPAuthResult.Key.detail] = detail
        if let user { response.annotations[HTTPAuthResult.Key.user] = user }
        if let algorithm { response.annotations[HTTPAuthResult.Key.algorithm] = algorithm }
        return response
    }

    /// The unprotected page at `/` listing the spaces.
    private func index() -> MockResponse {
        let rows = spaces.map { space -> String in
            let scheme: String
            switch space.scheme {
            case .basic: scheme = "Basic"
            case .digest(let algorithms): scheme = "Digest " + algorithms.map(\.rawValue).joined(separator: ", ")
            case .ntlm, .negotiate: scheme = space.scheme.ntlmOffer?.names ?? ""
            }
            return "<li><a href=\"\(HTMLText.escape(space.root))\">\(HTMLText.escape(space.root))</a>: \(HTMLText.escape(scheme)), realm \"\(HTMLText.escape(space.realm))\"</li>"
        }
        return .html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>HTTP authentication</title></head>
        <body><h1>Protection spaces</h1><ul>
        \(rows.joined(separator: "\n"))
        </ul></body></html>

        """)
    }
}
