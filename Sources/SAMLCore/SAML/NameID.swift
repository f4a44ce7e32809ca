/// `<saml:NameID>`, saml-core-2.0-os §2.2.3 (NameIDType, §2.2.2).
///
/// The value is read canonically: every text node, comments skipped, never trimmed —
/// `<saml:NameID>admin@evil.com<!---->.example.org</saml:NameID>` is
/// `admin@evil.com.example.org` (CVE-2017-11427 and siblings).
///
/// ```swift
/// let id = NameID("jdoe@example.org", format: NameIDFormat.emailAddress)
/// ```
public struct NameID: SAMLElementCodable {
    public var value: String
    public var format: String?
    public var nameQualifier: String?
    public var spNameQualifier: String?
    public var spProvidedID: String?

    public init(_ value: String, format: String? = nil, nameQualifier: String? = nil,
                spNameQualifier: String? = nil, spProvidedID: String? = nil) {
        self.value = value
        self.format = format
        self.nameQualifier = nameQualifier
        self.spNameQualifier = spNameQualifier
        self.spProvidedID = spProvidedID
    }

    public init(element: XMLElement) throws {
        try element.expect("NameID", SAMLNamespace.assertion)
        value = element.text
        format = element.attribute("Format")
        nameQualifier = element.attribute("NameQualifier")
        spNameQualifier = element.attribute("SPNameQualifier")
        spProvidedID = element.attribute("SPProvidedID")
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        // §2.2.2 NameIDType attributes, in schema order.
        writer.element("saml:NameID", [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "NameQualifier": nameQualifier,
            "SPNameQualifier": spNameQualifier,
            "Format": format,
            "SPProvidedID": spProvidedID,
        ], text: value)
    }
}
