import Foundation

extension HTTPAuthMock {
    /// `/ntlm/elsewhere`: NTLM-protected; once granted, a 302 to ``movedPath`` on this server's
    /// other host name (127.0.0.1 ↔ localhost), another origin that asks for nothing.
    static let ntlmElsewherePath = "/ntlm/elsewhere"

    /// `/moved/`: a public page (no authentication) with its own secret, where `/ntlm/elsewhere`
    /// sends a client after the login.
    public static let movedPath = "/moved/"

    /// The public page at ``movedPath``.
    func moved() -> MockResponse {
        let secret = Self.secret(username: "public", realm: "SAMLHarness moved page")
        return MockResponse.html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Moved</title></head>
        <body><h1>This page moved here</h1><p>It asks for no credentials.</p>
        <p id="secret">\(secret)</p></body></html>

        """).annotated(HTTPAuthResult.Key.result, HTTPAuthResult.ok.rawValue).annotated("auth.page", "moved")
    }

    /// `/ntlm/` and `/negotiate/`: the NTLM handshake (``NTLMAuthenticator``) turned into
    /// answers — 401 with the challenge fields, 200 with the page, 400 for a token that cannot
    /// be read — annotated with the ``HTTPAuthResult/Key`` and ``NTLMAuthenticator/Key`` values.
    func windows(_ authorization: String?, offer: NTLMAuthenticator.Offer, space: ProtectionSpace,
                 request: MockRequest) -> MockResponse {
        switch ntlm.judge(authorization, offer: offer, connectionID: request.connectionID) {
        case .challenge(let values, let result, let detail, let notes, let closeConnection):
            var response = MockResponse.errorPage(
                status: 401, title: "Unauthorized",
                message: "This resource needs Windows authentication (\(offer.names)): \(detail).")
            for value in values { response.addHeader("WWW-Authenticate", value) }
            if closeConnection { response.addHeader("Connection", "close") }
            let scheme = authorization.map { String($0.drop { $0 == " " }.prefix { $0 != " " }) } ?? space.scheme.name
            response = annotate(response, result, space: space, scheme: scheme, user: notes[NTLMAuthenticator.Key.user],
                                algorithm: nil, detail: detail)
            response.annotations.merge(notes) { _, new in new }
            return response
        case .granted(let user, let scheme, let finalValue, let notes):
            var response = granted(space, user: user, scheme: scheme)
            if request.path == Self.ntlmElsewherePath, let other = Self.otherName(of: request) {
                // Moved, as `/basic/elsewhere`: the same server under its other host name, to a
                // public page — that host never asks for Windows authentication.
                response = annotate(MockResponse.redirect(other + Self.movedPath), .ok, space: space, scheme: scheme,
                                    user: user.username, algorithm: nil, detail: "granted; moved to \(other)")
                    .annotated("auth.redirect", "other-host")
            }
            if let finalValue { response.addHeader("WWW-Authenticate", finalValue) }
            response.annotations.merge(notes) { _, new in new }
            return response
        case .malformed(let detail, let notes):
            var response = malformed(space, detail, scheme: space.scheme.name)
            response.annotations.merge(notes) { _, new in new }
            return response
        }
    }
}
