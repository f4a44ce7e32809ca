import Foundation

/// saml-profiles-2.0-os §4.1.4.5: a bearer assertion is accepted once. Runs last, so only an
/// assertion that passed every other rule is remembered.
public struct ReplayPolicy: SPValidationPolicy {
    public init() {}
    public let id = "replay"
    public let purpose = "an assertion ID is accepted once while it is valid (saml-profiles-2.0-os §4.1.4.5)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        guard let cache = context.configuration.replayCache else { return nil }
        let assertion = context.assertion
        let expiry = [assertion.conditions?.notOnOrAfter,
                      assertion.subject?.confirmations.compactMap { $0.data?.notOnOrAfter }.max()]
            .compactMap { $0 }.max() ?? context.now.addingTimeInterval(3600)
        if !cache.insert(assertion.id, until: expiry.addingTimeInterval(context.configuration.skew), now: context.now) {
            return ValidationFailure(.assertionReplayed, "Assertion \(assertion.id) was already accepted (replay)", line: context.assertionLine)
        }
        return nil
    }
}
