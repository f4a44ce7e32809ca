import Foundation

extension HTTPAuthMock {
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
