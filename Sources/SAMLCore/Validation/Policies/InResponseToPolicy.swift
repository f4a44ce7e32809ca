/// saml-profiles-2.0-os §4.1.4.2–4.1.4.3: a solicited Response answers the SP's request
/// (InResponseTo equals the AuthnRequest ID); an unsolicited one has no InResponseTo at all
/// — one that names a request the SP never sent is forged or misrouted.
public struct InResponseToPolicy: SPValidationPolicy {
    public init() {}
    public let id = "in-response-to"
    public let purpose = "InResponseTo matches the request sent, or is absent when unsolicited (saml-profiles-2.0-os §4.1.4.2)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        let config = context.configuration
        // Shibboleth's Bearer rule judges the SubjectConfirmationData's InResponseTo only
        // (``SubjectConfirmationPolicy``); the Response's attribute is not compared.
        if case .bearerRule = config.correlation { return nil }
        let got = context.response.inResponseTo
        if let expected = config.requestID {
            switch got {
            case expected?: return nil
            case nil:
                if config.allowUnsolicited { return nil }
                return ValidationFailure(.inResponseToMissing, "unsolicited Response (no InResponseTo) where an answer to \(expected) was expected", line: context.responseLine)
            case let other?:
                return ValidationFailure(.inResponseToMismatch, "InResponseTo is \"\(other)\"; the request sent was \"\(expected)\"", line: context.responseLine)
            }
        }
        if let got {
            return ValidationFailure(.inResponseToUnexpected, "InResponseTo \"\(got)\" names a request this SP did not send (no request ID configured: an unsolicited Response must not carry InResponseTo)", line: context.responseLine)
        }
        return nil
    }
}
