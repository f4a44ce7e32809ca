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
        return granted(space, user: user, scheme: "Basic")
    }
}
