/// What `md:IDPSSODescriptor` and `md:SPSSODescriptor` share (saml-metadata-2.0-os §2.4.1
/// RoleDescriptorType and §2.4.2 SSODescriptorType), and the lookups built on it.
public protocol SSODescriptor: SAMLElementCodable {
    /// `protocolSupportEnumeration`, split on whitespace (§2.4.1; required).
    var protocolSupportEnumeration: [String] { get }
    var keyDescriptors: [KeyDescriptor] { get }
    var singleLogoutServices: [Endpoint] { get }
    var nameIDFormats: [String] { get }
}

extension SSODescriptor {
    /// Certificates that may verify this role's signatures (use="signing" or unspecified).
    public var signingCertificates: [String] {
        keyDescriptors.filter(\.isForSigning).flatMap(\.certificates)
    }

    /// Certificates to encrypt to this role (use="encryption" or unspecified).
    public var encryptionCertificates: [String] {
        keyDescriptors.filter(\.isForEncryption).flatMap(\.certificates)
    }

    /// True when the role declares SAML 2.0 protocol support (§2.4.1).
    public var supportsSAML2: Bool { protocolSupportEnumeration.contains(SAMLNamespace.protocol_) }

    /// The first SingleLogoutService with this binding.
    public func singleLogoutService(binding: String) -> Endpoint? {
        singleLogoutServices.first { $0.binding == binding }
    }
}

/// The parts of SSODescriptorType read and written the same way by both roles.
struct SSODescriptorParts: Equatable {
    var protocolSupportEnumeration: [String]
    var keyDescriptors: [KeyDescriptor]
    var singleLogoutServices: [Endpoint]
    var nameIDFormats: [String]

    init(element: XMLElement) throws {
        let md = SAMLNamespace.metadata
        let protocols = try element.requiredAttribute("protocolSupportEnumeration")
        protocolSupportEnumeration = protocols.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .map(String.init)
        keyDescriptors = try element.children("KeyDescriptor", md).map(KeyDescriptor.init(element:))
        singleLogoutServices = try element.children("SingleLogoutService", md).map(Endpoint.init(element:))
        nameIDFormats = try element.children("NameIDFormat", md).map { try $0.requiredTrimmedText() }
    }

    init(protocolSupportEnumeration: [String], keyDescriptors: [KeyDescriptor],
         singleLogoutServices: [Endpoint], nameIDFormats: [String]) {
        self.protocolSupportEnumeration = protocolSupportEnumeration
        self.keyDescriptors = keyDescriptors
        self.singleLogoutServices = singleLogoutServices
        self.nameIDFormats = nameIDFormats
    }

    /// §2.4.1 then §2.4.2 sequence: KeyDescriptor*, (Organization, ContactPerson,
    /// ArtifactResolutionService — not modelled), SingleLogoutService*, (ManageNameIDService),
    /// NameIDFormat*. The role's own elements follow.
    func writeChildren(to writer: inout XMLWriter) {
        for key in keyDescriptors { key.write(to: &writer, declaringNamespaces: false) }
        for service in singleLogoutServices { service.write(to: &writer, as: "md:SingleLogoutService") }
        for format in nameIDFormats { writer.element("md:NameIDFormat", text: format) }
    }
}
