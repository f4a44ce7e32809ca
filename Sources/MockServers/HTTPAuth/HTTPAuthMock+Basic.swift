extension HTTPAuthMock {
    /// Judges `Authorization: Basic …` (RFC 7617 §2) in a Basic space.
    func basic(_ authorization: String, space: ProtectionSpace, request: MockRequest) -> MockResponse {
        let parameters: AuthParameters
        do {
            parameters = try AuthParameters.parse(authorization, expectToken68: true)
        } catch {
            return malformed(space, "`Basic` must be followed by one base64 token (RFC 7617 §2): \(error)", scheme: "Basic")
        }
        guard let token = parameters.token68 else {
            return malformed(space, "`Basic` carries no base64 user-pass (RFC 7617 §2)", scheme: "Basic")
        }
        let credentials: BasicCredentials
        switch BasicCredentials.decode(token) {
        case .success(let decoded):
            credentials = decoded
        case .failure(.notUTF8):
            // Well-formed, but not in the charset the challenge asked for: a client bug, and
            // the credentials cannot be right.
            return challenge(space, .wrongCredentials, scheme: "Basic", detail: BasicCredentials.Failure.notUTF8.description)
        case .failure(let failure):
            return malformed(space, failure.description, scheme: "Basic")
        }
        guard let user = users.first(where: { credentials.matches(username: $0.username, password: $0.password) }) else {
            let known = users.contains { Array($0.username.utf8) == Array(credentials.username.utf8) }
            return challenge(space, .wrongCredentials, scheme: "Basic", user: credentials.username,
                             detail: known ? "wrong password for \(credentials.username)" : "no user named \(credentials.username)")
        }
        if request.path == Self.elsewherePath, let other = Self.otherName(of: request) {
            // A portal that moved: after a successful login it redirects to the same server
            // under its other host name (127.0.0.1 ↔ localhost) — another origin, which has
            // asked for nothing. A client must not carry these credentials there.
            return annotate(MockResponse.redirect(other + "/basic-other/"), HTTPAuthResult.ok, space: space, scheme: "Basic",
                            user: user.username, algorithm: nil, detail: "granted; moved to \(other)")
                .annotated("auth.redirect", "other-host")
        }
        return granted(space, user: user, scheme: "Basic")
    }

    /// `/basic/elsewhere`: Basic-protected; once granted, a 302 to `/basic-other/` on this
    /// server's other host name (127.0.0.1 ↔ localhost), another origin.
    static let elsewherePath = "/basic/elsewhere"

    /// `http://localhost:PORT` for a request to 127.0.0.1:PORT, and the other way round.
    static func otherName(of request: MockRequest) -> String? {
        guard let host = request.header("Host") else { return nil }
        let port = host.split(separator: ":").last.map(String.init) ?? "80"
        return host.hasPrefix("localhost") ? "http://127.0.0.1:\(port)" : "http://localhost:\(port)"
    }
}
