/// Why a CAS validation or proxy request failed: the protocol's error code and the
/// description Apereo CAS writes beside it (its `messages.properties`, formatted with
/// `MessageFormat`, so `''{0}''` comes out as `'ST-…'`).
struct CASFailure: Error, Sendable, Equatable {
    /// CAS protocol 3.0 §2.5.3 error codes, as Apereo CAS uses them.
    enum Code: String, Sendable {
        case invalidRequest = "INVALID_REQUEST"
        case invalidTicketSpec = "INVALID_TICKET_SPEC"
        case invalidTicket = "INVALID_TICKET"
        case invalidService = "INVALID_SERVICE"
        case invalidProxyCallback = "INVALID_PROXY_CALLBACK"
        case unauthorizedServiceProxy = "UNAUTHORIZED_SERVICE_PROXY"
        case internalError = "INTERNAL_ERROR"
    }

    let code: Code
    let description: String
    /// What the server saw, for the traffic log only (`expired`, `unknown-or-used`,
    /// `service-mismatch`…); never sent to the client, since CAS does not say.
    var detail: String? = nil

    func with(detail: String) -> CASFailure {
        var copy = self
        copy.detail = detail
        return copy
    }

    /// Apereo CAS `AbstractServiceValidateController`: a missing `service` or `ticket` is
    /// answered with an empty description (`StringUtils.EMPTY`), not the message text.
    static let missingParameters = CASFailure(code: .invalidRequest, description: "")

    /// `INVALID_TICKET=Ticket ''{0}'' not recognized` — unknown, expired, already used, or a
    /// ticket that fails the validation specification (a proxy ticket at `/serviceValidate`,
    /// `renew=true` without a fresh login): Apereo CAS 6 answers all of these the same way.
    static func invalidTicket(_ ticket: String) -> CASFailure {
        CASFailure(code: .invalidTicket, description: "Ticket '\(ticket)' not recognized")
    }

    /// `INVALID_SERVICE=Ticket ''{0}'' does not match supplied service. The original service
    /// was ''{1}'' and the supplied service was ''{2}''.`
    static func invalidService(_ ticket: String, original: String, supplied: String) -> CASFailure {
        CASFailure(code: .invalidService,
                   description: "Ticket '\(ticket)' does not match supplied service. The original service was '\(original)' and the supplied service was '\(supplied)'.")
    }

    /// `INVALID_PROXY_CALLBACK=The supplied proxy callback url ''{0}'' could not be
    /// authenticated. Either ''{0}'' cannot be reached, it is not allowed to exercise proxy
    /// authentication.`
    static func invalidProxyCallback(_ url: String) -> CASFailure {
        CASFailure(code: .invalidProxyCallback,
                   description: "The supplied proxy callback url '\(url)' could not be authenticated. Either '\(url)' cannot be reached, it is not allowed to exercise proxy authentication.")
    }

    /// `/proxy` without `pgt` or `targetService`: code `INVALID_REQUEST`, text of
    /// `INVALID_REQUEST_PROXY`.
    static let proxyMissingParameters = CASFailure(
        code: .invalidRequest,
        description: "The request is incorrectly formatted. Ensure all required parameters are properly encoded and included.")

    /// `UNAUTHORIZED_SERVICE_PROXY=The supplied service ''{0}'' is not authorized to use CAS
    /// proxy authentication.`
    static func unauthorizedServiceProxy(_ service: String) -> CASFailure {
        CASFailure(code: .unauthorizedServiceProxy,
                   description: "The supplied service '\(service)' is not authorized to use CAS proxy authentication.")
    }
}
