/// `<saml:AttributeStatement>`, saml-core-2.0-os §2.7.3: one or more `<saml:Attribute>`s
/// (EncryptedAttribute is not read).
public struct AttributeStatement: SAMLElementCodable {
    public var attributes: [Attribute]

    public init(_ attributes: [Attribute]) {
        self.attributes = attributes
    }

    /// The first attribute with this Name (or, failing that, this FriendlyName).
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name } ?? attributes.first { $0.friendlyName == name }
    }

    public init(element: XMLElement) throws {
        try element.expect("AttributeStatement", SAMLNamespace.assertion)
        attributes = try element.children("Attribute", SAMLNamespace.assertion).map(Attribute.init(element:))
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("saml:AttributeStatement", ["xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil])
        for attribute in attributes { attribute.write(to: &writer, declaringNamespaces: false) }
        writer.close("saml:AttributeStatement")
    }
}
