import Foundation

/// What the attack generators start from: the IdP's signing key (the one the SP trusts), an
/// attacker's key, the SP's coordinates, and the identities involved. Every Response is built
/// by ``SignedResponseFactory`` (the IdP builder), so a generated attack differs from a valid
/// login only in what the attack changes.
public struct AttackMaterial: Sendable {
    public var idpEntityID: String
    public var spEntityID: String
    /// The ACS URL the Responses are posted to (Destination and Recipient).
    public var acsURL: String
    /// The AuthnRequest ID the Responses answer; nil for unsolicited (IdP-initiated) SSO.
    public var requestID: String?
    /// The attacker's own account: what the IdP genuinely signs.
    public var nameID: String
    /// Whom the attacker wants to become.
    public var victimNameID: String
    /// The IdP's key and certificate (trusted by the SP).
    public var signer: XMLSigner
    /// A key the SP does not trust, with its self-signed certificate.
    public var attackerSigner: XMLSigner
    public var clock: SAMLClock
    /// IDs of every generated element: each Response gets fresh ones (an SP with a replay
    /// cache must see each attack as new).
    public var ids: IDGenerator
    /// Released with every assertion (some SPs, python3-saml among them, refuse an assertion
    /// without an AttributeStatement). Default: `mail` = the attacker's NameID.
    public var attributes: [Attribute]

    public init(idpEntityID: String, spEntityID: String, acsURL: String, requestID: String? = nil,
                nameID: String = "alice@example.org", victimNameID: String = "admin@example.org",
                signer: XMLSigner, attackerSigner: XMLSigner, clock: SAMLClock = SystemClock(),
                ids: IDGenerator = RandomIDGenerator(), attributes: [Attribute]? = nil) {
        self.idpEntityID = idpEntityID
        self.spEntityID = spEntityID
        self.acsURL = acsURL
        self.requestID = requestID
        self.nameID = nameID
        self.victimNameID = victimNameID
        self.signer = signer
        self.attackerSigner = attackerSigner
        self.clock = clock
        self.ids = ids
        self.attributes = attributes ?? [
            Attribute(name: "urn:oid:0.9.2342.19200300.100.1.3", friendlyName: "mail", strings: [nameID]),
        ]
    }

    /// A valid Response for the attacker's own login, signed as `signing` says: the baseline
    /// every SP must accept.
    public func validResponse(_ signing: SignedResponseFactory.SigningMode = .both) throws -> String {
        try response(signing)
    }

    /// A Response built by the IdP builder, optionally changed before it is signed (so the
    /// signatures are genuine over the changed content).
    ///
    /// - Parameters:
    ///   - signing: what gets signed.
    ///   - nameID: the subject (default: the attacker's account).
    ///   - signer: the key that signs (default: the IdP's).
    ///   - audience: the AudienceRestriction (default: the SP).
    ///   - inResponseTo: default: ``requestID``.
    ///   - clock: when the Response is issued (default: ``clock``).
    ///   - edit: applied to the unsigned XML text.
    public func response(_ signing: SignedResponseFactory.SigningMode = .both, nameID: String? = nil,
                         signer: XMLSigner? = nil, audience: String? = nil, inResponseTo: String?? = nil,
                         clock: SAMLClock? = nil, edit: ((String) -> String)? = nil) throws -> String {
        let login = SignedResponseFactory.Login(
            nameID: NameID(nameID ?? self.nameID, format: NameIDFormat.emailAddress),
            spEntityID: audience ?? spEntityID, acsURL: acsURL,
            inResponseTo: inResponseTo ?? requestID, attributes: attributes)
        let factory = SignedResponseFactory(idpEntityID: idpEntityID, signer: signer ?? self.signer, signingMode: .none)
        var xml = try factory.response(for: login, clock: clock ?? self.clock, ids: ids)
        if let edit { xml = edit(xml) }
        let document = try XMLDocument(parsing: xml)
        let root = document.root
        var toSign: [String] = []
        if signing == .assertion || signing == .both,
           let id = root.firstChild("Assertion", SAMLNamespace.assertion)?.attribute("ID") {
            toSign.append(id)
        }
        if signing == .response || signing == .both, let id = root.attribute("ID") {
            toSign.append(id)
        }
        // saml-core-2.0-os §5.4: the Assertion is signed before the Response that contains it.
        return try (signer ?? self.signer).sign(xml: xml, elementIDs: toSign)
    }
}
