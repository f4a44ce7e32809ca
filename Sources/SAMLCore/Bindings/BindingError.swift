/// Why a SAML binding could not encode or decode a message.
///
/// Every reason has a stable string code (`binding.…`) that reports and scripts can match on;
/// the message names what was wrong and, when it is about bytes, the offset.
public struct BindingError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure, with its stable code as raw value.
    public enum Reason: String, Sendable {
        /// Inflating would produce more bytes than the limit (a deflate bomb is stopped there).
        case inflateLimitExceeded = "binding.inflate-limit-exceeded"
        /// The compressed stream ended before its final block.
        case inflateTruncated = "binding.inflate-truncated"
        /// The compressed stream is not valid DEFLATE (or zlib/gzip when that was asked for).
        case inflateCorrupt = "binding.inflate-corrupt"
        /// zlib refused to compress (should never happen).
        case deflateFailed = "binding.deflate-failed"
        /// A character outside the base64 alphabet, or a length no base64 text can have.
        case invalidBase64 = "binding.invalid-base64"
        /// A deviation from the strict encoding, refused because the decoder is strict.
        case deviationRefused = "binding.deviation-refused"
        /// A `%` not followed by two hex digits.
        case invalidPercentEncoding = "binding.invalid-percent-encoding"
        /// Neither `SAMLRequest` nor `SAMLResponse` (or both) in the message.
        case missingMessage = "binding.missing-message"
        /// A parameter appears more than once where only one is allowed.
        case duplicateParameter = "binding.duplicate-parameter"
        /// `Signature` without `SigAlg`, or the reverse.
        case incompleteSignature = "binding.incomplete-signature"
        /// The SOAP envelope or ECP header is not what the binding requires.
        case invalidEnvelope = "binding.invalid-envelope"
        /// The decoded message is not UTF-8 / XML that can be read.
        case invalidMessage = "binding.invalid-message"
        /// The input is larger than the binding accepts.
        case inputTooLarge = "binding.input-too-large"
    }

    public let reason: Reason
    public let message: String
    /// Byte offset in the input the message is about, when there is one.
    public let offset: Int?

    public init(_ reason: Reason, _ message: String, offset: Int? = nil) {
        self.reason = reason
        self.message = message
        self.offset = offset
    }

    /// The stable code, e.g. `binding.inflate-limit-exceeded`.
    public var code: String { reason.rawValue }

    public var description: String {
        if let offset { return "\(reason.rawValue): \(message) (at offset \(offset))" }
        return "\(reason.rawValue): \(message)"
    }
}
