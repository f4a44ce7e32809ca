import Foundation

/// saml-profiles-2.0-os §4.1.4.2: at least one bearer SubjectConfirmation whose
/// SubjectConfirmationData has Recipient = ACS URL, NotOnOrAfter in the future (with skew),
/// no NotBefore in the future, and InResponseTo = the request ID when solicited.
public struct SubjectConfirmationPolicy: SPValidationPolicy {
    public init() {}
    public let id = "subject-confirmation"
    public let purpose = "a bearer SubjectConfirmation with matching Recipient, InResponseTo and a live NotOnOrAfter (saml-profiles-2.0-os §4.1.4.2)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        guard let subject = context.assertion.subject, subject.nameID != nil else {
            return ValidationFailure(.subjectMissing, "the Assertion has no Subject/NameID", line: context.assertionLine)
        }
        let bearers = subject.confirmations.filter { $0.method == SubjectConfirmation.Method.bearer }
        guard !bearers.isEmpty else {
            return ValidationFailure(.subjectConfirmationMissing, "no SubjectConfirmation with Method \(SubjectConfirmation.Method.bearer)", line: context.assertionLine)
        }
        // Every bearer confirmation is judged; the first failure is reported when none passes.
        var firstFailure: ValidationFailure?
        for bearer in bearers {
            guard let failure = judge(bearer, context) else { return nil }
            if firstFailure == nil { firstFailure = failure }
        }
        return firstFailure
    }

    private func judge(_ confirmation: SubjectConfirmation, _ context: SPValidationContext) -> ValidationFailure? {
        let line = context.assertionLine
        let config = context.configuration
        guard let data = confirmation.data else {
            return ValidationFailure(.subjectConfirmationMissing, "bearer SubjectConfirmation has no SubjectConfirmationData", line: line)
        }
        guard let recipient = data.recipient else {
            return ValidationFailure(.recipientMissing, "SubjectConfirmationData has no Recipient", line: line)
        }
        if recipient != config.acsURL {
            return ValidationFailure(.recipientMismatch, "Recipient is \"\(recipient)\"; this ACS is \"\(config.acsURL)\"", line: line)
        }
        guard let notOnOrAfter = data.notOnOrAfter else {
            return ValidationFailure(.subjectConfirmationMissing, "SubjectConfirmationData has no NotOnOrAfter", line: line)
        }
        if context.now >= notOnOrAfter.addingTimeInterval(config.skew) {
            return ValidationFailure(.subjectConfirmationExpired, "SubjectConfirmationData NotOnOrAfter \(SAMLDateTime.string(from: notOnOrAfter)) has passed (now \(SAMLDateTime.string(from: context.now)), skew \(Int(config.skew)) s)", line: line)
        }
        if let notBefore = data.notBefore, context.now < notBefore.addingTimeInterval(-config.skew) {
            return ValidationFailure(.subjectConfirmationNotYetValid, "SubjectConfirmationData NotBefore \(SAMLDateTime.string(from: notBefore)) is in the future (now \(SAMLDateTime.string(from: context.now)), skew \(Int(config.skew)) s)", line: line)
        }
        if case .bearerRule(let checkCorrelation, let blockUnsolicited) = config.correlation {
            // checkCorrelation: InResponseTo must equal the request's ID, absent when there
            // was no request (an unsolicited Response naming a request is refused too).
            // blockUnsolicited turns correlation on too (OpenSAML's BearerConfirmationRule).
            if checkCorrelation || blockUnsolicited, data.inResponseTo != config.requestID {
                switch (config.requestID, data.inResponseTo) {
                case (let expected?, nil):
                    return ValidationFailure(.inResponseToMissing, "SubjectConfirmationData has no InResponseTo; the request sent was \"\(expected)\" (checkCorrelation)", line: line)
                case (let expected?, let got?):
                    return ValidationFailure(.inResponseToMismatch, "SubjectConfirmationData InResponseTo is \"\(got)\"; the request sent was \"\(expected)\" (checkCorrelation)", line: line)
                default:
                    return ValidationFailure(.inResponseToUnexpected, "SubjectConfirmationData InResponseTo \"\(data.inResponseTo ?? "")\" names a request this SP has no record of (checkCorrelation)", line: line)
                }
            }
            if blockUnsolicited, data.inResponseTo == nil {
                return ValidationFailure(.inResponseToMissing, "unsolicited Response (SubjectConfirmationData has no InResponseTo) refused (blockUnsolicited)", line: line)
            }
            return nil
        }
        if let expected = config.requestID, let got = data.inResponseTo, got != expected {
            return ValidationFailure(.inResponseToMismatch, "SubjectConfirmationData InResponseTo is \"\(got)\"; the request sent was \"\(expected)\"", line: line)
        }
        if config.requestID == nil, let got = data.inResponseTo {
            return ValidationFailure(.inResponseToUnexpected, "SubjectConfirmationData InResponseTo \"\(got)\" names a request this SP did not send", line: line)
        }
        return nil
    }
}
