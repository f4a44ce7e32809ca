import Foundation
import SAMLCore

/// How the mock SP judges a Response: the settings of a real SP, each under the name the real
/// product gives it, so a user reproduces *their* SP's configuration (issue 19). The default
/// values are Shibboleth SP 3's stock ones (Debian's libapache2-mod-shib 3.4.1: the packaged
/// `security-policy.xml`, a generated `shibboleth2.xml`, Apache 2.4.62), checked against a
/// real Shibboleth SP by `scripts/sp-oracle.py` (docs/sp-personalities.md).
///
/// A few rules exist in no Shibboleth setting; they are the harness's own, named for what they
/// refuse and off in the `shibboleth` personality (``Setting/owner`` says whose rule it is).
public struct SPRules: Sendable, Equatable {
    /// `<ExcludedAlgorithms>` of security-policy.xml, beyond Shibboleth's built-in exclusions
    /// (MD5, RSA 1.5 key transport): signature or digest algorithm URIs the SP refuses.
    public var excludedAlgorithms: [String] = []
    /// The Bearer `<PolicyRule>`'s `checkCorrelation`: a solicited Response's bearer
    /// SubjectConfirmationData InResponseTo must be the ID of the request the SP sent.
    public var checkCorrelation = false
    /// The Bearer `<PolicyRule>`'s `blockUnsolicited`: a Response answering no request (no
    /// InResponseTo) is refused — IdP-initiated logins included.
    public var blockUnsolicited = false
    /// `requireSignedAssertions` (a `<RelyingParty>`/`<ApplicationDefaults>` property):
    /// assertions not signed themselves are skipped, a Response signature notwithstanding.
    public var requireSignedAssertions = false
    /// Apache's `LimitRequestBody`: the largest POST body read (413 beyond). 1 GiB is Apache
    /// 2.4.54's default; 0 means unlimited (the harness still caps bodies it reads).
    public var limitRequestBody = 1_073_741_824
    /// `clockSkew` of `<SPConfig>`: seconds of leeway on every time check.
    public var clockSkew = 180
    /// `expires` of the MessageFlow `<PolicyRule>`: a Response's IssueInstant older than this
    /// plus `clockSkew` is refused ("Message expired, was issued too long ago").
    public var messageFlowExpires = 60
    /// `homeURL` of `<ApplicationDefaults>`: where a login lands when the RelayState that
    /// named the resource was lost. A path is taken on the SP's origin.
    public var homeURL = "/"
    /// An `AttributeChecker` session hook reduced to its common use: attributes a session
    /// must carry.
    public var attributeChecker: [String] = []
    /// Harness rule: a Response whose RelayState was lost or changed on the way is refused
    /// (saml-bindings-2.0-os §3.5.3 says it MUST come back unchanged); Shibboleth lands on
    /// `homeURL` instead.
    public var requireRelayState = false
    /// Harness rule: Destination and Recipient must be the ACS URL the AuthnRequest named,
    /// not only the URL the Response arrived at (saml-profiles-2.0-os §4.1.4.1).
    public var requireRequestedACS = false
    /// Harness rule: the NameID format must be the one the request's NameIDPolicy asked for
    /// (saml-core-2.0-os §3.4.1.1).
    public var requireRequestedNameIDFormat = false
    /// Harness rule (python3-saml's): a Response with more than one assertion is refused;
    /// Shibboleth consumes them all and merges their attributes.
    public var singleAssertion = false
    /// Harness rule (a PKIX trust engine's): the signing certificate must be within its
    /// validity dates; Shibboleth's ExplicitKey engine trusts the metadata key whatever its dates.
    public var checkCertificateValidity = false
    /// Harness rule: refuse line-wrapped or otherwise non-canonical base64 (Shibboleth
    /// accepts it; the deviation is noted in the traffic log).
    public var strictBase64 = false

    public init() {}

    /// One setting: its name as the product spells it, whose setting it is, and what it does.
    public struct Setting: Sendable {
        public enum Kind: String, Sendable { case bool, seconds, bytes, url, list }
        public let name: String
        public let kind: Kind
        public let owner: String
        public let summary: String
        let read: @Sendable (SPRules) -> String
    }

    /// Every setting, in the documented order.
    public static let settings: [Setting] = [
        Setting(name: "ExcludedAlgorithms", kind: .list, owner: "Shibboleth SP: security-policy.xml <ExcludedAlgorithms>",
                summary: "signature/digest algorithm URIs refused (aliases: rsa-sha1, sha1)", read: { $0.excludedAlgorithms.joined(separator: " ") }),
        Setting(name: "checkCorrelation", kind: .bool, owner: "Shibboleth SP: Bearer <PolicyRule checkCorrelation>",
                summary: "a solicited Response's InResponseTo must be the request's ID", read: { String($0.checkCorrelation) }),
        Setting(name: "blockUnsolicited", kind: .bool, owner: "Shibboleth SP: Bearer <PolicyRule blockUnsolicited>",
                summary: "a Response without InResponseTo is refused (IdP-initiated SSO too)", read: { String($0.blockUnsolicited) }),
        Setting(name: "requireSignedAssertions", kind: .bool, owner: "Shibboleth SP: <ApplicationDefaults>/<RelyingParty requireSignedAssertions>",
                summary: "assertions not signed themselves are not used", read: { String($0.requireSignedAssertions) }),
        Setting(name: "LimitRequestBody", kind: .bytes, owner: "Apache httpd: LimitRequestBody",
                summary: "largest POST body read, 413 beyond (0: no limit)", read: { String($0.limitRequestBody) }),
        Setting(name: "clockSkew", kind: .seconds, owner: "Shibboleth SP: <SPConfig clockSkew>",
                summary: "leeway on every time check", read: { String($0.clockSkew) }),
        Setting(name: "MessageFlow.expires", kind: .seconds, owner: "Shibboleth SP: MessageFlow <PolicyRule expires>",
                summary: "a Response issued longer ago than this plus clockSkew is refused", read: { String($0.messageFlowExpires) }),
        Setting(name: "homeURL", kind: .url, owner: "Shibboleth SP: <ApplicationDefaults homeURL>",
                summary: "where a login whose RelayState was lost lands", read: { $0.homeURL }),
        Setting(name: "AttributeChecker", kind: .list, owner: "Shibboleth SP: AttributeChecker session hook",
                summary: "attributes a session must carry", read: { $0.attributeChecker.joined(separator: " ") }),
        Setting(name: "requireRelayState", kind: .bool, owner: "harness (saml-bindings-2.0-os §3.5.3)",
                summary: "a lost or changed RelayState is a refusal, not a landing on homeURL", read: { String($0.requireRelayState) }),
        Setting(name: "requireRequestedACS", kind: .bool, owner: "harness (saml-profiles-2.0-os §4.1.4.1)",
                summary: "Destination and Recipient must be the ACS the request named", read: { String($0.requireRequestedACS) }),
        Setting(name: "requireRequestedNameIDFormat", kind: .bool, owner: "harness (saml-core-2.0-os §3.4.1.1)",
                summary: "the NameID format must be the one the request asked for", read: { String($0.requireRequestedNameIDFormat) }),
        Setting(name: "singleAssertion", kind: .bool, owner: "harness (python3-saml's rule)",
                summary: "more than one assertion is a refusal, not a merge", read: { String($0.singleAssertion) }),
        Setting(name: "checkCertificateValidity", kind: .bool, owner: "harness (a PKIX trust engine's rule)",
                summary: "the signing certificate must be within its validity dates", read: { String($0.checkCertificateValidity) }),
        Setting(name: "strictBase64", kind: .bool, owner: "harness",
                summary: "line-wrapped or non-canonical base64 is refused", read: { String($0.strictBase64) }),
    ]

    /// Error for a setting that cannot be applied.
    public struct SettingError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Sets `name` (as ``settings`` spells it) from its text: `true`/`false`, a whole number,
    /// a URL or path, or a list (space- or comma-separated).
    public mutating func set(_ name: String, _ text: String) throws {
        guard Self.settings.contains(where: { $0.name == name }) else {
            let known = Self.settings.map(\.name).joined(separator: ", ")
            throw SettingError(description: "unknown SP setting `\(name)`; known settings: \(known)")
        }
        let value = text.trimmingCharacters(in: .whitespaces)
        func bool() throws -> Bool {
            switch value.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw SettingError(description: "SP setting `\(name)`: `\(text)` is not true or false")
            }
        }
        func number(_ range: ClosedRange<Int>) throws -> Int {
            guard let n = Int(value), range.contains(n) else {
                throw SettingError(description: "SP setting `\(name)`: `\(text)` is not a whole number in \(range.lowerBound)…\(range.upperBound)")
            }
            return n
        }
        let list = value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        switch name {
        case "ExcludedAlgorithms":
            excludedAlgorithms = try list.map { alias in
                if let uri = Self.algorithmAliases[alias] { return uri }
                guard alias.contains("://") || alias.hasPrefix("urn:") else {
                    throw SettingError(description: "SP setting `ExcludedAlgorithms`: `\(alias)` is neither an algorithm URI nor one of \(Self.algorithmAliases.keys.sorted().joined(separator: ", "))")
                }
                return alias
            }
        case "checkCorrelation": checkCorrelation = try bool()
        case "blockUnsolicited": blockUnsolicited = try bool()
        case "requireSignedAssertions": requireSignedAssertions = try bool()
        case "LimitRequestBody": limitRequestBody = try number(0...2_147_483_647)
        case "clockSkew": clockSkew = try number(0...86_400)
        case "MessageFlow.expires": messageFlowExpires = try number(0...86_400 * 365)
        case "homeURL":
            guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
                throw SettingError(description: "SP setting `homeURL`: `\(text)` is not a path or URL (empty, or holds a space or control character)")
            }
            homeURL = value
        case "AttributeChecker": attributeChecker = list
        case "requireRelayState": requireRelayState = try bool()
        case "requireRequestedACS": requireRequestedACS = try bool()
        case "requireRequestedNameIDFormat": requireRequestedNameIDFormat = try bool()
        case "singleAssertion": singleAssertion = try bool()
        case "checkCertificateValidity": checkCertificateValidity = try bool()
        case "strictBase64": strictBase64 = try bool()
        default: throw SettingError(description: "SP setting `\(name)` has no setter")
        }
    }

    /// Applies `NAME=VALUE` (the form of `serve --sp-setting`).
    public mutating func apply(_ assignment: String) throws {
        guard let eq = assignment.firstIndex(of: "=") else {
            throw SettingError(description: "SP setting `\(assignment)`: expected NAME=VALUE (e.g. checkCorrelation=true)")
        }
        try set(String(assignment[..<eq]).trimmingCharacters(in: .whitespaces), String(assignment[assignment.index(after: eq)...]))
    }

    /// The value of `name` as text (what `set` reads back).
    public func text(of name: String) -> String? {
        Self.settings.first { $0.name == name }.map { $0.read(self) }
    }

    static let algorithmAliases: [String: String] = [
        "rsa-sha1": "http://www.w3.org/2000/09/xmldsig#rsa-sha1",
        "sha1": "http://www.w3.org/2000/09/xmldsig#sha1",
        "rsa-sha256": "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        "sha256": "http://www.w3.org/2001/04/xmlenc#sha256",
    ]

    /// Every rule on: what a strict SP answers (``Knob/expectedSPReason``), and what a client
    /// that validates SAML itself must refuse.
    public static let strict: SPRules = {
        var rules = SPRules()
        rules.excludedAlgorithms = [algorithmAliases["rsa-sha1"]!, algorithmAliases["sha1"]!]
        rules.checkCorrelation = true
        rules.requireSignedAssertions = true
        rules.limitRequestBody = 1_048_576
        rules.requireRelayState = true
        rules.requireRequestedACS = true
        rules.requireRequestedNameIDFormat = true
        rules.singleAssertion = true
        rules.checkCertificateValidity = true
        rules.strictBase64 = true
        return rules
    }()

    /// What an IdP clock `seconds` ahead (positive) or behind does to a Response under these
    /// rules: the MessageFlow rule judges IssueInstant first, with `clockSkew` leeway and
    /// `MessageFlow.expires` of age.
    public func clockSkewReason(_ seconds: Int) -> String? {
        if seconds > clockSkew { return "message.not-yet-valid" }
        if seconds < -(clockSkew + messageFlowExpires) { return "message.expired" }
        return nil
    }

    /// Whether SHA-1 (as signature or digest) is excluded.
    public var excludesSHA1: Bool {
        excludedAlgorithms.contains(Self.algorithmAliases["rsa-sha1"]!) || excludedAlgorithms.contains(Self.algorithmAliases["sha1"]!)
    }


    /// The settings that differ from `other`, as `NAME=VALUE`.
    public func differences(from other: SPRules) -> [String] {
        Self.settings.compactMap { setting in
            let mine = setting.read(self)
            return mine == setting.read(other) ? nil : "\(setting.name)=\(mine)"
        }
    }
}

/// A named SP personality, read from `MockIdP/sp/<name>.yaml`: the product it imitates and its
/// settings (``SPRules``) by their real names; a setting left out keeps Shibboleth SP 3's
/// stock value.
public struct SPPersonality: Sendable, Equatable {
    public let name: String
    public let product: String
    public let description: String
    public let rules: SPRules

    /// The folder of `MockIdP/` that holds the SP personalities.
    public static let folder = "sp"
    /// The personality the mock SP has when nothing names one: it is on Shibboleth SP's paths
    /// and cookie names, so it judges as a stock Shibboleth SP does.
    public static let defaultName = "shibboleth"

    struct File: Decodable {
        var name: String
        var product: String
        var description: String
        var settings: [String: SettingValue]

        enum CodingKeys: String, CodingKey, CaseIterable { case name, product, description, settings }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            product = try c.decode(String.self, forKey: .product)
            description = try c.value(.description, or: "")
            settings = try c.value(.settings, or: [:])
        }
    }

    /// The names of the personalities in `mockIdP/sp/`, sorted.
    public static func names(in mockIdP: URL) -> [String] {
        let folder = mockIdP.appendingPathComponent(Self.folder)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Reads `mockIdP/sp/<name>.yaml`.
    public static func load(named name: String, from mockIdP: URL) throws -> SPPersonality {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }), !name.hasPrefix(".") else {
            throw ConfigurationError(file: "\(Self.folder)/", line: nil, message: "`\(name)` is not an SP personality name")
        }
        let url = mockIdP.appendingPathComponent(Self.folder).appendingPathComponent(name + ".yaml")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            let known = names(in: mockIdP)
            throw ConfigurationError(file: url.path, line: nil,
                                     message: "no SP personality `\(name)`; known: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        let text = String(decoding: data, as: UTF8.self)
        let file = try YAMLLoading.decode(File.self, from: text, file: url.path)
        guard file.name == name else {
            throw ConfigurationError(file: url.path, line: 1, message: "`name` is `\(file.name)`; the file name says `\(name)`")
        }
        var rules = SPRules()
        for (key, value) in file.settings.sorted(by: { $0.key < $1.key }) {
            do { try rules.set(key, value.text) } catch let error as SPRules.SettingError {
                throw ConfigurationError(file: url.path, line: line(of: key, in: text), message: "`settings.\(key)`: \(error.description)")
            }
        }
        return SPPersonality(name: file.name, product: file.product, description: file.description, rules: rules)
    }

    static func line(of key: String, in text: String) -> Int? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") {
            return index + 1
        }
        return nil
    }
}

/// A setting's value in YAML: a boolean, a number, a string or a list of strings, read back
/// as the text ``SPRules/set(_:_:)`` parses.
public enum SettingValue: Codable, Sendable, Equatable {
    case text(String)
    case list([String])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let list = try? c.decode([String].self) { self = .list(list); return }
        if let bool = try? c.decode(Bool.self) { self = .text(String(bool)); return }
        if let int = try? c.decode(Int.self) { self = .text(String(int)); return }
        self = .text(try c.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .text(let s): try c.encode(s)
        case .list(let l): try c.encode(l)
        }
    }

    public var text: String {
        switch self {
        case .text(let s): s
        case .list(let l): l.joined(separator: " ")
        }
    }
}
