/// `<md:KeyDescriptor>`, saml-metadata-2.0-os §2.4.1.1: a key (as X.509 certificates in
/// `ds:KeyInfo/ds:X509Data/ds:X509Certificate`) and what it is used for.
///
/// ```swift
/// KeyDescriptor(use: .signing, certificates: ["MIIC…"])
/// ```
public struct KeyDescriptor: SAMLElementCodable {
    /// The `use` attribute; absent (`nil`) means the key serves both purposes (§2.4.1.1).
    public enum Use: String, Sendable {
        case signing, encryption
    }

    public var use: Use?
    /// Base64 DER certificates, whitespace removed.
    public var certificates: [String]
    /// `<md:EncryptionMethod Algorithm="…">` URIs.
    public var encryptionMethods: [String]

    public init(use: Use?, certificates: [String], encryptionMethods: [String] = []) {
        self.use = use
        self.certificates = certificates
        self.encryptionMethods = encryptionMethods
    }

    /// True when the key may verify signatures (use is signing or unspecified).
    public var isForSigning: Bool { use != .encryption }
    /// True when the key may encrypt (use is encryption or unspecified).
    public var isForEncryption: Bool { use != .signing }

    public init(element: XMLElement) throws {
        try element.expect("KeyDescriptor", SAMLNamespace.metadata)
        if let raw = element.attribute("use") {
            guard let value = Use(rawValue: raw) else {
                throw element.error(.invalidAttribute, "'\(raw)' is not signing or encryption", attribute: "use")
            }
            use = value
        } else {
            use = nil
        }
        let keyInfo = try element.requiredChild("KeyInfo", SAMLNamespace.dsig)
        certificates = keyInfo.descendants("X509Certificate", SAMLNamespace.dsig).map { cert in
            String(cert.text.unicodeScalars.filter { !" \t\r\n".unicodeScalars.contains($0) })
        }
        encryptionMethods = try element.children("EncryptionMethod", SAMLNamespace.metadata)
            .map { try $0.requiredAttribute("Algorithm") }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("md:KeyDescriptor", [
            "xmlns:md": declaringNamespaces ? SAMLNamespace.metadata : nil,
            "xmlns:ds": declaringNamespaces ? SAMLNamespace.dsig : nil,
            "use": use?.rawValue,
        ])
        writer.open("ds:KeyInfo")
        writer.open("ds:X509Data")
        for certificate in certificates { writer.element("ds:X509Certificate", text: certificate) }
        writer.close("ds:X509Data")
        writer.close("ds:KeyInfo")
        for algorithm in encryptionMethods { writer.empty("md:EncryptionMethod", ["Algorithm": algorithm]) }
        writer.close("md:KeyDescriptor")
    }
}
