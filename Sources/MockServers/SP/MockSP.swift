import Foundation
import SAMLCore

/// The mock SAML SP, on Shibboleth SP's URL paths:
///
/// | path | what |
/// |---|---|
/// | `/secure` | the protected resource: its body holds the session's secret |
/// | `/Shibboleth.sso/Login?target=…` | starts SSO (HTTP-Redirect AuthnRequest to the IdP) |
/// | `/Shibboleth.sso/SAML2/POST` | ACS, HTTP-POST (also `…/POST-SimpleSign`, index 2) |
/// | `/Shibboleth.sso/SAML2/ECP` | ACS, PAOS (ECP) |
/// | `/Shibboleth.sso/Metadata` | metadata |
/// | `/Shibboleth.sso/Session` | the session (HTML, or JSON with `Accept: application/json`) |
/// | `/Shibboleth.sso/Logout` | logout (SAML SLO through the IdP), `/Shibboleth.sso/SLO/Redirect` |
/// | `/` | the site's home page, outside the protected area (Shibboleth's default `homeURL`) |
///
/// `/secure` answers a client that advertises PAOS (`Accept: …application/vnd.paos+xml` and a
/// `PAOS` header, saml-ecp-v2.0 §2.3.1) with a PAOS request instead of a redirect. Responses
/// are judged by the rules of the SP personality in force (``SPRules``: Shibboleth SP 3's
/// stock settings unless a profile, scenario or `serve --sp-personality` names others),
/// through SAMLCore's ``SPValidator``; a refusal is an error page naming the reason code,
/// which is also annotated in the traffic log (`sp.rejected`).
public struct MockSP: MockHandler {
    public let name = "sp"
    public let environment: MockEnvironment
    let state = SPState()

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    enum Path {
        static let secure = "/secure"
        static let login = "/Shibboleth.sso/Login"
        static let acsPost = "/Shibboleth.sso/SAML2/POST"
        static let acsSimpleSign = "/Shibboleth.sso/SAML2/POST-SimpleSign"
        static let acsECP = "/Shibboleth.sso/SAML2/ECP"
        static let metadata = "/Shibboleth.sso/Metadata"
        static let session = "/Shibboleth.sso/Session"
        static let logout = "/Shibboleth.sso/Logout"
        static let sloRedirect = "/Shibboleth.sso/SLO/Redirect"
    }

    static let postSimpleSignBinding = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST-SimpleSign"

    public func handle(_ request: MockRequest) async -> MockResponse {
        let answer = await route(request)
        guard [Path.acsPost, Path.acsSimpleSign, Path.acsECP].contains(request.path) else { return answer }
        // Every judgement names the rules it was made under (traffic log, HAR, report trace).
        let profile = environment.profile
        let settings = profile.spSettingsChanged
        return answer.annotated("sp.personality", profile.spPersonality + (settings.isEmpty ? "" : " " + settings.joined(separator: " ")))
    }

    func route(_ request: MockRequest) async -> MockResponse {
        let path = request.path
        do {
            if path == Path.secure || path.hasPrefix(Path.secure + "/") {
                return try protectedResource(request)
            }
            switch path {
            case Path.login: return try login(request)
            case Path.acsPost, Path.acsSimpleSign: return try assertionConsumer(request)
            case Path.acsECP: return try ecpConsumer(request)
            case Path.metadata:
                return MockResponse.xml(Self.metadata(environment: environment).xml(), contentType: "application/samlmetadata+xml")
            case Path.session: return sessionPage(request)
            case Path.logout: return try logout(request)
            case Path.sloRedirect: return try logoutReturn(request)
            case "/": return homePage(request)
            default: return .notFound(path)
            }
        } catch let error as SPError {
            return Self.errorPage(error)
        } catch {
            return Self.errorPage(SPError(status: 500, code: "sp.internal", message: "\(error)"))
        }
    }

    /// Forgets every pending request and session.
    public func reset() { state.reset() }

    /// The number of sessions the SP holds (for load checks).
    public var sessionCount: Int { state.sessionCount }

    var base: String { environment.baseURL(of: name) }

    /// `_shibsession_<hash>`: Shibboleth SP names its cookie after a hash of the application;
    /// here FNV-1a 64 of the SP's entityID, in hex.
    var sessionCookieName: String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in environment.spEntityID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100000001b3
        }
        return "_shibsession_" + String(hash, radix: 16)
    }

    func token(_ prefix: String = "") -> String {
        prefix + environment.ids.next().drop { $0 == "_" }
    }

    /// The SP's metadata: one key for signing and encryption, the ACS endpoints Shibboleth
    /// SP publishes (POST index 1, POST-SimpleSign 2, PAOS 4), SLO by Redirect.
    public static func metadata(environment: MockEnvironment) -> EntityDescriptor {
        let base = environment.baseURL(of: "sp")
        let profile = environment.profile
        let descriptor = SPSSODescriptor(
            authnRequestsSigned: false,
            wantAssertionsSigned: profile.profile.sp.wantAssertionsSigned,
            keyDescriptors: [KeyDescriptor(use: nil, certificates: [profile.spCertificate.base64DER])],
            singleLogoutServices: [Endpoint(binding: SAMLBindingURI.httpRedirect, location: base + Path.sloRedirect)],
            nameIDFormats: [NameIDFormat.transient],
            assertionConsumerServices: [
                IndexedEndpoint(binding: SAMLBindingURI.httpPost, location: base + Path.acsPost, index: 1, isDefault: true),
                IndexedEndpoint(binding: postSimpleSignBinding, location: base + Path.acsSimpleSign, index: 2),
                IndexedEndpoint(binding: SAMLBindingURI.paos, location: base + Path.acsECP, index: 4),
            ])
        return EntityDescriptor(entityID: environment.spEntityID, spSSODescriptor: descriptor)
    }
}

/// Why the SP refused: a stable reason code and an explanation.
struct SPError: Error {
    let status: Int
    let code: String
    let message: String
}

extension MockSP {
    static func errorPage(_ error: SPError) -> MockResponse {
        MockResponse.html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Shibboleth Error</title></head>
        <body><h1>Unable to complete the login</h1>
        <p>The system encountered an error while processing your login.</p>
        <p>reason: <code id="reason">\(HTMLText.escape(error.code))</code></p>
        <p id="explanation">\(HTMLText.escape(error.message))</p>
        </body></html>

        """, status: error.status).annotated("sp.rejected", error.code).annotated("sp.explanation", error.message)
    }
}
