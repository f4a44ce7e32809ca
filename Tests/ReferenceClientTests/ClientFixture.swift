import Foundation
import MockServers
import ReferenceClient
import TestSupport

/// Builds the client's configuration from a running suite, as the runner's
/// `ScenarioTarget.resolve` does, and runs it in-process.
enum ClientFixture {
    static func configuration(_ suite: MockSuite, flow: ClientConfiguration.Flow, user: String? = "alice",
                              password: String? = nil, timeout: Double = 20,
                              parameters extra: [String: String] = [:]) throws -> ClientConfiguration {
        let info = suite.readyInfo()
        var parameters = ["IDP_ENTITY_ID": info.idp.entityID, "SP_ENTITY_ID": info.sp.entityID, "CONTROL_URL": info.control.base]
        let start: String
        switch flow {
        case .webSSO:
            start = info.sp.secure
            parameters["SP_URL"] = info.sp.base
        case .webSSOIdPInitiated:
            start = info.idp.unsolicited + "?providerId=" + (info.sp.entityID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            parameters["SP_URL"] = info.sp.base
        case .ecp:
            start = info.sp.secure
            parameters["IDP_ECP_URL"] = info.idp.ecp
            parameters["SP_URL"] = info.sp.base
        case .httpBasic:
            start = info.auth.basic
        case .httpDigest:
            start = info.auth.digestMD5
        case .httpNTLM:
            start = info.auth.ntlm
            parameters["DOMAIN"] = NTLMAuthenticator.Names.netbiosDomain
        case .proxy:
            start = info.auth.basic
            parameters["PROXY_URL"] = info.proxy.url
            parameters["PROXY_USERNAME"] = info.proxy.username
            parameters["PROXY_PASSWORD"] = info.proxy.password
        case .casREST:
            start = info.cas.tickets
            parameters["CAS_URL"] = info.cas.base
            parameters["CAS_SERVICE"] = info.cas.service
            parameters["CAS_VALIDATE_URL"] = info.cas.p3ServiceValidate
        case .casBrowser:
            start = info.cas.service
            parameters["CAS_URL"] = info.cas.base
            parameters["CAS_SERVICE"] = info.cas.service
            parameters["CAS_VALIDATE_URL"] = info.cas.p3ServiceValidate
        case .adfsWSTrust:
            start = info.adfs.usernameMixed13
            parameters["ADFS_ENDPOINT"] = start
            parameters["ADFS_APPLIES_TO"] = info.sp.entityID
            parameters["ADFS_MEX_URL"] = info.adfs.mex
        case .adfsPassive:
            start = info.adfs.idpInitiatedSignOn
            parameters["ADFS_RELYING_PARTY"] = info.sp.entityID
            parameters["SP_URL"] = info.sp.base
        case .opdsSAML:
            start = info.cm.authenticationDocument
            parameters["OPDS_AUTH_DOCUMENT"] = info.cm.authenticationDocument
            parameters["OPDS_CATALOG"] = info.cm.catalog
            parameters["OPDS_IDP_ENTITY_ID"] = info.idp.entityID
        case .replay:
            start = ""
        }
        parameters.merge(extra) { $1 }
        let known = user.flatMap { name in info.users.first { $0.username == name } }
        guard let url = URL(string: start) else { throw FixtureError("bad start URL \(start)") }
        return ClientConfiguration(flow: flow, startURL: url, username: user, password: password ?? known?.password,
                                   secondFactorCode: known?.secondFactorCode, timeout: timeout, parameters: parameters)
    }

    /// The last value of annotation `key` in the suite's traffic log.
    static func annotation(_ suite: MockSuite, _ key: String) -> String? {
        suite.log.entries.compactMap { $0.annotations[key] }.last
    }

    /// Requests to `mock` whose method is `method` and path contains `path`.
    static func count(_ suite: MockSuite, mock: String, method: String, path: String) -> Int {
        suite.log.entries.filter { $0.mock == mock && $0.request.method == method && $0.request.path.contains(path) }.count
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
