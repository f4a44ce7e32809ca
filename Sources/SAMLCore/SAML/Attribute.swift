/// `<saml:Attribute>`, saml-core-2.0-os §2.7.3.1, with its `<saml:AttributeValue>`s
/// (§2.7.3.1.1) read as strings.
///
/// ```swift
/// Attribute(name: "urn:oid:0.9.2342.19200300.100.1.3", friendlyName: "mail",
///           values: [.init("jdoe@example.org", type: "xs:string")])
/// ```
public struct Attribute: SAMLElementCodable {
    /// NameFormat URIs, §8.2.
    public enum NameFormat {
        public static let unspecified = "urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified"
        public static let uri = "urn:oasis:names:tc:SAML:2.0:attrname-format:uri"
        public static let basic = "urn:oasis:names:tc:SAML:2.0:attrname-format:basic"
    }

    /// One `<saml:AttributeValue>`: its text (canonical: all text, comments skipped) and its
    /// `xsi:type` QName. A type in the XML Schema namespace is normalised to the `xs:` prefix
    /// whatever prefix the sender used (`xsd:string` reads as `xs:string`).
    public struct Value: Sendable, Equatable {
        public var value: String
        public var type: String?
        public init(_ value: String, type: String? = nil) {
            self.value = value
            self.type = type
        }
    }

    public var name: String
    public var nameFormat: String?
    public var friendlyName: String?
    public var values: [Value]

    public init(name: String, nameFormat: String? = NameFormat.uri, friendlyName: String? = nil,
                values: [Value] = []) {
        self.name = name
        self.nameFormat = nameFormat
        self.friendlyName = friendlyName
        self.values = values
    }

    /// An attribute whose values are all `xs:string`.
    public init(name: String, nameFormat: String? = NameFormat.uri, friendlyName: String? = nil,
                strings: [String]) {
        self.init(name: name, nameFormat: nameFormat, friendlyName: friendlyName,
                  values: strings.map { Value($0, type: "xs:string") })
    }

    /// The values' text.
    public var stringValues: [String] { values.map(\.value) }

    public init(element: XMLElement) throws {
        try element.expect("Attribute", SAMLNamespace.assertion)
        name = try element.requiredAttribute("Name")
        nameFormat = element.attribute("NameFormat")
        friendlyName = element.attribute("FriendlyName")
        values = element.children("AttributeValue", SAMLNamespace.assertion).map { valueElement in
            Value(valueElement.text, type: Self.readType(valueElement))
        }
    }

    private static func readType(_ element: XMLElement) -> String? {
        guard let qname = element.attribute("type", namespace: SAMLNamespace.xsi) else { return nil }
        let parts = qname.split(separator: ":", maxSplits: 1).map(String.init)
        let prefix = parts.count == 2 ? parts[0] : nil
        let local = parts.last ?? qname
        if element.namespaceURI(forPrefix: prefix) == SAMLNamespace.xs { return "xs:" + local }
        return qname
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("saml:Attribute", [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "Name": name,
            "NameFormat": nameFormat,
            "FriendlyName": friendlyName,
        ])
        for value in values {
            // A typed value declares xsi (and xs for an xs: type) on itself, as Shibboleth
            // does, so the QName resolves wherever the value is copied.
            let typed = value.type != nil
            writer.element("saml:AttributeValue", [
                "xmlns:xs": value.type?.hasPrefix("xs:") == true ? SAMLNamespace.xs : nil,
                "xmlns:xsi": typed ? SAMLNamespace.xsi : nil,
                "xsi:type": value.type,
            ], text: value.value)
        }
        writer.close("saml:Attribute")
    }
}
