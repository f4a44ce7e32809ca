/// The mock OPDS circulation manager's settings, a profile's `circulation_manager:` section.
public struct CirculationManagerSettings: Codable, Sendable {
    /// The library's name in the authentication document.
    public var title: String = "SAMLHarness Public Library"
    /// The library's short name; the real circulation manager carries it in the RelayState
    /// (`library_short_name=…`) because its ACS URL cannot name the library.
    public var libraryShortName: String = "default"
    /// The SP entity ID the circulation manager logs in as; `{base}` is its base URL.
    public var entityID: String = "{base}/SAML/metadata"
    /// Seconds a bearer token (`access_token`) is valid.
    public var tokenLifetime: Double = 3600
    /// Seconds a loan lasts (the `opds:availability` `until`).
    public var loanLifetime: Double = 21 * 86400
    /// Seconds of clock skew allowed when validating a SAML Response.
    public var skew: Double = 180
    /// Whether the authentication document also lists the mock AD FS as a second IdP.
    public var listADFS: Bool = true

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, libraryShortName = "library_short_name", entityID = "entity_id", tokenLifetime = "token_lifetime"
        case loanLifetime = "loan_lifetime", skew, listADFS = "list_adfs"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        title = try c.value(.title, or: title)
        libraryShortName = try c.value(.libraryShortName, or: libraryShortName)
        entityID = try c.value(.entityID, or: entityID)
        tokenLifetime = try c.value(.tokenLifetime, or: tokenLifetime)
        loanLifetime = try c.value(.loanLifetime, or: loanLifetime)
        skew = try c.value(.skew, or: skew)
        listADFS = try c.value(.listADFS, or: listADFS)
    }

    func validate() throws(SettingsError) {
        guard (0...86400).contains(tokenLifetime) else { throw SettingsError("circulation_manager.token_lifetime", "must be 0…86400 seconds") }
        guard (1...(366 * 86400)).contains(loanLifetime) else {
            throw SettingsError("circulation_manager.loan_lifetime", "must be 1…31622400 seconds")
        }
        guard (0...3600).contains(skew) else { throw SettingsError("circulation_manager.skew", "must be 0…3600 seconds") }
        guard !libraryShortName.isEmpty, libraryShortName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw SettingsError("circulation_manager.library_short_name", "must be letters, digits, - or _")
        }
    }
}
