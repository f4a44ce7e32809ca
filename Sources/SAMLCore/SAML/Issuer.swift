/// `<saml:Issuer>`, saml-core-2.0-os §2.2.5: the entityID of the message's or assertion's
/// issuer. Format, when present, is normally ``NameIDFormat/entity`` (the default when absent).
///
/// ```swift
/// let issuer = Issuer("https://idp.example.org/idp/shibboleth")
/// ```
public struct Issuer: SAMLElementCodable {
    public var value: String
    public var format: String?

    public init(_ value: String, format: String? = nil) {
        self.value = value
        self.format = format
    }

    public init(element: XMLElement) throws {
        try element.expect("Issuer", SAMLNamespace.assertion)
        value = try element.requiredTrimmedText()
        format = element.attribute("Format")
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.element("saml:Issuer", [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "Format": format,
        ], text: value)
    }
}
