/// `<saml:Subject>`, saml-core-2.0-os §2.4.1: (BaseID | NameID | EncryptedID)? followed by
/// SubjectConfirmation*. Only NameID is modelled; an EncryptedID is not read.
public struct Subject: SAMLElementCodable {
    public var nameID: NameID?
    public var confirmations: [SubjectConfirmation]

    public init(nameID: NameID?, confirmations: [SubjectConfirmation] = []) {
        self.nameID = nameID
        self.confirmations = confirmations
    }

    public init(element: XMLElement) throws {
        try element.expect("Subject", SAMLNamespace.assertion)
        nameID = try element.optionalChild("NameID", SAMLNamespace.assertion).map(NameID.init(element:))
        confirmations = try element.children("SubjectConfirmation", SAMLNamespace.assertion)
            .map(SubjectConfirmation.init(element:))
        if nameID == nil, confirmations.isEmpty, element.children.isEmpty {
            throw element.error(.missingElement, "a Subject needs an identifier or a SubjectConfirmation (§2.4.1)")
        }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("saml:Subject", ["xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil])
        nameID?.write(to: &writer, declaringNamespaces: false)
        for confirmation in confirmations {
            confirmation.write(to: &writer, declaringNamespaces: false)
        }
        writer.close("saml:Subject")
    }
}
