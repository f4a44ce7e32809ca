import Foundation

/// An IdP personality, read from `MockIdP/<name>/profile.yaml`: who the IdP is, how it logs
/// users in, what it signs and encrypts, which SPs it knows, its users, its page templates,
/// and the knobs switched on by default. The same file configures the mock SP that stands
/// beside it (`sp:`).
public struct IdPProfile: Codable, Sendable {
    /// Which real product the pages, paths and cookies imitate.
    public enum Personality: String, Codable, Sendable, CaseIterable {
        case shibboleth, simplesamlphp, generic
    }

    public enum LoginMode: String, Codable, Sendable, CaseIterable {
        /// An HTML form with a login ticket, a flow cookie and a CSRF token.
        case form
        /// An HTTP Basic challenge on the SSO endpoint.
        case basic
    }

    /// What the IdP does with a wrong password.
    public enum BadPasswordBehaviour: String, Codable, Sendable, CaseIterable {
        /// Challenge again, forever (what makes naive clients spin).
        case rechallenge
        /// Lock the account after `lockout_after` failures and answer an error page.
        case lockout
        /// 200 with the form again and an error message.
        case formError = "form-error"
    }

    public struct IdPSettings: Codable, Sendable {
        /// `{base}` is replaced by the IdP's base URL.
        public var entityID: String = "{base}/idp/shibboleth"
        public var login: LoginMode = .form
        public var consent: Bool = false
        public var secondFactor: Bool = false
        public var sessionReuse: Bool = true
        public var badPassword: BadPasswordBehaviour = .rechallenge
        public var lockoutAfter: Int = 5
        public var realm: String = "Shibboleth IdP"
        /// response | assertion | both | none
        public var sign: String = "response"
        /// rsa-sha256 | rsa-sha512 | rsa-sha1
        public var signatureAlgorithm: String = "rsa-sha256"
        /// Relative to the profile's directory.
        public var key: String = "../keys/idp-key.pem"
        public var certificate: String = "../keys/idp-cert.pem"
        /// Encrypt assertions to SPs whose metadata has an encryption key.
        public var encrypt: Bool = false
        /// aes128-cbc | aes256-cbc | aes128-gcm | aes256-gcm
        public var dataEncryption: String = "aes256-gcm"
        public var assertionLifetime: Int = 300
        public var nameIDFormat: String = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
        /// SP metadata files (relative to the profile's directory) the IdP trusts.
        public var spMetadata: [String] = []

        enum CodingKeys: String, CodingKey, CaseIterable {
            case entityID = "entity_id", login, consent, secondFactor = "second_factor", sessionReuse = "session_reuse"
            case badPassword = "bad_password", lockoutAfter = "lockout_after", realm, sign
            case signatureAlgorithm = "signature_algorithm", key, certificate, encrypt
            case dataEncryption = "data_encryption", assertionLifetime = "assertion_lifetime"
            case nameIDFormat = "name_id_format", spMetadata = "sp_metadata"
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init()
            entityID = try c.value(.entityID, or: entityID)
            login = try c.value(.login, or: login)
            consent = try c.value(.consent, or: consent)
            secondFactor = try c.value(.secondFactor, or: secondFactor)
            sessionReuse = try c.value(.sessionReuse, or: sessionReuse)
            badPassword = try c.value(.badPassword, or: badPassword)
            lockoutAfter = try c.value(.lockoutAfter, or: lockoutAfter)
            realm = try c.value(.realm, or: realm)
            sign = try c.value(.sign, or: sign)
            signatureAlgorithm = try c.value(.signatureAlgorithm, or: signatureAlgorithm)
            key = try c.value(.key, or: key)
            certificate = try c.value(.certificate, or: certificate)
            encrypt = try c.value(.encrypt, or: encrypt)
            dataEncryption = try c.value(.dataEncryption, or: dataEncryption)
            assertionLifetime = try c.value(.assertionLifetime, or: assertionLifetime)
            nameIDFormat = try c.value(.nameIDFormat, or: nameIDFormat)
            spMetadata = try c.value(.spMetadata, or: spMetadata)
        }
    }

    public struct SPSettings: Codable, Sendable {
        public var entityID: String = "{base}/shibboleth"
        /// Published in the SP's metadata (`WantAssertionsSigned`); enforced only by the
        /// `requireSignedAssertions` setting, as in Shibboleth SP.
        public var wantAssertionsSigned: Bool = false
        /// How the mock SP judges Responses: an SP personality of `MockIdP/sp/` (default
        /// `shibboleth`, Shibboleth SP 3's stock configuration).
        public var personality: String?
        /// Settings over the personality's, by their real names (``SPRules/settings``).
        public var settings: [String: SettingValue] = [:]
        public var key: String = "../keys/sp-key.pem"
        public var certificate: String = "../keys/sp-cert.pem"

        enum CodingKeys: String, CodingKey, CaseIterable {
            case entityID = "entity_id", wantAssertionsSigned = "want_assertions_signed"
            case personality, settings, key, certificate
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init()
            entityID = try c.value(.entityID, or: entityID)
            wantAssertionsSigned = try c.value(.wantAssertionsSigned, or: wantAssertionsSigned)
            personality = try c.decodeIfPresent(String.self, forKey: .personality)
            settings = try c.value(.settings, or: settings)
            key = try c.value(.key, or: key)
            certificate = try c.value(.certificate, or: certificate)
        }
    }

    public struct Templates: Codable, Sendable {
        public var login: String?
        public var consent: String?
        public var error: String?
        public var secondFactor: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case login, consent, error, secondFactor = "second_factor"
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init()
            login = try c.value(.login, or: login)
            consent = try c.value(.consent, or: consent)
            error = try c.value(.error, or: error)
            secondFactor = try c.value(.secondFactor, or: secondFactor)
        }
    }

    public var name: String
    public var description: String
    public var personality: Personality
    public var idp: IdPSettings
    public var sp: SPSettings
    public var templates: Templates
    public var cas: CASSettings
    public var adfs: ADFSSettings
    public var circulationManager: CirculationManagerSettings
    public var users: [TestUser]
    public var knobs: [String]
    /// The directory the profile was read from (not in the YAML).
    public var directory: URL?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, personality, idp, sp, templates, cas, adfs
        case circulationManager = "circulation_manager"
        case users, knobs
    }

    public init(name: String, description: String = "", personality: Personality = .generic,
                idp: IdPSettings = .init(), sp: SPSettings = .init(), templates: Templates = .init(),
                cas: CASSettings = .init(), adfs: ADFSSettings = .init(),
                circulationManager: CirculationManagerSettings = .init(),
                users: [TestUser] = [], knobs: [String] = [], directory: URL? = nil) {
        self.name = name
        self.description = description
        self.personality = personality
        self.idp = idp
        self.sp = sp
        self.templates = templates
        self.cas = cas
        self.adfs = adfs
        self.circulationManager = circulationManager
        self.users = users
        self.knobs = knobs
        self.directory = directory
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        personality = try c.decodeIfPresent(Personality.self, forKey: .personality) ?? .generic
        idp = try c.decodeIfPresent(IdPSettings.self, forKey: .idp) ?? .init()
        sp = try c.decodeIfPresent(SPSettings.self, forKey: .sp) ?? .init()
        templates = try c.decodeIfPresent(Templates.self, forKey: .templates) ?? .init()
        cas = try c.decodeIfPresent(CASSettings.self, forKey: .cas) ?? .init()
        adfs = try c.decodeIfPresent(ADFSSettings.self, forKey: .adfs) ?? .init()
        circulationManager = try c.decodeIfPresent(CirculationManagerSettings.self, forKey: .circulationManager) ?? .init()
        users = try c.decodeIfPresent([TestUser].self, forKey: .users) ?? []
        knobs = try c.decodeIfPresent([String].self, forKey: .knobs) ?? []
        directory = nil
    }

    /// The knobs, parsed.
    public func parsedKnobs() throws -> [Knob] { try knobs.map(Knob.init(parsing:)) }

    public func user(named username: String) -> TestUser? { users.first { $0.username == username } }
}
