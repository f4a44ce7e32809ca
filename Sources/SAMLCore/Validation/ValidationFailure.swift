/// Why the SP refused a Response: a stable reason code (printed by `verify-response`, used by
/// checks and reports) and an explanation naming what was expected and what arrived.
public struct ValidationFailure: Error, CustomStringConvertible, Sendable, Equatable {
    /// Stable reason codes. Never renamed: scripts and reports depend on them.
    public enum Code: String, Sendable, CaseIterable {
        // Input
        case xmlRefused = "xml.refused"
        case encodingInvalid = "encoding.invalid"
        case responseMalformed = "response.malformed"
        // Signatures (saml-core-2.0-os §5, XML-DSig)
        case signatureMissing = "signature.missing"
        case signatureInvalid = "signature.invalid"
        case signatureUntrustedKey = "signature.untrusted-key"
        case signatureWrongReference = "signature.wrong-reference"
        case signatureWrapping = "signature.wrapping"
        case signatureReferenceCount = "signature.reference-count"
        case signatureDuplicateID = "signature.duplicate-id"
        case signatureForbiddenTransform = "signature.forbidden-transform"
        case signatureForbiddenAlgorithm = "signature.forbidden-algorithm"
        case signatureMalformed = "signature.malformed"
        // Encryption
        case decryptionFailed = "encryption.decryption-failed"
        case decryptionForbiddenAlgorithm = "encryption.forbidden-algorithm"
        case decryptionNoKey = "encryption.no-key"
        // Response
        case statusNotSuccess = "status.not-success"
        case issuerMismatch = "issuer.mismatch"
        case issuerMissing = "issuer.missing"
        case destinationMismatch = "destination.mismatch"
        case destinationMissing = "destination.missing"
        case inResponseToMismatch = "in-response-to.mismatch"
        case inResponseToMissing = "in-response-to.missing"
        case inResponseToUnexpected = "in-response-to.unexpected"
        case messageExpired = "message.expired"
        case messageNotYetValid = "message.not-yet-valid"
        // Assertion
        case assertionMissing = "assertion.missing"
        case assertionMultiple = "assertion.multiple"
        case assertionReplayed = "assertion.replayed"
        case subjectMissing = "subject.missing"
        case subjectConfirmationMissing = "subject-confirmation.missing"
        case subjectConfirmationExpired = "subject-confirmation.expired"
        case subjectConfirmationNotYetValid = "subject-confirmation.not-yet-valid"
        case recipientMismatch = "recipient.mismatch"
        case recipientMissing = "recipient.missing"
        case conditionsExpired = "conditions.expired"
        case conditionsNotYetValid = "conditions.not-yet-valid"
        case audienceMismatch = "audience.mismatch"
        case audienceMissing = "audience.missing"
        case authnStatementMissing = "authn-statement.missing"
        case sessionExpired = "session.expired"
    }

    public let code: Code
    public let explanation: String
    /// Where in the input (1-based line), when known.
    public let line: Int?

    public init(_ code: Code, _ explanation: String, line: Int? = nil) {
        self.code = code
        self.explanation = explanation
        self.line = line
    }

    /// `invalid: <code>: <explanation>` — the line `verify-response` prints.
    public var description: String {
        "\(code.rawValue): \(explanation)\(line.map { " (line \($0))" } ?? "")"
    }

    init(_ error: SignatureError, line: Int? = nil) {
        let code: Code = switch error.reason {
        case .missing: .signatureMissing
        case .invalid: .signatureInvalid
        case .untrustedKey: .signatureUntrustedKey
        case .wrongReference: .signatureWrongReference
        case .referenceCount: .signatureReferenceCount
        case .duplicateID: .signatureDuplicateID
        case .forbiddenTransform: .signatureForbiddenTransform
        case .forbiddenAlgorithm: .signatureForbiddenAlgorithm
        case .malformed, .signingFailed: .signatureMalformed
        }
        self.init(code, error.message, line: line)
    }
}
