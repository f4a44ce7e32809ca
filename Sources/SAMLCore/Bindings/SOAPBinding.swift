internal import CXMLSec

/// The SAML SOAP binding, saml-bindings-2.0-os §3.2: one SAML message as the only child of a
/// SOAP 1.1 `Body`, with optional header blocks (ECP/PAOS put theirs there).
///
/// Messages go in as already-serialized XML text and are embedded byte for byte (a signed
/// message must not be re-serialized); an XML declaration at its start is dropped, since
/// one cannot appear inside the envelope.
///
/// ```swift
/// let envelope = SOAPBinding.envelope(body: signedResponseXML)
/// let parsed = try SOAPBinding.parse(Array(envelope.utf8))
/// parsed.body  // the Response, serialized
/// ```
public enum SOAPBinding {
    /// SOAP 1.1 §6.1.1: `text/xml` (saml-bindings-2.0-os §3.2.3.1).
    public static let contentType = "text/xml; charset=utf-8"
    /// saml-bindings-2.0-os §3.2.3.1: the `SOAPAction` value a requester may send.
    public static let soapAction = "http://www.oasis-open.org/committees/security"
    /// SOAP 1.1 §4.2.2: the actor meaning "the next SOAP node".
    public static let nextActor = "http://schemas.xmlsoap.org/soap/actor/next"
    /// The envelope prefix this writer uses.
    public static let prefix = "SOAP-ENV"

    /// An envelope with `headerBlocks` (each serialized XML, embedded as is) and `body`.
    public static func envelope(body: String, headerBlocks: [String] = []) -> String {
        var w = XMLWriter()
        w.open("\(prefix):Envelope", ["xmlns:\(prefix)": SAMLNamespace.soap11])
        if !headerBlocks.isEmpty {
            w.open("\(prefix):Header")
            for block in headerBlocks { w.raw(withoutXMLDeclaration(block)) }
            w.close("\(prefix):Header")
        }
        w.open("\(prefix):Body")
        w.raw(withoutXMLDeclaration(body))
        w.close("\(prefix):Body")
        w.close("\(prefix):Envelope")
        return w.output
    }

    /// Parses a SOAP 1.1 envelope with the safe XML parser. The body must hold exactly one
    /// element (saml-bindings-2.0-os §3.2.2.1: "exactly one SAML request/response element");
    /// a SOAP `Fault` there is returned as ``SOAPEnvelope/fault``.
    public static func parse(_ bytes: [UInt8], limits: XMLParsingLimits = .default) throws -> SOAPEnvelope {
        let document = try XMLDocument(parsing: bytes, limits: limits)
        let root = document.root
        guard root.is("Envelope", SAMLNamespace.soap11) else {
            throw BindingError(.invalidEnvelope,
                               "the root element is {\(root.namespaceURI ?? "")}\(root.localName), not a SOAP 1.1 Envelope (\(SAMLNamespace.soap11))")
        }
        let elements = root.children
        guard let body = root.firstChild("Body", SAMLNamespace.soap11) else {
            throw BindingError(.invalidEnvelope, "the SOAP Envelope has no Body")
        }
        let header = root.firstChild("Header", SAMLNamespace.soap11)
        // SOAP 1.1 §4.1.1: Header (optional) first, then Body.
        if let header, !(elements.first?.isSameNode(as: header) ?? false) {
            throw BindingError(.invalidEnvelope, "the SOAP Header is not the first child of the Envelope (line \(header.line))")
        }
        let bodyChildren = body.children
        guard bodyChildren.count == 1, let inner = bodyChildren.first else {
            throw BindingError(.invalidEnvelope,
                               "the SOAP Body holds \(bodyChildren.count) elements; the SAML SOAP binding requires exactly one")
        }
        let blocks = (header?.children ?? []).map { SOAPEnvelope.HeaderBlock(element: $0) }
        if inner.is("Fault", SAMLNamespace.soap11) {
            return SOAPEnvelope(headerBlocks: blocks, body: standalone(inner),
                                bodyName: inner.localName, bodyNamespace: inner.namespaceURI,
                                fault: SOAPFault(parsing: inner))
        }
        return SOAPEnvelope(headerBlocks: blocks, body: standalone(inner),
                            bodyName: inner.localName, bodyNamespace: inner.namespaceURI, fault: nil)
    }

    /// The element serialized so it stands alone: copied into a new document, where libxml2
    /// redeclares on it the namespaces it uses that were declared on its ancestors
    /// (e.g. `xmlns:saml` on the Envelope). Other bytes are libxml2's serialization of them.
    static func standalone(_ element: XMLElement) -> [UInt8] {
        guard let doc = xmlNewDoc("1.0") else { return element.serialized() }
        defer { xmlFreeDoc(doc) }
        guard let copy = xmlDocCopyNode(element.node, doc, 1) else { return element.serialized() }
        xmlDocSetRootElement(doc, copy)
        guard let buffer = xmlBufferCreate() else { return element.serialized() }
        defer { xmlBufferFree(buffer) }
        _ = xmlNodeDump(buffer, doc, copy, 0, 0)
        guard let content = xmlBufferContent(buffer) else { return element.serialized() }
        return Array(UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer))))
    }

    /// `xml` without a leading `<?xml …?>` declaration (and the whitespace after it).
    public static func withoutXMLDeclaration(_ xml: String) -> String {
        var s = Substring(xml)
        if s.hasPrefix("\u{FEFF}") { s = s.dropFirst() }
        guard s.hasPrefix("<?xml"), let end = s.firstRange(of: "?>") else { return String(s) }
        return String(s[end.upperBound...].drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" })
    }
}
