/// `<md:SPSSODescriptor>`, saml-metadata-2.0-os §2.4.4.
///
/// ```swift
/// let acs = sp.assertionConsumerService(binding: SAMLBindingURI.paos)   // ECP
/// ```
public struct SPSSODescriptor: SSODescriptor {
    public var protocolSupportEnumeration: [String]
    public var authnRequestsSigned: Bool?
    public var wantAssertionsSigned: Bool?
    public var keyDescriptors: [KeyDescriptor]
    public var singleLogoutServices: [Endpoint]
    public var nameIDFormats: [String]
    /// One or more `<md:AssertionConsumerService>` (§2.4.4).
    public var assertionConsumerServices: [IndexedEndpoint]

    public init(protocolSupportEnumeration: [String] = [SAMLNamespace.protocol_],
                authnRequestsSigned: Bool? = nil, wantAssertionsSigned: Bool? = nil,
                keyDescriptors: [KeyDescriptor] = [], singleLogoutServices: [Endpoint] = [],
                nameIDFormats: [String] = [], assertionConsumerServices: [IndexedEndpoint]) {
        self.protocolSupportEnumeration = protocolSupportEnumeration
        self.authnRequestsSigned = authnRequestsSigned
        self.wantAssertionsSigned = wantAssertionsSigned
        self.keyDescriptors = keyDescriptors
        self.singleLogoutServices = singleLogoutServices
        self.nameIDFormats = nameIDFormats
        self.assertionConsumerServices = assertionConsumerServices
    }

    /// The ACS a response should go to. With `index`, the endpoint with that index (and
    /// binding, when given); otherwise the default (§2.2.3) among those with `binding`,
    /// or among all when `binding` is nil.
    public func assertionConsumerService(binding: String? = nil, index: Int? = nil) -> IndexedEndpoint? {
        let candidates = assertionConsumerServices.filter { binding == nil || $0.binding == binding }
        if let index { return candidates.first { $0.index == index } }
        return IndexedEndpoint.defaultEndpoint(in: candidates)
    }

    public init(element: XMLElement) throws {
        try element.expect("SPSSODescriptor", SAMLNamespace.metadata)
        let parts = try SSODescriptorParts(element: element)
        protocolSupportEnumeration = parts.protocolSupportEnumeration
        keyDescriptors = parts.keyDescriptors
        singleLogoutServices = parts.singleLogoutServices
        nameIDFormats = parts.nameIDFormats
        authnRequestsSigned = try element.boolAttribute("AuthnRequestsSigned")
        wantAssertionsSigned = try element.boolAttribute("WantAssertionsSigned")
        assertionConsumerServices = try element.children("AssertionConsumerService", SAMLNamespace.metadata)
            .map(IndexedEndpoint.init(element:))
        // §2.4.4: one or more AssertionConsumerService elements.
        if assertionConsumerServices.isEmpty {
            throw element.error(.missingElement, "SPSSODescriptor has no AssertionConsumerService (§2.4.4)")
        }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("md:SPSSODescriptor", [
            "xmlns:md": declaringNamespaces ? SAMLNamespace.metadata : nil,
            "xmlns:ds": declaringNamespaces ? SAMLNamespace.dsig : nil,
            "protocolSupportEnumeration": protocolSupportEnumeration.joined(separator: " "),
            "AuthnRequestsSigned": authnRequestsSigned.map { $0 ? "true" : "false" },
            "WantAssertionsSigned": wantAssertionsSigned.map { $0 ? "true" : "false" },
        ])
        SSODescriptorParts(protocolSupportEnumeration: protocolSupportEnumeration, keyDescriptors: keyDescriptors,
                           singleLogoutServices: singleLogoutServices, nameIDFormats: nameIDFormats)
            .writeChildren(to: &writer)
        for service in assertionConsumerServices { service.write(to: &writer, as: "md:AssertionConsumerService") }
        writer.close("md:SPSSODescriptor")
    }
}
