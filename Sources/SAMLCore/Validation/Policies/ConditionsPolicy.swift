import Foundation

/// saml-core-2.0-os §2.5.1.2: the assertion is valid in [NotBefore, NotOnOrAfter), widened by
/// the configured clock skew on both sides.
public struct ConditionsTimePolicy: SPValidationPolicy {
    public init() {}
    public let id = "conditions-time"
    public let purpose = "now within Conditions NotBefore/NotOnOrAfter, with clock skew (saml-core-2.0-os §2.5.1.2)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        guard let conditions = context.assertion.conditions else { return nil }
        let skew = context.configuration.skew
        let now = context.now
        if let notBefore = conditions.notBefore, now < notBefore.addingTimeInterval(-skew) {
            return ValidationFailure(.conditionsNotYetValid, "Conditions NotBefore \(SAMLDateTime.string(from: notBefore)) is in the future (now \(SAMLDateTime.string(from: now)), skew \(Int(skew)) s)", line: context.assertionLine)
        }
        if let notOnOrAfter = conditions.notOnOrAfter, now >= notOnOrAfter.addingTimeInterval(skew) {
            return ValidationFailure(.conditionsExpired, "Conditions NotOnOrAfter \(SAMLDateTime.string(from: notOnOrAfter)) has passed (now \(SAMLDateTime.string(from: now)), skew \(Int(skew)) s)", line: context.assertionLine)
        }
        return nil
    }
}

/// saml-core-2.0-os §2.5.1.4 and saml-profiles-2.0-os §4.1.4.2: the assertion must be
/// restricted to audiences, and every AudienceRestriction must name this SP.
public struct AudiencePolicy: SPValidationPolicy {
    public init() {}
    public let id = "audience"
    public let purpose = "every AudienceRestriction names this SP's entityID (saml-core-2.0-os §2.5.1.4)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        let restrictions = context.assertion.conditions?.audienceRestrictions ?? []
        guard !restrictions.isEmpty else {
            return ValidationFailure(.audienceMissing, "the Assertion has no AudienceRestriction (the Web SSO profile requires one)", line: context.assertionLine)
        }
        let sp = context.configuration.spEntityID
        for restriction in restrictions where !restriction.audiences.contains(sp) {
            return ValidationFailure(.audienceMismatch, "AudienceRestriction lists \(restriction.audiences.map { "\"\($0)\"" }.joined(separator: ", ")); this SP is \"\(sp)\"", line: context.assertionLine)
        }
        return nil
    }
}

/// saml-profiles-2.0-os §4.1.4.2: a Web SSO assertion carries an AuthnStatement; its
/// SessionNotOnOrAfter, when present, must not have passed.
public struct AuthnStatementPolicy: SPValidationPolicy {
    public init() {}
    public let id = "authn-statement"
    public let purpose = "an AuthnStatement is present and its SessionNotOnOrAfter has not passed (saml-profiles-2.0-os §4.1.4.2)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        guard let statement = context.assertion.authnStatements.first else {
            return ValidationFailure(.authnStatementMissing, "the Assertion has no AuthnStatement", line: context.assertionLine)
        }
        if let end = statement.sessionNotOnOrAfter, context.now >= end.addingTimeInterval(context.configuration.skew) {
            return ValidationFailure(.sessionExpired, "AuthnStatement SessionNotOnOrAfter \(SAMLDateTime.string(from: end)) has passed", line: context.assertionLine)
        }
        return nil
    }
}
