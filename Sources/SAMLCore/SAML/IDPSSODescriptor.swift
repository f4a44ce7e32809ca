/// `<md:IDPSSODescriptor>`, saml-metadata-2.0-os §2.4.3.
///
/// ```swift
/// let sso = idp.singleSignOnService(binding: SAMLBindingURI.httpRedirect)?.location
/// ```
public struct IDPSSODescriptor: SSODescriptor {
    public var protocolSupportEnumeration: [String]
    public var wantAuthnRequestsSigned: Bool?
    public var keyDescriptors: [KeyDescriptor]
    public var singleLogoutServices: [Endpoint]
    public var nameIDFormats: [String]
    /// One or more `<md:SingleSignOnService>` (§2.4.3).
    public var singleSignOnServices: [Endpoint]

    public init(protocolSupportEnumeration: [String] = [SAMLNamespace.protocol_],
                wantAuthnRequestsSigned: Bool? = nil, keyDescriptors: [KeyDescriptor] = [],
                singleLogoutServices: [Endpoint] = [], nameIDFormats: [String] = [],
                singleSignOnServices: [Endpoint]) {
        self.protocolSupportEnumeration = protocolSupportEnumeration
        self.wantAuthnRequestsSigned = wantAuthnRequestsSigned
        self.keyDescriptors = keyDescriptors
        self.singleLogoutServices = singleLogoutServices
        self.nameIDFormats = nameIDFormats
        self.singleSignOnServices = singleSignOnServices
    }

    /// The first SingleSignOnService with this binding.
    public func singleSignOnService(binding: String) -> Endpoint? {
        singleSignOnServices.first { $0.binding == binding }
    }

    public init(element: XMLElement) throws {
        try element.expect("IDPSSODescriptor", SAMLNamespace.metadata)
        let parts = try SSODescriptorParts(element: element)
        protocolSupportEnumeration = parts.protocolSupportEnumeration
        keyDescriptors = parts.keyDescriptors
        singleLogoutServices = parts.singleLogoutServices
        nameIDFormats = parts.nameIDFormats
        wantAuthnRequestsSigned = try element.boolAttribute("WantAuthnRequestsSigned")
        singleSignOnServices = try element.children("SingleSignOnService", SAMLNamespace.metadata)
            .map(Endpoint.init(element:))
        // §2.4.3: one or more SingleSignOnService elements.
        if singleSignOnServices.isEmpty {
            throw element.error(.missingElement, "IDPSSODescriptor has no SingleSignOnService (§2.4.3)")
        }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("md:IDPSSODescriptor", [
            "xmlns:md": declaringNamespaces ? SAMLNamespace.metadata : nil,
            "xmlns:ds": declaringNamespaces ? SAMLNamespace.dsig : nil,
            "protocolSupportEnumeration": protocolSupportEnumeration.joined(separator: " "),
            "WantAuthnRequestsSigned": wantAuthnRequestsSigned.map { $0 ? "true" : "false" },
        ])
        SSODescriptorParts(protocolSupportEnumeration: protocolSupportEnumeration, keyDescriptors: keyDescriptors,
                           singleLogoutServices: singleLogoutServices, nameIDFormats: nameIDFormats)
            .writeChildren(to: &writer)
        for service in singleSignOnServices { service.write(to: &writer, as: "md:SingleSignOnService") }
        writer.close("md:IDPSSODescriptor")
    }
}
