extension HTTPAuthMock {
    /// Judges `Authorization: Digest …` (RFC 7616 §3.4) in a Digest space: form first (400),
    /// then realm, user and `response` (401), then the nonce and its count (401, `stale=true`
    /// when only the nonce was old).
    func digest(_ authorization: String, space: ProtectionSpace, algorithms: [HTTPDigestAlgorithm],
                request: MockRequest) -> MockResponse {
        let credentials: DigestCredentials
        do {
            credentials = try DigestCredentials.read(AuthParameters.parse(authorization, expectToken68: false))
        } catch {
            return malformed(space, "\(error)", scheme: "Digest")
        }
        let algorithm = credentials.algorithm
        let sentUser = credentials.username
        // An algorithm the challenge did not offer: a new challenge, as Apache httpd's
        // mod_auth_digest answers ("unknown algorithm": 401 with WWW-Authenticate), not
        // 400 — the client may still answer with an offered one.
        guard algorithms.contains(algorithm) else {
            return challenge(space, .malformed, scheme: "Digest", user: sentUser, algorithm: algorithm.rawValue,
                             detail: "algorithm=\(algorithm.rawValue) was not offered in realm \"\(space.realm)\" (offered: \(algorithms.map(\.rawValue).joined(separator: ", ")))")
        }
        // RFC 7616 §3.4.6: the uri must name the request-target; if not, 400 Bad Request.
        guard credentials.uri == request.target else {
            return malformed(space, "uri=\"\(credentials.uri)\" is not the request-target \(request.target) (RFC 7616 §3.4.6)",
                             scheme: "Digest", user: sentUser)
        }
        // RFC 7616 §3.4: opaque "MUST be returned by the client unchanged".
        let expectedOpaque = opaque(for: space)
        guard credentials.opaque == expectedOpaque else {
            let sent = credentials.opaque.map { "opaque=\"\($0)\"" } ?? "no opaque"
            return malformed(space, "the challenge's opaque was not returned unchanged (sent \(sent)) (RFC 7616 §3.4)",
                             scheme: "Digest", user: sentUser)
        }
        let algorithmName = algorithm.rawValue
        guard credentials.realm == space.realm else {
            return challenge(space, .wrongCredentials, scheme: "Digest", user: sentUser, algorithm: algorithmName,
                             detail: "realm \"\(credentials.realm)\" is not this space's realm \"\(space.realm)\"")
        }
        let user = users.first { candidate in
            let name = credentials.userhash
                ? algorithm.userhash(username: candidate.username, realm: space.realm)
                : candidate.username
            return Array(name.utf8) == Array(sentUser.utf8)
        }
        guard let user else {
            return challenge(space, .wrongCredentials, scheme: "Digest", user: sentUser, algorithm: algorithmName,
                             detail: "no user named \(sentUser)\(credentials.userhash ? " (userhash)" : "")")
        }
        let expected = algorithm.response(username: user.username, realm: space.realm, password: user.password,
                                          method: request.method, uri: credentials.uri, nonce: credentials.nonce,
                                          nc: credentials.nc, cnonce: credentials.cnonce, qop: credentials.qop)
        guard credentials.response.lowercased() == expected else {
            return challenge(space, .wrongCredentials, scheme: "Digest", user: user.username, algorithm: algorithmName,
                             detail: "the \(algorithmName) response does not match the password of \(user.username)")
        }
        if request.path.contains(Self.staleFirstSegment), nonces.staleOnce() {
            return challenge(space, .staleNonce, scheme: "Digest", user: user.username, algorithm: algorithmName, stale: true,
                             detail: "the response was right but nonce \(credentials.nonce) went stale before it arrived (\(Self.staleFirstSegment))")
        }
        switch nonces.use(nonce: credentials.nonce, realm: space.realm, count: credentials.nonceCount) {
        case .accepted:
            var response = granted(space, user: user, scheme: "Digest", algorithm: algorithmName)
            // RFC 7616 §3.5: Authentication-Info with rspauth proves the server knows the password too.
            let rspauth = algorithm.rspauth(username: user.username, realm: space.realm, password: user.password,
                                            uri: credentials.uri, nonce: credentials.nonce, nc: credentials.nc,
                                            cnonce: credentials.cnonce, qop: credentials.qop)
            response.addHeader("Authentication-Info",
                               "rspauth=\"\(rspauth)\", qop=auth, cnonce=\(AuthParameters.quoted(credentials.cnonce)), nc=\(credentials.nc)")
            return response
        case .unknown:
            return challenge(space, .staleNonce, scheme: "Digest", user: user.username, algorithm: algorithmName, stale: true,
                             detail: "the response was right but nonce \(credentials.nonce) was not issued for this realm or is forgotten")
        case .expired:
            return challenge(space, .staleNonce, scheme: "Digest", user: user.username, algorithm: algorithmName, stale: true,
                             detail: "the response was right but nonce \(credentials.nonce) has expired")
        case .replayed(let last):
            return challenge(space, .replayedNC, scheme: "Digest", user: user.username, algorithm: algorithmName,
                             detail: "nc=\(credentials.nc) was already used with this nonce (highest accepted: \(String(last, radix: 16)))")
        }
    }
}
