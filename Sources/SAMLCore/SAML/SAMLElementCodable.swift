/// A SAML or metadata element that is written with ``XMLWriter`` and read from a parsed
/// ``XMLElement``. Every message, assertion part and metadata type conforms.
///
/// ```swift
/// let issuer = Issuer("https://idp.example.org/idp/shibboleth")
/// let text = issuer.xml()          // <saml:Issuer xmlns:saml="…">https://…</saml:Issuer>
/// let back = try Issuer(xml: text) // == issuer
/// ```
public protocol SAMLElementCodable: Sendable, Equatable {
    /// Reads the element, checking its name, namespace and required parts. A `ds:Signature`
    /// child is ignored (verifying it is the DSig module's job).
    init(element: XMLElement) throws

    /// Writes the element. With `declaringNamespaces` the element declares the namespaces
    /// it uses (conventional prefixes `samlp`, `saml`, `md`, `ds`); inside a parent that has
    /// declared them, it does not.
    func write(to writer: inout XMLWriter, declaringNamespaces: Bool)
}

extension SAMLElementCodable {
    /// Parses UTF-8 XML text whose root is this element (safely: see ``XMLDocument``).
    public init(xml: String) throws {
        try self.init(xml: Array(xml.utf8))
    }

    /// Parses UTF-8 XML bytes whose root is this element.
    public init(xml: [UInt8]) throws {
        let document = try XMLDocument(parsing: xml)
        try self.init(element: document.root)
    }

    /// The element as standalone XML text (no XML declaration), declaring its namespaces.
    /// Deterministic: the same value always gives the same bytes.
    public func xml() -> String {
        var writer = XMLWriter()
        write(to: &writer, declaringNamespaces: true)
        return writer.output
    }
}

/// A SAML element that can carry an enveloped `ds:Signature` right after its Issuer
/// (saml-core-2.0-os §5.4.1): requests, responses, assertions, metadata.
public protocol SignableSAMLElement: SAMLElementCodable {
    /// Writes the element with `signature` (a `ds:Signature` element or template) placed
    /// where the schema puts it.
    func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?)
}

extension SignableSAMLElement {
    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        write(to: &writer, declaringNamespaces: declaringNamespaces, signature: nil)
    }

    /// The element, declaring its namespaces, with `signature` right after Issuer.
    public func xml(signature: String?) -> String {
        var writer = XMLWriter()
        write(to: &writer, declaringNamespaces: true, signature: signature)
        return writer.output
    }
}
