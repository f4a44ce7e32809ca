import Foundation

/// `<saml:SubjectConfirmationData>`, saml-core-2.0-os §2.4.1.2. For the bearer method the
/// Web SSO profile (saml-profiles-2.0-os §4.1.4.2) requires Recipient, NotOnOrAfter and,
/// for a solicited response, InResponseTo; NotBefore must then be absent.
public struct SubjectConfirmationData: SAMLElementCodable {
    public var notBefore: Date?
    public var notOnOrAfter: Date?
    public var recipient: String?
    public var inResponseTo: String?
    public var address: String?

    public init(notBefore: Date? = nil, notOnOrAfter: Date? = nil, recipient: String? = nil,
                inResponseTo: String? = nil, address: String? = nil) {
        self.notBefore = notBefore
        self.notOnOrAfter = notOnOrAfter
        self.recipient = recipient
        self.inResponseTo = inResponseTo
        self.address = address
    }

    public init(element: XMLElement) throws {
        try element.expect("SubjectConfirmationData", SAMLNamespace.assertion)
        notBefore = try element.dateAttribute("NotBefore")
        notOnOrAfter = try element.dateAttribute("NotOnOrAfter")
        recipient = element.attribute("Recipient")
        inResponseTo = element.attribute("InResponseTo")
        address = element.attribute("Address")
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.empty("saml:SubjectConfirmationData", [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "NotBefore": notBefore.map { SAMLDateTime.string(from: $0) },
            "NotOnOrAfter": notOnOrAfter.map { SAMLDateTime.string(from: $0) },
            "Recipient": recipient,
            "InResponseTo": inResponseTo,
            "Address": address,
        ])
    }
}
