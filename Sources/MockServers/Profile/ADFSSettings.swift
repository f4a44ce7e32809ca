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

        enum CodingKeys: String, CodingKey, CaseIterable {
            case identifier, name, acs, attributes
        }

        public init(identifier: String, name: String, acs: String, attributes: [String: [String]] = [:]) {
            self.identifier = identifier
            self.name = name
            self.acs = acs
            self.attributes = attributes
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try c.decode(String.self, forKey: .identifier)
            name = try c.decodeIfPresent(String.self, forKey: .name) ?? identifier
            acs = try c.decode(String.self, forKey: .acs)
            attributes = try c.decodeIfPresent([String: [String]].self, forKey: .attributes) ?? [:]
        }
    }

    /// The federation service identifier; `{base}` is the AD FS listener's base URL. Real
    /// farms use `http://<federation service name>/adfs/services/trust`, http even behind TLS.
    public var entityID: String = "{base}/adfs/services/trust"
    /// Seconds an issued token is valid (`Lifetime`, `NotOnOrAfter`).
    public var tokenLifetime: Int = 3600
    /// Relying parties besides the mock SP (which is always one).
    public var relyingParties: [RelyingParty] = []

    enum CodingKeys: String, CodingKey, CaseIterable {
        case entityID = "entity_id", tokenLifetime = "token_lifetime", relyingParties = "relying_parties"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        entityID = try c.value(.entityID, or: entityID)
        tokenLifetime = try c.value(.tokenLifetime, or: tokenLifetime)
        relyingParties = try c.value(.relyingParties, or: relyingParties)
    }

    func validate() throws(SettingsError) {
        guard (1...86400).contains(tokenLifetime) else { throw SettingsError("adfs.token_lifetime", "must be 1…86400 seconds") }
    }
}
