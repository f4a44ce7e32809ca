import Foundation

/// `<md:EntityDescriptor>`, saml-metadata-2.0-os §2.3.2: one entity's metadata, with its
/// IdP and/or SP role. Other roles (AttributeAuthority, AuthnAuthority, PDP), Organization
/// and ContactPerson are not modelled and are ignored when read.
///
/// ```swift
/// let idp = try EntityDescriptor(xml: metadataText)
/// let url = idp.idpSSODescriptor?.singleSignOnService(binding: SAMLBindingURI.httpRedirect)?.location
/// let certs = idp.idpSSODescriptor?.signingCertificates ?? []
/// ```
public struct EntityDescriptor: SignableSAMLElement {
    public var entityID: String
    public var id: String?
    public var validUntil: Date?
    /// xs:duration text, e.g. `PT1H` (kept as written).
    public var cacheDuration: String?
    public var idpSSODescriptor: IDPSSODescriptor?
    public var spSSODescriptor: SPSSODescriptor?

    public init(entityID: String, id: String? = nil, validUntil: Date? = nil, cacheDuration: String? = nil,
                idpSSODescriptor: IDPSSODescriptor? = nil, spSSODescriptor: SPSSODescriptor? = nil) {
        self.entityID = entityID
        self.id = id
        self.validUntil = validUntil
        self.cacheDuration = cacheDuration
        self.idpSSODescriptor = idpSSODescriptor
        self.spSSODescriptor = spSSODescriptor
    }

    public init(element: XMLElement) throws {
        let md = SAMLNamespace.metadata
        try element.expect("EntityDescriptor", md)
        entityID = try element.requiredAttribute("entityID")
        // §2.3.2: entityID is an anyURI of at most 1024 characters.
        if entityID.isEmpty || entityID.count > 1024 {
            throw element.error(.invalidAttribute, "entityID must be 1 to 1024 characters", attribute: "entityID")
        }
        id = element.attribute("ID")
        validUntil = try element.dateAttribute("validUntil")
        cacheDuration = element.attribute("cacheDuration")
        // A role the entity does not support for SAML 2.0 (e.g. a Shibboleth 1.3-only
        // IDPSSODescriptor) is still read; check `supportsSAML2`.
        idpSSODescriptor = try element.optionalChild("IDPSSODescriptor", md).map(IDPSSODescriptor.init(element:))
        spSSODescriptor = try element.optionalChild("SPSSODescriptor", md).map(SPSSODescriptor.init(element:))
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?) {
        writer.open("md:EntityDescriptor", [
            "xmlns:md": declaringNamespaces ? SAMLNamespace.metadata : nil,
            "xmlns:ds": declaringNamespaces ? SAMLNamespace.dsig : nil,
            "entityID": entityID,
            "ID": id,
            "validUntil": validUntil.map { SAMLDateTime.string(from: $0) },
            "cacheDuration": cacheDuration,
        ])
        if let signature { writer.raw(signature) }
        // §2.3.2: Signature?, Extensions?, then the role descriptors.
        idpSSODescriptor?.write(to: &writer, declaringNamespaces: false)
        spSSODescriptor?.write(to: &writer, declaringNamespaces: false)
        writer.close("md:EntityDescriptor")
    }
}
