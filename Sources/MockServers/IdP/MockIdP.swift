import Foundation
import Logging
import SAMLCore

/// The mock SAML IdP, on Shibboleth IdP's URL paths (and, for the `simplesamlphp`
/// personality, SimpleSAMLphp's):
///
/// | path | what |
/// |---|---|
/// | `/idp/profile/SAML2/Redirect/SSO` | AuthnRequest by HTTP-Redirect; login pages (`?execution=e1sN`) |
/// | `/idp/profile/SAML2/POST/SSO` | AuthnRequest by HTTP-POST; login pages |
/// | `/idp/profile/SAML2/SOAP/ECP` | ECP: SOAP AuthnRequest with HTTP Basic |
/// | `/idp/profile/SAML2/Unsolicited/SSO?providerId=…` | IdP-initiated SSO (`shire`, `target`) |
/// | `/idp/profile/SAML2/Redirect/SLO` | single logout |
/// | `/idp/shibboleth` | metadata |
///
/// Login modes, consent, second factor, bad-password behaviour and signing come from the
/// profile; misbehaviour from the knobs (see ``Knob``). Every page and redirect is answered
/// from the request alone plus the state kept here, so the traffic log tells the whole story.
public struct MockIdP: MockHandler {
    public let name = "idp"
    public let environment: MockEnvironment
    let state = IdPState()

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    /// The ECP (SOAP) endpoint's path.
    public static let ecpPath = Path.ecp

    enum Path {
        static let redirectSSO = "/idp/profile/SAML2/Redirect/SSO"
        static let postSSO = "/idp/profile/SAML2/POST/SSO"
        static let ecp = "/idp/profile/SAML2/SOAP/ECP"
        static let unsolicited = "/idp/profile/SAML2/Unsolicited/SSO"
        static let slo = "/idp/profile/SAML2/Redirect/SLO"
        static let metadata = "/idp/shibboleth"
        // SimpleSAMLphp 1.19 (Debian 12) paths.
        static let sspSSO = "/simplesaml/saml2/idp/SSOService.php"
        static let sspLogin = "/simplesaml/module.php/core/loginuserpass.php"
        static let sspMetadata = "/simplesaml/saml2/idp/metadata.php"
        static let sspSLO = "/simplesaml/saml2/idp/SingleLogoutService.php"
    }

    /// Cookie names.
    enum CookieName {
        static let flow = "_idp_authn_lc_key"
        static let session = "_idp_session"
        static let sspSession = "SimpleSAMLSessionID"
        static let sspAuthToken = "SimpleSAMLAuthToken"
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        let path = request.path
        do {
            switch path {
            case Path.redirectSSO, Path.postSSO, Path.sspSSO:
                return try await sso(request)
            case Path.sspLogin:
                return try await sspLoginPage(request)
            case Path.ecp:
                return try await ecp(request)
            case Path.unsolicited:
                return try await unsolicited(request)
            case Path.slo, Path.sspSLO:
                return try singleLogout(request)
            case Path.metadata, Path.sspMetadata:
                guard request.method == "GET" || request.method == "HEAD" else {
                    return .methodNotAllowed(request.method, allowed: ["GET"])
                }
                return metadataResponse()
            case "/", "/idp", "/idp/":
                return errorPage(status: 200, title: "Mock IdP", message: "This is the SAMLHarness mock IdP (\(environment.profile.name)). Metadata: \(environment.baseURL(of: name))\(Path.metadata)")
            default:
                return .notFound(path)
            }
        } catch let error as IdPError {
            return errorPage(status: error.status, title: error.title, message: error.message)
                .annotated("idp.error", error.code)
        } catch {
            return errorPage(status: 500, title: "Internal error", message: "\(error)")
                .annotated("idp.error", "internal")
        }
    }

    /// Forgets every flow, session and failed-password count (control API `reset`).
    public func reset() { state.reset() }

    // MARK: - Shared helpers

    var base: String { environment.baseURL(of: name) }

    /// An error page; under the `error-page-200` knob it answers 200 whatever went wrong.
    func errorPage(status: Int, title: String, message: String) -> MockResponse {
        let html = environment.profile.templates.error.render(["title": title, "message": message, "status": status])
        guard status >= 400, environment.knobs.contains(.errorPage200) else { return .html(html, status: status) }
        return MockResponse.html(html, status: 200).annotated("idp.knob", "error-page-200 (was \(status))")
    }

    /// The path the IdP's cookies are scoped to: where its endpoints live (`/idp` for
    /// Shibboleth, `/simplesaml` for SimpleSAMLphp), so a browser sends them back there.
    var cookiePath: String {
        environment.profile.profile.personality == .simplesamlphp ? "/simplesaml" : "/idp"
    }

    /// A fresh random token (from the environment's ID generator, so seeded runs repeat).
    func token(_ prefix: String = "") -> String {
        prefix + environment.ids.next().drop { $0 == "_" }
    }

    /// The transport faults switched on, applied to the first answer of an SSO request.
    func transportFault(for request: MockRequest) -> MockResponse? {
        for knob in environment.knobs {
            switch knob {
            case .error500:
                return errorPage(status: 500, title: "Internal Server Error",
                                 message: "org.springframework.webflow.execution.FlowExecutionException: Exception thrown in state 'InitializeProfileRequestContext'")
                    .annotated("idp.knob", knob.text)
            case .redirectLoop:
                let count = (request.queryValue("loop").flatMap(Int.init) ?? 0) + 1
                var target = request.path
                let kept = request.query.filter { $0.name != "loop" }.map { "\($0.rawName)=\($0.rawValue)" }
                target += "?" + (kept + ["loop=\(count)"]).joined(separator: "&")
                return MockResponse.redirect(base + target).annotated("idp.knob", knob.text)
            default:
                continue
            }
        }
        return nil
    }
}

/// Why the IdP refused a request: shown on its error page and annotated in the traffic log.
struct IdPError: Error {
    let status: Int
    let code: String
    let title: String
    let message: String

    static func badRequest(_ code: String, _ message: String) -> IdPError {
        IdPError(status: 400, code: code, title: "Web Login Service - Unsupported Request", message: message)
    }
}
