/// A parsed SOAP 1.1 envelope: its header blocks and the single element of its body, both
/// as serialized bytes (documents are not `Sendable`; bytes are).
public struct SOAPEnvelope: Sendable, Equatable {
    /// One child of `SOAP-ENV:Header`.
    public struct HeaderBlock: Sendable, Equatable {
        public let localName: String
        public let namespaceURI: String?
        /// Unqualified attributes, in document order.
        public let attributes: [String: String]
        /// `SOAP-ENV:mustUnderstand` as written, if present.
        public let mustUnderstand: String?
        /// `SOAP-ENV:actor` as written, if present.
        public let actor: String?
        /// The block serialized (standalone).
        public let xml: [UInt8]

        init(element: XMLElement) {
            localName = element.localName
            namespaceURI = element.namespaceURI
            var unqualified: [String: String] = [:]
            for a in element.attributes where a.namespaceURI == nil { unqualified[a.name] = a.value }
            attributes = unqualified
            mustUnderstand = element.attribute("mustUnderstand", namespace: SAMLNamespace.soap11)
            actor = element.attribute("actor", namespace: SAMLNamespace.soap11)
            xml = SOAPBinding.standalone(element)
        }

        /// SOAP 1.1 §4.2.3: `mustUnderstand` is `"1"` (accepting `"true"` too).
        public var isMustUnderstand: Bool { mustUnderstand == "1" || mustUnderstand == "true" }
    }

    public let headerBlocks: [HeaderBlock]
    /// The body's one element, serialized so it parses on its own.
    public let body: [UInt8]
    /// Local name of the body element (`Response`, `AuthnRequest`, `Fault`…).
    public let bodyName: String
    /// Namespace of the body element.
    public let bodyNamespace: String?
    /// The SOAP fault, when the body is one.
    public let fault: SOAPFault?

    /// The first header block with this name and namespace.
    public func headerBlock(_ localName: String, _ namespaceURI: String) -> HeaderBlock? {
        headerBlocks.first { $0.localName == localName && $0.namespaceURI == namespaceURI }
    }
}
