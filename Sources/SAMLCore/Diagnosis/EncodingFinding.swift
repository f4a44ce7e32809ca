/// One thing wrong with how a SAMLRequest/SAMLResponse value arrived: a stable code, one
/// sentence saying what happened and what caused it, and where.
public struct EncodingFinding: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// A stable code such as `encoding.plus-as-space`.
    public let code: String
    /// One sentence for people.
    public let message: String
    /// Offset (UTF-8 bytes) in the arrived value, when the finding is about a place in it.
    public let offset: Int?

    public init(code: String, message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(code): \(message)" }

    /// The stable codes of ``EncodingDiagnoser``.
    public enum Code {
        /// `+` became a space: the sender did not percent-encode the form body.
        public static let plusAsSpace = "encoding.plus-as-space"
        /// Trailing `=` padding missing.
        public static let paddingStripped = "encoding.padding-stripped"
        /// `=` padding still written `%3D`.
        public static let paddingURLEncoded = "encoding.padding-url-encoded"
        /// `%252B` and the like: percent-encoded twice.
        public static let doubleURLEncoded = "encoding.double-url-encoded"
        /// `%2B` / `%2F` left in the value: percent-encoded once more than decoded.
        public static let stillURLEncoded = "encoding.still-url-encoded"
        /// zlib (RFC 1950) header and trailer around the DEFLATE data.
        public static let zlibHeader = "encoding.zlib-header"
        /// DEFLATE-compressed on the POST binding, which wants plain base64.
        public static let deflatedPost = "encoding.deflated-post"
        /// Plain base64 XML on the Redirect binding, which wants DEFLATE.
        public static let notDeflated = "encoding.not-deflated"
        /// CR/LF in the base64 text.
        public static let lineBreaks = "encoding.line-breaks"
        /// Other whitespace in the base64 text.
        public static let whitespace = "encoding.whitespace"
        /// `-`/`_` of base64url.
        public static let urlSafeAlphabet = "encoding.url-safe-alphabet"
        /// Characters that are not base64 at all.
        public static let invalidCharacter = "encoding.invalid-character"
        /// Cut short: base64 length, compressed stream, or XML not closed.
        public static let truncated = "encoding.truncated"
        /// The value is XML, not base64.
        public static let notBase64XML = "encoding.not-base64-xml"
        /// The value is an HTML page, not base64.
        public static let notBase64HTML = "encoding.not-base64-html"
        /// Decodes, but to something that is neither XML nor DEFLATE.
        public static let notSAML = "encoding.not-saml"
        /// Decodes to XML that is not well-formed (other than being cut short).
        public static let notWellFormed = "encoding.not-well-formed"
        /// Inflating would exceed the limit.
        public static let inflateLimit = "encoding.inflate-limit"
        /// Differs from the expected original (first difference given).
        public static let differs = "encoding.differs"
        /// Damaged in transport, but lenient decoding recovers the original message exactly.
        public static let recoverable = "encoding.recoverable"
    }
}
