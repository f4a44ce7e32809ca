/// The PAOS request envelope an SP sends an ECP client (SAML 2.0 profiles §4.2.4.2,
/// saml-ecp-v2.0-cs01 §2.3.2): header blocks `paos:Request` (where the client must post the
/// IdP's response), `ecp:Request` (the SP's Issuer, IsPassive, ProviderName) and optionally
/// `ecp:RelayState`; the body is the `samlp:AuthnRequest`, embedded byte for byte.
///
/// ```swift
/// let request = PAOSRequest(responseConsumerURL: "https://sp.example.org/Shibboleth.sso/SAML2/ECP",
///                           issuer: "https://sp.example.org/shibboleth",
///                           authnRequest: authnRequestXML)
/// let envelope = request.envelope()
/// let parsed = try PAOSRequest.parse(Array(envelope.utf8))
/// ```
public struct PAOSRequest: Sendable, Equatable {
    /// `paos:Request responseConsumerURL`: where the client posts the IdP's Response.
    public var responseConsumerURL: String
    /// `paos:Request messageID`, if any (the client echoes it as `refToMessageID`).
    public var messageID: String?
    /// `ecp:Request/saml:Issuer`: the SP's entity ID.
    public var issuer: String
    /// `ecp:Request IsPassive`.
    public var isPassive: Bool
    /// `ecp:Request ProviderName`, if any.
    public var providerName: String?
    /// `ecp:RelayState`, if any.
    public var relayState: String?
    /// The AuthnRequest: serialized XML text when building, the body's bytes when parsed.
    public var authnRequest: String

    public init(responseConsumerURL: String, messageID: String? = nil, issuer: String,
                isPassive: Bool = false, providerName: String? = nil, relayState: String? = nil,
                authnRequest: String) {
        self.responseConsumerURL = responseConsumerURL
        self.messageID = messageID
        self.issuer = issuer
        self.isPassive = isPassive
        self.providerName = providerName
        self.relayState = relayState
        self.authnRequest = authnRequest
    }

    /// `service` of `paos:Request`: the ECP profile URN.
    public static let service = SAMLNamespace.ecp

    /// The SOAP envelope. Every header block carries `SOAP-ENV:mustUnderstand="1"` and
    /// `SOAP-ENV:actor` = the next node (SAML 2.0 profiles §4.2.4.2).
    public func envelope() -> String {
        let p = SOAPBinding.prefix
        var paos = XMLWriter()
        paos.empty("paos:Request", [
            "xmlns:paos": SAMLNamespace.paos,
            "\(p):mustUnderstand": "1",
            "\(p):actor": SOAPBinding.nextActor,
            "responseConsumerURL": responseConsumerURL,
            "service": Self.service,
            "messageID": messageID,
        ])
        var ecp = XMLWriter()
        ecp.open("ecp:Request", [
            "xmlns:ecp": SAMLNamespace.ecp,
            "\(p):mustUnderstand": "1",
            "\(p):actor": SOAPBinding.nextActor,
            "IsPassive": isPassive ? "true" : "false",
            "ProviderName": providerName,
        ])
        ecp.element("saml:Issuer", ["xmlns:saml": SAMLNamespace.assertion], text: issuer)
        ecp.close("ecp:Request")
        var blocks = [paos.output, ecp.output]
        if let relayState {
            var relay = XMLWriter()
            relay.element("ecp:RelayState", [
                "xmlns:ecp": SAMLNamespace.ecp,
                "\(p):mustUnderstand": "1",
                "\(p):actor": SOAPBinding.nextActor,
            ], text: relayState)
            blocks.append(relay.output)
        }
        return SOAPBinding.envelope(body: authnRequest, headerBlocks: blocks)
    }

    /// Parses a PAOS request envelope, checking what the profile requires of it.
    public static func parse(_ bytes: [UInt8], limits: XMLParsingLimits = .default) throws -> PAOSRequest {
        let envelope = try SOAPBinding.parse(bytes, limits: limits)
        guard let paos = envelope.headerBlock("Request", SAMLNamespace.paos) else {
            throw BindingError(.invalidEnvelope, "no paos:Request header block ({\(SAMLNamespace.paos)}Request)")
        }
        try requireNextActor(paos, "paos:Request")
        guard let rcu = paos.attributes["responseConsumerURL"], !rcu.isEmpty else {
            throw BindingError(.invalidEnvelope, "paos:Request has no responseConsumerURL")
        }
        guard paos.attributes["service"] == service else {
            throw BindingError(.invalidEnvelope,
                               "paos:Request service is \(paos.attributes["service"].map { "`\($0)`" } ?? "missing"); expected `\(service)`")
        }
        guard let ecp = envelope.headerBlock("Request", SAMLNamespace.ecp) else {
            throw BindingError(.invalidEnvelope, "no ecp:Request header block ({\(SAMLNamespace.ecp)}Request)")
        }
        try requireNextActor(ecp, "ecp:Request")
        let ecpDoc = try XMLDocument(parsing: ecp.xml)
        guard let issuer = ecpDoc.root.firstChild("Issuer", SAMLNamespace.assertion) else {
            throw BindingError(.invalidEnvelope, "ecp:Request has no saml:Issuer")
        }
        let relay = envelope.headerBlock("RelayState", SAMLNamespace.ecp)
        let relayText = try relay.map { try XMLDocument(parsing: $0.xml).root.text }
        guard envelope.bodyName == "AuthnRequest", envelope.bodyNamespace == SAMLNamespace.protocol_ else {
            throw BindingError(.invalidEnvelope,
                               "the body holds {\(envelope.bodyNamespace ?? "")}\(envelope.bodyName), not a samlp:AuthnRequest")
        }
        let passive = ecp.attributes["IsPassive"]
        return PAOSRequest(responseConsumerURL: rcu, messageID: paos.attributes["messageID"],
                           issuer: issuer.text.trimmed, isPassive: passive == "true" || passive == "1",
                           providerName: ecp.attributes["ProviderName"], relayState: relayText,
                           authnRequest: String(decoding: envelope.body, as: UTF8.self))
    }

    /// SAML 2.0 profiles §4.2.4.2: each ECP header block is `mustUnderstand="1"` and
    /// addressed to the next actor.
    static func requireNextActor(_ block: SOAPEnvelope.HeaderBlock, _ name: String) throws {
        guard block.isMustUnderstand else {
            throw BindingError(.invalidEnvelope, "\(name) lacks SOAP-ENV:mustUnderstand=\"1\"")
        }
        guard block.actor == SOAPBinding.nextActor else {
            throw BindingError(.invalidEnvelope,
                               "\(name) SOAP-ENV:actor is \(block.actor.map { "`\($0)`" } ?? "missing"); expected `\(SOAPBinding.nextActor)`")
        }
    }
}
