import Foundation

/// `<samlp:AuthnRequest>`, saml-core-2.0-os §3.4.1.
///
/// Children are written in the schema's sequence: Issuer, (ds:Signature), (Extensions),
/// (Subject), NameIDPolicy?, (Conditions), RequestedAuthnContext?, (Scoping) — the ones in
/// parentheses are not modelled.
///
/// ```swift
/// let request = AuthnRequest.make(issuer: "https://sp.example.org/shibboleth",
///     destination: "https://idp.example.org/idp/profile/SAML2/Redirect/SSO",
///     assertionConsumerServiceURL: "https://sp.example.org/Shibboleth.sso/SAML2/POST",
///     clock: SystemClock(), ids: RandomIDGenerator())
/// ```
public struct AuthnRequest: SignableSAMLElement {
    public var id: String
    public var issueInstant: Date
    public var destination: String?
    public var consent: String?
    public var forceAuthn: Bool?
    public var isPassive: Bool?
    public var protocolBinding: String?
    public var assertionConsumerServiceIndex: Int?
    public var assertionConsumerServiceURL: String?
    public var attributeConsumingServiceIndex: Int?
    public var providerName: String?
    public var issuer: Issuer?
    public var nameIDPolicy: NameIDPolicy?
    public var requestedAuthnContext: RequestedAuthnContext?

    public init(id: String, issueInstant: Date, destination: String? = nil, consent: String? = nil,
                forceAuthn: Bool? = nil, isPassive: Bool? = nil, protocolBinding: String? = nil,
                assertionConsumerServiceIndex: Int? = nil, assertionConsumerServiceURL: String? = nil,
                attributeConsumingServiceIndex: Int? = nil, providerName: String? = nil,
                issuer: Issuer? = nil, nameIDPolicy: NameIDPolicy? = nil,
                requestedAuthnContext: RequestedAuthnContext? = nil) {
        self.id = id
        self.issueInstant = issueInstant
        self.destination = destination
        self.consent = consent
        self.forceAuthn = forceAuthn
        self.isPassive = isPassive
        self.protocolBinding = protocolBinding
        self.assertionConsumerServiceIndex = assertionConsumerServiceIndex
        self.assertionConsumerServiceURL = assertionConsumerServiceURL
        self.attributeConsumingServiceIndex = attributeConsumingServiceIndex
        self.providerName = providerName
        self.issuer = issuer
        self.nameIDPolicy = nameIDPolicy
        self.requestedAuthnContext = requestedAuthnContext
    }

    /// A request issued now by `clock` with an ID from `ids`, asking for the response at
    /// `assertionConsumerServiceURL` over `protocolBinding` (HTTP-POST by default; PAOS for
    /// ECP), with a NameIDPolicy that lets the IdP create an identifier.
    public static func make(issuer: String, destination: String?, assertionConsumerServiceURL: String?,
                            protocolBinding: String? = SAMLBindingURI.httpPost,
                            nameIDPolicy: NameIDPolicy? = NameIDPolicy(format: NameIDFormat.transient, allowCreate: true),
                            forceAuthn: Bool? = nil, isPassive: Bool? = nil,
                            requestedAuthnContext: RequestedAuthnContext? = nil,
                            clock: SAMLClock, ids: IDGenerator) -> AuthnRequest {
        AuthnRequest(id: ids.next(), issueInstant: SAMLDateTime.truncated(clock.now()), destination: destination,
                     forceAuthn: forceAuthn, isPassive: isPassive, protocolBinding: protocolBinding,
                     assertionConsumerServiceURL: assertionConsumerServiceURL, issuer: Issuer(issuer),
                     nameIDPolicy: nameIDPolicy, requestedAuthnContext: requestedAuthnContext)
    }

    public init(element: XMLElement) throws {
        let ns = SAMLNamespace.protocol_
        try element.expect("AuthnRequest", ns)
        try element.requireVersion2()
        id = try element.requiredAttribute("ID")
        issueInstant = try element.requiredDateAttribute("IssueInstant")
        destination = element.attribute("Destination")
        consent = element.attribute("Consent")
        forceAuthn = try element.boolAttribute("ForceAuthn")
        isPassive = try element.boolAttribute("IsPassive")
        protocolBinding = element.attribute("ProtocolBinding")
        assertionConsumerServiceIndex = try element.intAttribute("AssertionConsumerServiceIndex")
        assertionConsumerServiceURL = element.attribute("AssertionConsumerServiceURL")
        attributeConsumingServiceIndex = try element.intAttribute("AttributeConsumingServiceIndex")
        providerName = element.attribute("ProviderName")
        issuer = try element.optionalChild("Issuer", SAMLNamespace.assertion).map(Issuer.init(element:))
        nameIDPolicy = try element.optionalChild("NameIDPolicy", ns).map(NameIDPolicy.init(element:))
        requestedAuthnContext = try element.optionalChild("RequestedAuthnContext", ns)
            .map(RequestedAuthnContext.init(element:))
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?) {
        // §3.2.1 RequestAbstractType then §3.4.1 attributes, in schema order.
        writer.open("samlp:AuthnRequest", [
            "xmlns:samlp": declaringNamespaces ? SAMLNamespace.protocol_ : nil,
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "ID": id,
            "Version": "2.0",
            "IssueInstant": SAMLDateTime.string(from: issueInstant),
            "Destination": destination,
            "Consent": consent,
            "ForceAuthn": forceAuthn.map { $0 ? "true" : "false" },
            "IsPassive": isPassive.map { $0 ? "true" : "false" },
            "ProtocolBinding": protocolBinding,
            "AssertionConsumerServiceIndex": assertionConsumerServiceIndex.map(String.init),
            "AssertionConsumerServiceURL": assertionConsumerServiceURL,
            "AttributeConsumingServiceIndex": attributeConsumingServiceIndex.map(String.init),
            "ProviderName": providerName,
        ])
        issuer?.write(to: &writer, declaringNamespaces: false)
        if let signature { writer.raw(signature) }
        nameIDPolicy?.write(to: &writer, declaringNamespaces: false)
        requestedAuthnContext?.write(to: &writer, declaringNamespaces: false)
        writer.close("samlp:AuthnRequest")
    }
}
