/// A way an arriving value departs from the strict encoding its binding prescribes, found
/// while decoding it leniently.
///
/// Real IdPs and SPs send line-wrapped base64, zlib-framed DEFLATE, unencoded `+`… A lenient
/// decoder accepts these and lists each as a deviation; a strict one refuses the first.
///
/// ```swift
/// let (bytes, deviations) = try LenientBase64.decode("PHNhbWw+\r\n")
/// deviations.map(\.code) // ["base64.line-wrapped"]
/// ```
public struct EncodingDeviation: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// A stable code such as `base64.line-wrapped` or `redirect.zlib-header`.
    public let code: String
    /// One sentence for people: what was found and why it matters.
    public let message: String
    /// Offset (in the text or bytes the decoder read) of the first occurrence, if meaningful.
    public let offset: Int?

    public init(code: String, message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(code) at offset \(offset): \(message)" }
        return "\(code): \(message)"
    }

    /// The stable codes the bindings report.
    public enum Code {
        public static let base64LineWrapped = "base64.line-wrapped"
        public static let base64Whitespace = "base64.whitespace"
        public static let base64PaddingMissing = "base64.padding-missing"
        public static let base64URLSafeAlphabet = "base64.url-safe-alphabet"
        public static let base64SpaceForPlus = "base64.space-for-plus"
        public static let base64InvalidCharacter = "base64.invalid-character"
        public static let base64PaddingWrong = "base64.padding-wrong"
        public static let base64PercentEncoded = "base64.percent-encoded"
        public static let redirectZlibHeader = "redirect.zlib-header"
        public static let redirectGzipHeader = "redirect.gzip-header"
        public static let redirectTrailingData = "redirect.trailing-data"
        public static let redirectUnencodedPlus = "redirect.unencoded-plus"
        public static let redirectRelayStateTooLong = "redirect.relaystate-too-long"
        public static let postDeflated = "post.deflated"
        public static let postRelayStateTooLong = "post.relaystate-too-long"
    }
}
