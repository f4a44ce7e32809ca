/// Bounds applied to every XML document read from outside.
///
/// The parser never touches the network, never loads a DTD, never substitutes entities and
/// never runs with `XML_PARSE_HUGE` (NOTES-xmlsec.md, "Parser safety"). These limits come
/// on top.
public struct XMLParsingLimits: Sendable, Equatable {
    /// Largest document accepted, in bytes. SAML messages are a few kilobytes; metadata
    /// aggregates can be large, so callers reading metadata raise it.
    public var maxBytes: Int
    /// Deepest element nesting accepted (libxml2 itself stops at 256 without HUGE).
    public var maxDepth: Int

    public init(maxBytes: Int = 4 * 1024 * 1024, maxDepth: Int = 128) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// The default for SAML protocol messages.
    public static let `default` = XMLParsingLimits()
}
