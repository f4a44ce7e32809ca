/// Why a signature was refused. Each reason has a stable code that reports and
/// `verify-response` print.
public struct SignatureError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// The element carries no `ds:Signature` child.
        case missing = "signature.missing"
        /// The signature value does not verify with the trusted key, or the signed content
        /// was changed (digest mismatch).
        case invalid = "signature.invalid"
        /// It verifies, but only with a key that is not trusted (e.g. the certificate that came
        /// in its own KeyInfo).
        case untrustedKey = "signature.untrusted-key"
        /// The Reference points at another element than the one carrying the signature.
        case wrongReference = "signature.wrong-reference"
        /// Not exactly one Reference in SignedInfo.
        case referenceCount = "signature.reference-count"
        /// Two elements share the referenced ID (or any ID).
        case duplicateID = "signature.duplicate-id"
        /// A transform outside enveloped-signature + exclusive c14n (XSLT, XPath, …).
        case forbiddenTransform = "signature.forbidden-transform"
        /// An algorithm the policy does not allow (SHA-1 unless allowed, unknown URIs).
        case forbiddenAlgorithm = "signature.forbidden-algorithm"
        /// More than one `ds:Signature` child, or a malformed Signature element.
        case malformed = "signature.malformed"
        /// The signing operation failed.
        case signingFailed = "signature.signing-failed"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
