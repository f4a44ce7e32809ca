import Foundation
import MockServers

/// One conformance scenario, as written in a YAML file under `Scenarios/` and validated
/// against `scenario.schema.json` by ``ScenarioLoader``. Field names follow the YAML keys
/// (snake_case in YAML).
public struct Scenario: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var description: String
    public var references: [String]?
    public var tags: [String]
    public var flow: Flow
    /// A MockIdP/ profile; absent only for `replay` scenarios.
    public var profile: String?
    public var knobs: [String]?
    public var user: UserSpec?
    /// A path (and query) on the flow's start host to start from instead of the default.
    public var startPath: String?
    public var options: FlowOptions?
    public var expect: ScenarioExpectation
    public var checks: [CheckUse]
    /// Seconds the client may take (default 30).
    public var timeout: Double?
    public var seed: UInt64?
    public var clock: ClockSpec?
    /// The scenario runs on the real clock whatever `run --time-scale` says: a lifetime the
    /// client must beat (a one-second ticket) does not shrink with the waits.
    public var realTime: Bool?
    /// The checks the scenario exists to exercise: a run in which one of them stayed
    /// not-applicable never met the situation the scenario is named for (the client bypassed
    /// the proxy, no stale nonce was answered), and is an error, not a pass.
    public var exercises: [String]?
    /// An optional feature the scenario offers (Kerberos beside NTLM, WS-Trust 2005 beside
    /// 1.3): a client without it fails only the checks named here (and the outcome), which
    /// makes the result `unsupported`, not `fail`.
    public var optional: OptionalFeature?
    /// The recorded chain of a `replay` scenario.
    public var replay: RecordedChain?
    /// The SP personality the scenario judges with (`MockIdP/sp/<name>.yaml`) and settings
    /// over it; absent: the profile's (default `shibboleth`, Shibboleth SP 3's stock rules).
    public var sp: SPChoice?
    /// The mock SP's rules for this scenario (profile, then ``sp``), resolved by the loader
    /// when it knows the MockIdP/ directory (not part of the YAML).
    public var spRules: SPRules?

    /// Where the scenario was read from (not part of the YAML).
    public var source: Source?

    enum CodingKeys: String, CodingKey {
        case id, title, description, references, tags, flow, profile, knobs, user
        case startPath = "start_path"
        case options, expect, checks, timeout, seed, clock, replay
        case realTime = "real_time"
        case exercises, sp, optional
    }

    public init(id: String, title: String, description: String, references: [String]? = nil, tags: [String],
                flow: Flow, profile: String? = nil, knobs: [String]? = nil, user: UserSpec? = nil,
                startPath: String? = nil, options: FlowOptions? = nil, expect: ScenarioExpectation, checks: [CheckUse],
                timeout: Double? = nil, seed: UInt64? = nil, clock: ClockSpec? = nil, realTime: Bool? = nil,
                replay: RecordedChain? = nil, exercises: [String]? = nil, sp: SPChoice? = nil) {
        self.id = id
        self.title = title
        self.description = description
        self.references = references
        self.tags = tags
        self.flow = flow
        self.profile = profile
        self.knobs = knobs
        self.user = user
        self.startPath = startPath
        self.options = options
        self.expect = expect
        self.checks = checks
        self.timeout = timeout
        self.seed = seed
        self.clock = clock
        self.realTime = realTime
        self.replay = replay
        self.exercises = exercises
        self.sp = sp
    }

    /// Why the run is `unsupported`: the client lacks the optional feature — one of its
    /// checks failed, and every failed required check is one of them or an outcome check.
    public func unsupported(_ verdicts: [Verdict]) -> String? {
        guard let optional else { return nil }
        let failed = verdicts.filter { $0.level == .required && $0.status == .fail }
        let signs = Set(optional.unsupportedWhen)
        guard let sign = failed.first(where: { signs.contains($0.check) }),
              failed.allSatisfy({ signs.contains($0.check) || Verdict.outcomeChecks.contains($0.check) }) else { return nil }
        return "the client does not support \(optional.feature), which this scenario offers as optional (\(sign.check): \(sign.reason))"
    }

    /// The first check of ``exercises`` that stayed not-applicable in `verdicts`, as the
    /// reason the run is an error; nil when every one was evaluated.
    public func unexercised(_ verdicts: [Verdict]) -> String? {
        for id in exercises ?? [] {
            guard let verdict = verdicts.first(where: { $0.check == id }), verdict.status == .notApplicable else { continue }
            return "the situation this scenario exists for never arose: `\(id)` stayed not-applicable (\(verdict.reason))"
        }
        return nil
    }

    /// The default timeout, in seconds.
    public static let defaultTimeout: Double = 30

    public var effectiveTimeout: Double { timeout ?? Self.defaultTimeout }

    /// Seconds a client should wait for one answer before it gives up, unless the scenario's
    /// `flow.timeout-clean` says otherwise (its `client_timeout`).
    public static let defaultRequestTimeout: Double = 10

    /// Seconds the client should wait for one answer (`SAMLH_REQUEST_TIMEOUT`, before any
    /// `--time-scale`): the `client_timeout` of the scenario's `flow.timeout-clean`, or 10.
    public var requestTimeout: Double {
        checks.first { $0.id == "flow.timeout-clean" }?.params["client_timeout"]?.numberValue ?? Self.defaultRequestTimeout
    }

    /// The seed in force: the scenario's, or one derived from its id (FNV-1a 64), so a
    /// scenario without a `seed` still repeats exactly.
    public var effectiveSeed: UInt64 {
        if let seed { return seed }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash & 0x1F_FFFF_FFFF_FFFF
    }

    /// The file and the line of each top-level key, for error messages after loading.
    public struct Source: Codable, Sendable, Equatable {
        public var file: String
        public var lines: [String: Int]

        public init(file: String, lines: [String: Int]) {
            self.file = file
            self.lines = lines
        }

        public func line(of key: String) -> Int? { lines[key] }
    }

    public static func == (lhs: Scenario, rhs: Scenario) -> Bool {
        var l = lhs
        var r = rhs
        l.source = nil
        r.source = nil
        return l.encodedForComparison == r.encodedForComparison
    }

    private var encodedForComparison: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// `user:` — a username of the profile, or one with the password (or second-factor code)
/// the client is given instead of the profile's (a wrong password, say).
public struct UserSpec: Codable, Sendable, Equatable {
    public var username: String
    public var password: String?
    public var secondFactorCode: String?

    enum CodingKeys: String, CodingKey {
        case username, password
        case secondFactorCode = "second_factor_code"
    }

    public init(username: String, password: String? = nil, secondFactorCode: String? = nil) {
        self.username = username
        self.password = password
        self.secondFactorCode = secondFactorCode
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            self.init(username: name)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(username: try c.decode(String.self, forKey: .username),
                  password: try c.decodeIfPresent(String.self, forKey: .password),
                  secondFactorCode: try c.decodeIfPresent(String.self, forKey: .secondFactorCode))
    }

    public func encode(to encoder: any Encoder) throws {
        if password == nil && secondFactorCode == nil {
            var single = encoder.singleValueContainer()
            try single.encode(username)
            return
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(username, forKey: .username)
        try c.encodeIfPresent(password, forKey: .password)
        try c.encodeIfPresent(secondFactorCode, forKey: .secondFactorCode)
    }
}

/// `options:` — flow-specific settings.
public struct FlowOptions: Codable, Sendable, Equatable {
    /// http-digest: which protected resource (`md5`, `sha256`, `any`).
    public var digestAlgorithm: String?
    /// adfs-wstrust: `13` (default) or `2005`.
    public var wstrustVersion: String?
    /// adfs-wstrust: the TokenType the client asks for (`saml11`, `saml20`).
    public var tokenType: String?
    /// adfs-wstrust: the AppliesTo (default: the mock SP's entity ID).
    public var appliesTo: String?
    /// adfs-passive: the relying party picked on IdpInitiatedSignOn.
    public var relyingParty: String?
    /// cas-rest / cas-browser: the service URL (default: the CAS mock's `/app/`).
    public var service: String?
    /// opds-saml: which book to borrow and fulfil (default: the first).
    public var book: String?
    /// opds-saml: which IdP of the authentication document (`idp` default, or `adfs`).
    public var opdsIdP: String?
    /// Log in a second time in the same session (IdP session reuse).
    public var secondLogin: Bool?
    /// Answer the consent page with `accept` (default) or `decline`.
    public var consent: String?
    /// proxy: what is fetched through the proxy.
    public var proxyTarget: String?
    /// http-ntlm: the resource (`ntlm`, default: `/ntlm/`; `negotiate`: `/negotiate/`).
    public var ntlmResource: String?
    /// http-ntlm, proxy, adfs-passive: the Windows domain the client is given as
    /// `SAMLH_DOMAIN` (default `EXAMPLE`; empty with a UPN user name `alice@example.org`).
    public var domain: String?
    /// http-ntlm: the user name given as a UPN (`alice@example.org`) with an empty domain.
    public var upn: Bool?
    /// http-ntlm, adfs-passive: the client holds a Kerberos ticket of the realm, as on a desktop
    /// joined to the domain. The runner gets it the user's TGT with `kinit` and gives the
    /// client `KRB5_CONFIG` and `KRB5CCNAME`; with no realm (`SAMLH_KERBEROS`) the scenario is
    /// skipped, saying so.
    public var kerberos: Bool?

    enum CodingKeys: String, CodingKey {
        case digestAlgorithm = "digest_algorithm"
        case wstrustVersion = "wstrust_version"
        case tokenType = "token_type"
        case appliesTo = "applies_to"
        case relyingParty = "relying_party"
        case service, book
        case opdsIdP = "opds_idp"
        case secondLogin = "second_login"
        case consent
        case proxyTarget = "proxy_target"
        case ntlmResource = "ntlm_resource"
        case domain, upn, kerberos
    }

    public init() {}
}

/// `optional:` — a feature the scenario offers that a client may lack.
public struct OptionalFeature: Codable, Sendable, Equatable {
    /// What the feature is, as a reader names it ("Kerberos (Negotiate)").
    public var feature: String
    /// The checks a client without the feature fails (each also under `checks`).
    public var unsupportedWhen: [String]

    public init(feature: String, unsupportedWhen: [String]) {
        self.feature = feature
        self.unsupportedWhen = unsupportedWhen
    }

    enum CodingKeys: String, CodingKey {
        case feature
        case unsupportedWhen = "unsupported_when"
    }
}

/// `expect:` — what the client must achieve.
public struct ScenarioExpectation: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// The client completes the login and obtains the resource (the truth the mocks know).
        case success
        /// The client stops without obtaining the resource and names the error.
        case failure
    }

    public var outcome: Outcome
    /// What the client's error must name (case-insensitive substring), for `failure`; `a|b`
    /// accepts either word (clients name a refused certificate "certificate", "SSL…" or
    /// "hostname verification failed"); `@short-body`, `@connection-lost` and
    /// `@connection-reset` stand for the words real libraries use for those faults
    /// (``FaultWords``).
    public var error: String?

    /// The words of ``error``, any of which the client's error must contain (lowercased).
    public var errorWords: [String] {
        (error ?? "").lowercased().split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .flatMap { FaultWords.expand($0) ?? [$0] }
    }

    /// Whether `text` names the error (an empty ``error`` is named by anything).
    public func names(_ text: String) -> Bool {
        let words = errorWords
        let lowered = text.lowercased()
        return words.isEmpty || words.contains(where: lowered.contains)
    }
    /// Why this outcome is right.
    public var reason: String?
    /// The reason code the SP gives when the scenario's defect reaches it (`sp.rejected`),
    /// when the knobs' own code does not say it (an unsolicited Response's InResponseTo is
    /// `in-response-to.unexpected`, not `…mismatch`). `flow.failure-reported` reads the
    /// traffic for it before the client's words.
    public var refusal: String?

    public init(outcome: Outcome, error: String? = nil, reason: String? = nil, refusal: String? = nil) {
        self.outcome = outcome
        self.error = error
        self.reason = reason
        self.refusal = refusal
    }
}

/// One entry of `checks:` — a check id, whether it is required, and its parameters.
public struct CheckUse: Codable, Sendable, Equatable {
    public enum Level: String, Codable, Sendable {
        case required, recommended
    }

    public var id: String
    public var level: Level
    public var params: [String: ParamValue]

    enum CodingKeys: String, CodingKey {
        case id, level, params
    }

    public init(id: String, level: Level = .required, params: [String: ParamValue] = [:]) {
        self.id = id
        self.level = level
        self.params = params
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
            self.init(id: id)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id),
                  level: try c.decodeIfPresent(Level.self, forKey: .level) ?? .required,
                  params: try c.decodeIfPresent([String: ParamValue].self, forKey: .params) ?? [:])
    }

    public func encode(to encoder: any Encoder) throws {
        if level == .required && params.isEmpty {
            var single = encoder.singleValueContainer()
            try single.encode(id)
            return
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        if level != .required { try c.encode(level, forKey: .level) }
        if !params.isEmpty { try c.encode(params, forKey: .params) }
    }
}

/// A check parameter's value: a string, a whole number, a number or a boolean.
public enum ParamValue: Codable, Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let value = try? c.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? c.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? c.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let value): try c.encode(value)
        case .integer(let value): try c.encode(value)
        case .number(let value): try c.encode(value)
        case .boolean(let value): try c.encode(value)
        }
    }

    public var description: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .boolean(let value): String(value)
        }
    }

    /// A number (whole or not) as a `Double`; nil for strings and booleans.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    public var intValue: Int? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value == value.rounded(): Int(value)
        default: nil
        }
    }
}

/// `clock:` — where the mocks' clock starts, and whether it stands still.
public struct ClockSpec: Codable, Sendable, Equatable {
    /// ISO 8601 date-time.
    public var start: String?
    public var frozen: Bool?

    public init(start: String? = nil, frozen: Bool? = nil) {
        self.start = start
        self.frozen = frozen
    }
}

/// A scenario's `sp:`: an SP personality by name and settings over it, by their real names
/// (``SPRules/settings``). `sp: hardened` is short for `sp: {personality: hardened}`.
public struct SPChoice: Codable, Sendable, Equatable {
    public var personality: String?
    public var settings: [String: SettingValue]?

    public init(personality: String? = nil, settings: [String: SettingValue]? = nil) {
        self.personality = personality
        self.settings = settings
    }

    enum CodingKeys: String, CodingKey { case personality, settings }

    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self.init(personality: name)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(personality: try c.decodeIfPresent(String.self, forKey: .personality),
                  settings: try c.decodeIfPresent([String: SettingValue].self, forKey: .settings))
    }

    /// The settings as `NAME=VALUE`, in name order.
    public var assignments: [String] {
        (settings ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.text)" }
    }
}
