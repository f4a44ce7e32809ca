/// The HTTP-Redirect binding, saml-bindings-2.0-os §3.4: a SAML message carried in the query
/// string of a URL, DEFLATE-compressed, base64-encoded and URL-encoded, optionally signed
/// with a detached signature over the query parameters.
///
/// ```swift
/// let url = try RedirectBinding.url(
///     destination: "https://idp.example.org/idp/profile/SAML2/Redirect/SSO",
///     message: Array(authnRequestXML.utf8), kind: .request,
///     relayState: "cookie:1234", signer: signer)
/// let decoded = try RedirectBinding.decode(url)
/// decoded.xml == Array(authnRequestXML.utf8)  // true
/// ```
public enum RedirectBinding {
    /// How to encode; the non-default values reproduce misconfigured senders on purpose.
    public struct EncodingOptions: Sendable, Equatable {
        /// `.raw` is correct; `.zlib` reproduces senders that keep the RFC 1950 wrapper.
        public var framing: RawDeflate.Framing
        /// When set, base64 is wrapped at this many columns with CRLF (then URL-encoded
        /// as `%0D%0A`), as MIME encoders do.
        public var base64LineLength: Int?
        /// When true, `+` in the base64 value is sent as a literal `+` (read back as a space
        /// by any form decoder). The signature still covers what is sent.
        public var leavePlusUnencoded: Bool
        /// zlib compression level (0–9).
        public var compressionLevel: Int

        public init(framing: RawDeflate.Framing = .raw, base64LineLength: Int? = nil,
                    leavePlusUnencoded: Bool = false, compressionLevel: Int = 9) {
            self.framing = framing
            self.base64LineLength = base64LineLength
            self.leavePlusUnencoded = leavePlusUnencoded
            self.compressionLevel = compressionLevel
        }

        /// What the specification requires.
        public static let standard = EncodingOptions()
    }

    /// The query string (without `?`) carrying `message`.
    ///
    /// saml-bindings-2.0-os §3.4.4.1: DEFLATE without zlib header, base64, URL-encode; when
    /// signing, the octets signed are `SAMLRequest=value&RelayState=value&SigAlg=value` (or
    /// `SAMLResponse=…`), RelayState left out when absent, each value URL-encoded exactly as it
    /// appears in the query; the base64 signature is appended as `&Signature=value`.
    public static func encode(_ message: [UInt8], kind: SAMLMessageKind, relayState: String? = nil,
                              signer: (any DetachedSigner)? = nil,
                              options: EncodingOptions = .standard) throws -> String {
        let compressed = try RawDeflate.compress(message, framing: options.framing, level: options.compressionLevel)
        let base64 = options.base64LineLength.map { SAMLBase64.encode(compressed, wrappingAt: $0, lineEnding: "\r\n") }
            ?? SAMLBase64.encode(compressed)
        var encodedMessage = PercentEncoding.queryComponentEncode(base64)
        if options.leavePlusUnencoded {
            encodedMessage = encodedMessage.replacing("%2B", with: "+")
        }
        var parts = [kind.parameterName + "=" + encodedMessage]
        if let relayState {
            parts.append("RelayState=" + PercentEncoding.queryComponentEncode(relayState))
        }
        guard let signer else { return parts.joined(separator: "&") }
        parts.append("SigAlg=" + PercentEncoding.queryComponentEncode(signer.algorithmURI))
        let signedOctets = Array(parts.joined(separator: "&").utf8)
        let signature = try signer.sign(signedOctets)
        parts.append("Signature=" + PercentEncoding.queryComponentEncode(SAMLBase64.encode(signature)))
        return parts.joined(separator: "&")
    }

    /// The full URL: `destination` plus the encoded query, joined with `?` (or `&` when the
    /// destination already has a query, saml-bindings-2.0-os §3.4.4: existing parameters kept).
    public static func url(destination: String, message: [UInt8], kind: SAMLMessageKind,
                           relayState: String? = nil, signer: (any DetachedSigner)? = nil,
                           options: EncodingOptions = .standard) throws -> String {
        let query = try encode(message, kind: kind, relayState: relayState, signer: signer, options: options)
        let separator = destination.contains("?") ? "&" : "?"
        return destination + separator + query
    }

    /// The exact octets a signer signs for these already URL-encoded parameter values
    /// (saml-bindings-2.0-os §3.4.4.1), in the specification's order.
    public static func signedOctets(kind: SAMLMessageKind, encodedMessage: String,
                                    encodedRelayState: String?, encodedSigAlg: String) -> [UInt8] {
        var parts = [kind.parameterName + "=" + encodedMessage]
        if let encodedRelayState { parts.append("RelayState=" + encodedRelayState) }
        parts.append("SigAlg=" + encodedSigAlg)
        return Array(parts.joined(separator: "&").utf8)
    }
}
