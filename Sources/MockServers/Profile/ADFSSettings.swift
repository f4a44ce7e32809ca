/// The mock AD FS's settings, a profile's `adfs:` section.
public struct ADFSSettings: Codable, Sendable {
    /// A relying party trust: who may get tokens, where the passive flow posts them.
    public struct RelyingParty: Codable, Sendable, Equatable {
        /// The RP identifier (`AppliesTo` in WS-Trust, the audience, `loginToRp=`).
        public var identifier: String
        public var name: String
        /// Where the passive flow posts the SAMLResponse.
        public var acs: String
        /// Extra attributes (name → values) issued to this RP on top of the user's.
        public var attributes: [String: [String]]
        /// The user attributes (by the name in `users:`) this RP gets, as an issuance rule
        /// that passes only some claims through; nil: all of them.
        public var releasedAttributes: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case identifier, name, acs, attributes
            case releasedAttributes = "released_attributes"
        }

        public init(identifier: String, name: String, acs: String, attributes: [String: [String]] = [:],
                    releasedAttributes: [String]? = nil) {
            self.identifier = identifier
            self.name = name
            self.acs = acs
            self.attributes = attributes
            self.releasedAttributes = releasedAttributes
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try c.decode(String.self, forKey: .identifier)
            name = try c.decodeIfPresent(String.self, forKey: .name) ?? identifier
            acs = try c.decode(String.self, forKey: .acs)
            attributes = try c.decodeIfPresent([String: [String]].self, forKey: .attributes) ?? [:]
            releasedAttributes = try c.decodeIfPresent([String].self, forKey: .releasedAttributes)
        }
    }

    /// The federation service identifier; `{base}` is the AD FS listener's base URL. Real
    /// farms use `http://<federation service name>/adfs/services/trust`, http even behind TLS.
    public var entityID: String = "{base}/adfs/services/trust"
    /// Seconds an issued token is valid (`Lifetime`, `NotOnOrAfter`).
    public var tokenLifetime: Int = 3600
    /// Relying parties besides the mock SP (which is always one).
    public var relyingParties: [RelyingParty] = []
    /// Seconds of clock skew allowed on the request's `wsu:Timestamp` (WCF's
    /// `MaxClockSkew`, 5 minutes by default).
    public var timestampSkew: Int = 300
    /// The text of the forms sign-in page's error after a wrong password (AD FS 2012 R2 and later).
    public var badPasswordMessage: String = "Incorrect user ID or password. Type the correct user ID and password, and try again."

    enum CodingKeys: String, CodingKey, CaseIterable {
        case entityID = "entity_id", tokenLifetime = "token_lifetime", relyingParties = "relying_parties"
        case timestampSkew = "timestamp_skew", badPasswordMessage = "bad_password_message"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        entityID = try c.value(.entityID, or: entityID)
        tokenLifetime = try c.value(.tokenLifetime, or: tokenLifetime)
        relyingParties = try c.value(.relyingParties, or: relyingParties)
        timestampSkew = try c.value(.timestampSkew, or: timestampSkew)
        badPasswordMessage = try c.value(.badPasswordMessage, or: badPasswordMessage)
    }

    func validate() throws(SettingsError) {
        guard (1...86400).contains(tokenLifetime) else { throw SettingsError("adfs.token_lifetime", "must be 1…86400 seconds") }
        guard (0...86400).contains(timestampSkew) else { throw SettingsError("adfs.timestamp_skew", "must be 0…86400 seconds") }
        var seen = Set<String>()
        for rp in relyingParties {
            guard !rp.identifier.isEmpty else { throw SettingsError("adfs.relying_parties", "an identifier is empty") }
            guard seen.insert(rp.identifier).inserted else {
                throw SettingsError("adfs.relying_parties", "the identifier `\(rp.identifier)` appears twice")
            }
            guard rp.acs.hasPrefix("http://") || rp.acs.hasPrefix("https://") else {
                throw SettingsError("adfs.relying_parties", "the acs of `\(rp.identifier)` is not an http(s) URL: \(rp.acs)")
            }
        }
    }
}
