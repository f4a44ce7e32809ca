/// `<samlp:NameIDPolicy>`, saml-core-2.0-os §3.4.1.1: the identifier the requester wants.
public struct NameIDPolicy: SAMLElementCodable {
    public var format: String?
    public var spNameQualifier: String?
    public var allowCreate: Bool?

    public init(format: String? = nil, spNameQualifier: String? = nil, allowCreate: Bool? = nil) {
        self.format = format
        self.spNameQualifier = spNameQualifier
        self.allowCreate = allowCreate
    }

    public init(element: XMLElement) throws {
        try element.expect("NameIDPolicy", SAMLNamespace.protocol_)
        format = element.attribute("Format")
        spNameQualifier = element.attribute("SPNameQualifier")
        allowCreate = try element.boolAttribute("AllowCreate")
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.empty("samlp:NameIDPolicy", [
            "xmlns:samlp": declaringNamespaces ? SAMLNamespace.protocol_ : nil,
            "Format": format,
            "SPNameQualifier": spNameQualifier,
            "AllowCreate": allowCreate.map { $0 ? "true" : "false" },
        ])
    }
}
