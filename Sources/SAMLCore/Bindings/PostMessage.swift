/// A SAML message decoded from the HTTP-POST binding.
public struct PostMessage: Sendable, Equatable {
    /// Request or response, from the field name.
    public let kind: SAMLMessageKind
    /// The decoded message bytes (XML as sent; not parsed here).
    public let xml: [UInt8]
    /// RelayState, if present.
    public let relayState: String?
    /// Deviations from the strict encoding that were accepted.
    public let deviations: [EncodingDeviation]

    /// The message as UTF-8 text.
    public var xmlString: String { String(decoding: xml, as: UTF8.self) }
}
