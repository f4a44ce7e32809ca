import Foundation
import SAMLCore

/// A profile with everything it names read and checked: keys, certificates, templates,
/// knobs and SP metadata. Built once; the mocks read it on every request (the control API
/// swaps in another one at run time).
public struct LoadedProfile: Sendable {
    public var profile: IdPProfile
    public var knobs: [Knob]
    public let idpKey: PrivateKey
    public let idpCertificate: Certificate
    public let spKey: PrivateKey
    public let spCertificate: Certificate
    /// A key and certificate that are not the IdP's (for `wrong-signing-key` and
    /// `encrypt-wrong-key`).
    public let otherKey: PrivateKey
    public let otherCertificate: Certificate
    /// The IdP's own key under a certificate that expired long ago (`expired-certificate`):
    /// valid through the year 2000, so its bytes never depend on when the profile was loaded.
    public let expiredIdPCertificate: Certificate
    public let templates: PageTemplates
    /// SPs the IdP trusts, from the profile's `sp_metadata` (and `serve --sp-metadata`).
    public var spMetadata: [EntityDescriptor]
    /// The mock SP's personality and the rules it judges Responses by: the profile's
    /// `sp.personality` and `sp.settings`, then whatever a scenario or `serve` sets over them
    /// (``useSP(personality:settings:mockIdP:)``).
    public private(set) var spPersonality: String
    public private(set) var spRules: SPRules {
        didSet { spSettingsChanged = spRules.differences(from: SPRules()) }
    }
    /// ``spRules``' settings that differ from Shibboleth SP 3's stock ones, as `NAME=VALUE`:
    /// worked out once, named on every ACS answer and in the ready line.
    public private(set) var spSettingsChanged: [String] = []

    public var name: String { profile.name }

    /// Switches the mock SP to `personality` (nil: keep the current one), then applies
    /// `settings` (`NAME=VALUE`) over it. `mockIdP` is where `sp/<name>.yaml` is read.
    public mutating func useSP(personality: String?, settings: [String], mockIdP: URL) throws {
        var rules = spRules
        if let personality {
            rules = try Self.spRules(personality, over: profile, mockIdP: mockIdP, file: profile.name)
        }
        for assignment in settings {
            do { try rules.apply(assignment) } catch let error as SPRules.SettingError {
                throw ConfigurationError(file: "SP settings", line: nil, message: error.description)
            }
        }
        if let personality { spPersonality = personality }
        spRules = rules
    }

    /// The rules of SP personality `name` (`mockIdP/sp/<name>.yaml`; without a MockIdP/
    /// directory only the default, Shibboleth's stock rules), with `profile`'s own
    /// `sp.settings` over them.
    static func spRules(_ name: String, over profile: IdPProfile, mockIdP: URL?, file: String) throws -> SPRules {
        var rules = SPRules()
        if let mockIdP, FileManager.default.fileExists(atPath: mockIdP.appendingPathComponent(SPPersonality.folder).path) {
            rules = try SPPersonality.load(named: name, from: mockIdP).rules
        } else if name != SPPersonality.defaultName {
            throw ConfigurationError(file: file, line: nil, message: "`sp.personality`: `\(name)` cannot be read: the profile has no MockIdP/ directory beside it")
        }
        for (setting, value) in profile.sp.settings.sorted(by: { $0.key < $1.key }) {
            do { try rules.set(setting, value.text) } catch let error as SPRules.SettingError {
                throw ConfigurationError(file: file, line: nil, message: "`sp.settings.\(setting)`: \(error.description)")
            }
        }
        return rules
    }

    public func has(_ predicate: (Knob) -> Bool) -> Bool { knobs.contains(where: predicate) }

    /// Loads `MockIdP/<name>/profile.yaml`.
    public static func load(named name: String, from mockIdP: URL) throws -> LoadedProfile {
        guard !name.contains("/"), !name.contains(".."), !name.isEmpty else {
            throw ConfigurationError(file: name, line: nil, message: "a profile name is a folder name under MockIdP/, without slashes")
        }
        let directory = mockIdP.appendingPathComponent(name)
        let file = directory.appendingPathComponent("profile.yaml")
        guard FileManager.default.fileExists(atPath: file.path) else {
            let known = MockIdPDirectory.profileNames(in: mockIdP)
            throw ConfigurationError(file: file.path, line: nil,
                                     message: "no profile `\(name)`; known profiles: \(known.joined(separator: ", "))")
        }
        return try load(file: file)
    }

    /// Loads a profile file; paths inside it are relative to its directory.
    public static func load(file: URL) throws -> LoadedProfile {
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw ConfigurationError(file: file.path, line: nil, message: "cannot read: \(error.localizedDescription)")
        }
        var profile = try YAMLLoading.decode(IdPProfile.self, from: text, file: file.path)
        profile.directory = file.deletingLastPathComponent()
        if profile.users.isEmpty {
            // The shared test users, MockIdP/users.yaml, for profiles that list none.
            let shared = file.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("users.yaml")
            if let usersText = try? String(contentsOf: shared, encoding: .utf8) {
                profile.users = try YAMLLoading.decode(SharedUsers.self, from: usersText, file: shared.path).users
            }
        }
        return try LoadedProfile(profile: profile, file: file.path)
    }

    /// Checks and loads what `profile` names. `file` is used in error messages.
    public init(profile: IdPProfile, file: String = "profile") throws {
        let directory = profile.directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        func url(_ path: String) -> URL {
            path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
        }
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: nil, message: "`\(key)`: \(message)")
        }
        func key(_ path: String, _ name: String) throws -> PrivateKey {
            do { return try PrivateKey(contentsOf: url(path)) } catch { throw fail(name, "\(error)") }
        }
        func certificate(_ path: String, _ name: String) throws -> Certificate {
            do { return try Certificate(contentsOf: url(path)) } catch { throw fail(name, "\(error)") }
        }
        guard SignedResponseFactory.SigningMode(rawValue: profile.idp.sign) != nil else {
            throw fail("idp.sign", "`\(profile.idp.sign)` is not one of response, assertion, both, none")
        }
        guard Self.signatureAlgorithm(profile.idp.signatureAlgorithm) != nil else {
            throw fail("idp.signature_algorithm", "`\(profile.idp.signatureAlgorithm)` is not one of rsa-sha256, rsa-sha512, rsa-sha1")
        }
        guard Self.dataEncryption(profile.idp.dataEncryption) != nil else {
            throw fail("idp.data_encryption", "`\(profile.idp.dataEncryption)` is not one of aes128-cbc, aes256-cbc, aes128-gcm, aes256-gcm")
        }
        guard profile.idp.lockoutAfter >= 1 else { throw fail("idp.lockout_after", "must be at least 1") }
        guard (1...86400).contains(profile.idp.assertionLifetime) else { throw fail("idp.assertion_lifetime", "must be 1…86400 seconds") }
        do {
            try profile.cas.validate()
            try profile.adfs.validate()
            try profile.circulationManager.validate()
        } catch {
            throw fail(error.key, error.message)
        }
        guard !profile.users.isEmpty else { throw fail("users", "a profile needs at least one user") }
        var seen = Set<String>()
        for user in profile.users where !seen.insert(user.username).inserted {
            throw fail("users", "the username `\(user.username)` appears twice")
        }
        self.profile = profile
        do {
            self.knobs = try profile.parsedKnobs()
        } catch let error as Knob.ParseError {
            throw fail("knobs", error.description)
        }
        self.idpKey = try key(profile.idp.key, "idp.key")
        self.idpCertificate = try certificate(profile.idp.certificate, "idp.certificate")
        self.spKey = try key(profile.sp.key, "sp.key")
        self.spCertificate = try certificate(profile.sp.certificate, "sp.certificate")
        self.otherKey = try key("../keys/attacker-key.pem", "attacker key (MockIdP/keys/attacker-key.pem)")
        self.otherCertificate = try certificate("../keys/attacker-cert.pem", "attacker certificate (MockIdP/keys/attacker-cert.pem)")
        self.expiredIdPCertificate = try KeyGenerator.selfSignedCertificate(
            for: idpKey, commonName: "expired.idp.example.org",
            notBefore: Self.expiredCertificateNotBefore, days: 366)
        self.templates = try PageTemplates.load(profile.templates, directory: profile.directory)
        var metadata: [EntityDescriptor] = []
        for path in profile.idp.spMetadata {
            metadata += try Self.readMetadata(url(path))
        }
        self.spMetadata = metadata
        // The SP personality: MockIdP/sp/<name>.yaml beside the profile's folder.
        let personality = profile.sp.personality ?? SPPersonality.defaultName
        self.spPersonality = personality
        self.spRules = try Self.spRules(personality, over: profile, mockIdP: profile.directory?.deletingLastPathComponent(), file: file)
        self.spSettingsChanged = spRules.differences(from: SPRules())
    }

    /// 2000-01-01T00:00:00Z: a fixed start (not the load time), so the expired certificate —
    /// and every metadata document and signature carrying it — is the same on every run.
    static let expiredCertificateNotBefore = Date(timeIntervalSince1970: 946_684_800)

    /// Reads SP metadata: an EntityDescriptor or an EntitiesDescriptor.
    public static func readMetadata(_ url: URL) throws -> [EntityDescriptor] {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: url))
        } catch {
            throw ConfigurationError(file: url.path, line: nil, message: "cannot read the metadata: \(error.localizedDescription)")
        }
        return try parseMetadata(bytes, source: url.path)
    }

    public static func parseMetadata(_ bytes: [UInt8], source: String) throws -> [EntityDescriptor] {
        do {
            let document = try XMLDocument(parsing: bytes)
            let root = document.root
            if root.is("EntitiesDescriptor", SAMLNamespace.metadata) {
                return try EntitiesDescriptor(element: root).entities
            }
            return [try EntityDescriptor(element: root)]
        } catch let error as XMLError {
            throw ConfigurationError(file: source, line: error.line, message: "not readable SAML metadata: \(error)")
        } catch {
            throw ConfigurationError(file: source, line: nil, message: "not readable SAML metadata: \(error)")
        }
    }

    /// `MockIdP/users.yaml`.
    struct SharedUsers: Decodable {
        var users: [TestUser]
    }

    static func signatureAlgorithm(_ name: String) -> SignatureAlgorithm? {
        switch name {
        case "rsa-sha256": .rsaSha256
        case "rsa-sha512": .rsaSha512
        case "rsa-sha1": .rsaSha1
        default: nil
        }
    }

    static func dataEncryption(_ name: String) -> DataEncryptionAlgorithm? {
        switch name {
        case "aes128-cbc": .aes128CBC
        case "aes256-cbc": .aes256CBC
        case "aes128-gcm": .aes128GCM
        case "aes256-gcm": .aes256GCM
        default: nil
        }
    }
}
