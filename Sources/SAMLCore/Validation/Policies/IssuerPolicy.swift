/// saml-profiles-2.0-os §4.1.4.2: the Issuer of the Response (when present) and of the
/// Assertion must be the IdP's entityID; a Format other than `entity` is refused.
public struct IssuerPolicy: SPValidationPolicy {
    public init() {}
    public let id = "issuer"
    public let purpose = "Response and Assertion Issuer equal the IdP entityID (saml-profiles-2.0-os §4.1.4.2)"

    static let entityFormat = "urn:oasis:names:tc:SAML:2.0:nameid-format:entity"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        let expected = context.configuration.idpEntityID
        if let issuer = context.response.issuer {
            if let failure = compare(issuer, expected, "Response", context.responseLine) { return failure }
        }
        return compare(context.assertion.issuer, expected, "Assertion", context.assertionLine)
    }

    private func compare(_ issuer: Issuer, _ expected: String, _ what: String, _ line: Int) -> ValidationFailure? {
        if let format = issuer.format, format != Self.entityFormat {
            return ValidationFailure(.issuerMismatch, "\(what) Issuer has Format \(format); only \(Self.entityFormat) is allowed", line: line)
        }
        if issuer.value != expected {
            return ValidationFailure(.issuerMismatch, "\(what) Issuer is \"\(issuer.value)\"; expected \"\(expected)\"", line: line)
        }
        return nil
    }
}
