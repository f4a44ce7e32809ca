/// The mock OPDS circulation manager's settings, a profile's `circulation_manager:` section.
public struct CirculationManagerSettings: Codable, Sendable {
    /// The library's name in the authentication document.
    public var title: String = "SAMLHarness Public Library"
    /// The SP entity ID the circulation manager logs in as; `{base}` is its base URL.
    public var entityID: String = "{base}/SAML/metadata"
    /// Seconds a bearer token (`access_token`) is valid.
    public var tokenLifetime: Double = 3600

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, entityID = "entity_id", tokenLifetime = "token_lifetime"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        title = try c.value(.title, or: title)
        entityID = try c.value(.entityID, or: entityID)
        tokenLifetime = try c.value(.tokenLifetime, or: tokenLifetime)
    }

    func validate() throws(SettingsError) {
        guard (0...86400).contains(tokenLifetime) else { throw SettingsError("circulation_manager.token_lifetime", "must be 0…86400 seconds") }
    }
}
