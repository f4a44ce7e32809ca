import Foundation
import MockServers

/// Where a scenario's client starts and what else it needs to know, resolved against the
/// running mocks' ready info: the start URL, the credentials it is given, and the flow's own
/// endpoints (IdP entity ID, CAS service, AD FS endpoint, OPDS authentication document,
/// proxy). `serve --scenario` prints it in the ready line; the runner hands it to the client.
public struct ScenarioTarget: Codable, Sendable, Equatable {
    public var id: String
    public var flow: String
    public var title: String
    public var start: String
    public var username: String?
    public var password: String?
    public var secondFactorCode: String?
    /// Flow-specific values, named as the runner's environment variables name them without
    /// the `SAMLH_` prefix (e.g. `IDP_ENTITY_ID`, `CAS_SERVICE`, `ADFS_ENDPOINT`).
    public var parameters: [String: String]
    public var expect: ScenarioExpectation
    public var timeout: Double
    public var seed: UInt64
    public var checks: [String]

    enum CodingKeys: String, CodingKey {
        case id, flow, title, start, username, password
        case secondFactorCode = "second_factor_code"
        case parameters, expect, timeout, seed, checks
    }

    /// Resolves `scenario` against the mocks' ready info and profile users. A replay
    /// scenario has no mocks (`ready` nil): its start is the replay session's.
    public static func resolve(_ scenario: Scenario, ready: ReadyInfo?) -> ScenarioTarget {
        let user = scenario.user
        guard let ready else {
            // A replay never stores passwords or user names: any credentials log in, so a client
            // is given some when the recording names none.
            return ScenarioTarget(
                id: scenario.id, flow: scenario.flow.rawValue, title: scenario.title, start: "",
                username: user?.username ?? "replay-user", password: user?.password ?? "replay-password",
                secondFactorCode: user?.secondFactorCode,
                parameters: ["REQUEST_TIMEOUT": format(scenario.requestTimeout)], expect: scenario.expect,
                timeout: scenario.effectiveTimeout,
                seed: scenario.effectiveSeed, checks: scenario.checks.map(\.id))
        }
        let known = ready.users.first { $0.username == user?.username }
        var parameters: [String: String] = [
            "IDP_ENTITY_ID": ready.idp.entityID,
            "SP_ENTITY_ID": ready.sp.entityID,
            "CONTROL_URL": ready.control.base,
            "REQUEST_TIMEOUT": format(scenario.requestTimeout),
        ]
        // The mocks speak https: the CA to trust (also in the system store after setup-tls.sh).
        if let tls = ready.tls { parameters["CA_FILE"] = tls.caFile }
        let options = scenario.options ?? FlowOptions()
        let start: String
        switch scenario.flow {
        case .webSSO:
            start = ready.sp.secure
            parameters["SP_URL"] = ready.sp.base
        case .webSSOIdPInitiated:
            start = ready.idp.unsolicited + "?providerId=" + formEncoded(ready.sp.entityID)
            parameters["SP_URL"] = ready.sp.base
        case .ecp:
            start = ready.sp.secure
            parameters["IDP_ECP_URL"] = ready.idp.ecp
            parameters["SP_URL"] = ready.sp.base
        case .httpBasic:
            start = ready.auth.basic
        case .httpDigest:
            start = switch options.digestAlgorithm {
            case "sha256": ready.auth.digestSHA256
            case "any": ready.auth.digestAny
            default: ready.auth.digestMD5
            }
        case .httpNTLM:
            start = options.ntlmResource == "negotiate" ? ready.auth.negotiate : ready.auth.ntlm
            parameters["DOMAIN"] = options.upn == true ? "" : options.domain ?? NTLMAuthenticator.Names.netbiosDomain
        case .proxy:
            start = switch options.proxyTarget {
            case "sp": ready.sp.secure
            case "cas-app": ready.cas.service
            default: ready.auth.basic
            }
            parameters["PROXY_URL"] = ready.proxy.url
            parameters["PROXY_USERNAME"] = ready.proxy.username
            parameters["PROXY_PASSWORD"] = ready.proxy.password
        case .casREST:
            start = ready.cas.tickets
            parameters["CAS_URL"] = ready.cas.base
            parameters["CAS_SERVICE"] = options.service ?? ready.cas.service
            parameters["CAS_VALIDATE_URL"] = ready.cas.p3ServiceValidate
        case .casBrowser:
            let service = options.service ?? ready.cas.service
            start = options.service == nil ? ready.cas.service : ready.cas.login + "?service=" + formEncoded(service)
            parameters["CAS_URL"] = ready.cas.base
            parameters["CAS_SERVICE"] = service
            parameters["CAS_VALIDATE_URL"] = ready.cas.p3ServiceValidate
        case .adfsWSTrust:
            start = options.wstrustVersion == "2005" ? ready.adfs.usernameMixed2005 : ready.adfs.usernameMixed13
            parameters["ADFS_ENDPOINT"] = start
            parameters["ADFS_APPLIES_TO"] = options.appliesTo ?? ready.sp.entityID
            parameters["ADFS_MEX_URL"] = ready.adfs.mex
            if let tokenType = options.tokenType { parameters["ADFS_TOKEN_TYPE"] = tokenType }
        case .adfsPassive:
            start = ready.adfs.idpInitiatedSignOn
            parameters["ADFS_RELYING_PARTY"] = options.relyingParty ?? ready.sp.entityID
            parameters["SP_URL"] = ready.sp.base
        case .opdsSAML:
            start = ready.cm.authenticationDocument
            parameters["OPDS_AUTH_DOCUMENT"] = ready.cm.authenticationDocument
            parameters["OPDS_CATALOG"] = ready.cm.catalog
            parameters["OPDS_IDP_ENTITY_ID"] = options.opdsIdP == "adfs" ? ready.adfs.entityID : ready.idp.entityID
            if let book = options.book { parameters["OPDS_BOOK"] = book }
        case .replay:
            start = ""
        }
        var url = start
        if let path = scenario.startPath, let base = URL(string: start), let scheme = base.scheme, let host = base.host {
            url = "\(scheme)://\(host)" + (base.port.map { ":\($0)" } ?? "") + path
        }
        // The Windows domain, where an NTLM handshake can come up (the NTLM proxy, AD FS's WIA).
        if scenario.flow == .proxy || scenario.flow == .adfsPassive {
            parameters["DOMAIN"] = options.domain ?? NTLMAuthenticator.Names.netbiosDomain
        }
        if options.secondLogin == true { parameters["SECOND_LOGIN"] = "1" }
        if let consent = options.consent { parameters["CONSENT"] = consent }
        // A UPN: the account's name at the Windows domain's DNS name.
        let username = options.upn == true ? user.map { "\($0.username)@\(NTLMAuthenticator.Names.dnsDomain)" } : user?.username
        return ScenarioTarget(
            id: scenario.id, flow: scenario.flow.rawValue, title: scenario.title, start: url,
            username: username, password: user?.password ?? known?.password,
            secondFactorCode: user?.secondFactorCode ?? known?.secondFactorCode, parameters: parameters,
            expect: scenario.expect, timeout: scenario.effectiveTimeout, seed: scenario.effectiveSeed,
            checks: scenario.checks.map(\.id))
    }

    /// The target on a clock `factor` times as fast (`run --time-scale`): the client's
    /// `REQUEST_TIMEOUT` and the whole-scenario `timeout` shrink with the mocks' waits; the
    /// latter never below the smaller of 10 s and its real value, so that a loaded machine
    /// does not stop a client that is merely slow to start.
    public func scaled(by factor: Double) -> ScenarioTarget {
        guard factor != 1 else { return self }
        var target = self
        if let text = parameters["REQUEST_TIMEOUT"], let seconds = Double(text) {
            target.parameters["REQUEST_TIMEOUT"] = Self.format(seconds * factor)
        }
        target.timeout = Self.scaledTimeout(timeout, by: factor)
        return target
    }

    /// A whole-scenario timeout at `factor`: `max(seconds × factor, min(seconds, 10))`.
    public static func scaledTimeout(_ seconds: Double, by factor: Double) -> Double {
        factor == 1 ? seconds : max(seconds * factor, min(seconds, 10))
    }

    /// The client's per-answer timeout (`REQUEST_TIMEOUT`), when the target names one.
    public var requestTimeout: Double? { parameters["REQUEST_TIMEOUT"].flatMap(Double.init) }

    static func format(_ seconds: Double) -> String { String(format: "%g", seconds) }

    /// application/x-www-form-urlencoded value encoding (everything but unreserved characters).
    static func formEncoded(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
