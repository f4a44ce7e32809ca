/// saml-bindings-2.0-os §3.5.5.2: the Destination must be the URL the message arrived at;
/// a signed Response must carry one. Compared exactly (no normalisation): a mismatch of
/// scheme, port, trailing slash or case is a mismatch, as in Shibboleth SP.
public struct DestinationPolicy: SPValidationPolicy {
    public init() {}
    public let id = "destination"
    public let purpose = "Destination equals the ACS URL, and is present on signed responses (saml-bindings-2.0-os §3.5.5.2)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        let acs = context.configuration.acsURL
        guard let destination = context.response.destination else {
            if context.responseWasSigned {
                return ValidationFailure(.destinationMissing, "the Response is signed but has no Destination attribute", line: context.responseLine)
            }
            return nil
        }
        if destination != acs {
            return ValidationFailure(.destinationMismatch, "Destination is \"\(destination)\"; this ACS is \"\(acs)\"", line: context.responseLine)
        }
        return nil
    }
}
