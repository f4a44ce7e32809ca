import Foundation
import SAMLCore

/// The mock AD FS (Windows Server 2012 R2 – 2019 shapes), on AD FS's own paths:
///
/// | path | what |
/// |---|---|
/// | `/adfs/services/trust/13/usernamemixed` | WS-Trust 1.3 RST (SOAP 1.2, UsernameToken) → RSTR collection |
/// | `/adfs/services/trust/2005/usernamemixed` | WS-Trust February 2005, the same with an RSTR alone |
/// | `/adfs/services/trust/mex` | WS-MetadataExchange: the WSDL and policies naming the usernamemixed endpoints |
/// | `/FederationMetadata/2007-06/FederationMetadata.xml` | signed federation metadata with the token-signing certificate |
/// | `/adfs/ls/IdpInitiatedSignOn.aspx` | the IdP-initiated sign-on page, `?loginToRp=`, the forms sign-in |
/// | `/adfs/ls/` | SAML-P: HTTP-Redirect AuthnRequests from known relying parties |
/// | `/adfs/ls/wia` | Windows Integrated Authentication (401 Negotiate, NTLM) for the same sign-ins; WIA-capable user agents are sent there |
///
/// Every token and Response is signed with the profile's IdP key; the token-signing
/// certificate in the metadata is the IdP certificate. Paths compare case-insensitively, as
/// IIS does. See docs/adfs.md.
public struct ADFSServer: MockHandler {
    public let name = "adfs"
    public let environment: MockEnvironment
    let state = ADFSState()
    /// Windows Integrated Authentication at `/adfs/ls/wia` (connection-bound NTLM handshakes).
    let wia: NTLMAuthenticator

    public init(environment: MockEnvironment) {
        self.environment = environment
        self.wia = NTLMAuthenticator(users: environment.profile.profile.users, seed: environment.ids.next(),
                                     now: { environment.clock.now() },
                                     knobs: { environment.knobs.compactMap { if case .ntlm(let knob) = $0 { knob } else { nil } } })
    }

    /// The paths, as AD FS serves them.
    public enum Path {
        public static let usernameMixed13 = "/adfs/services/trust/13/usernamemixed"
        public static let usernameMixed2005 = "/adfs/services/trust/2005/usernamemixed"
        public static let mex = "/adfs/services/trust/mex"
        public static let federationMetadata = "/FederationMetadata/2007-06/FederationMetadata.xml"
        public static let idpInitiatedSignOn = "/adfs/ls/IdpInitiatedSignOn.aspx"
        public static let ls = "/adfs/ls/"
        public static let wia = "/adfs/ls/wia"
    }

    /// Cookie names AD FS sets after a forms sign-in.
    enum CookieName {
        /// The sign-in session (AD FS's encrypted authentication token; here a random key).
        static let auth = "MSISAuth"
        /// When the user authenticated (AD FS: base64 of the instant).
        static let authenticated = "MSISAuthenticated"
        /// AD FS counts token issuances per browser with it (loop detection).
        static let loopDetection = "MSISLoopDetectionCookie"
        static let path = "/adfs"
    }

    /// The federation service identifier (the token Issuer).
    public var entityID: String {
        environment.expand(environment.profile.profile.adfs.entityID, base: environment.baseURL(of: name))
    }

    var base: String { environment.baseURL(of: name) }

    public func handle(_ request: MockRequest) async -> MockResponse {
        let path = request.path.lowercased()
        switch path {
        case Path.usernameMixed13.lowercased():
            return usernameMixed(request, version: .trust13)
        case Path.usernameMixed2005.lowercased():
            return usernameMixed(request, version: .trust2005)
        case Path.mex.lowercased(), Path.mex.lowercased() + "/":
            guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(request.method, allowed: ["GET"]) }
            return MockResponse.xml(ADFSMex.document(base: base), contentType: "application/soap+xml; charset=utf-8")
                .annotated("adfs.page", "mex")
        case Path.federationMetadata.lowercased():
            guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(request.method, allowed: ["GET"]) }
            return federationMetadataResponse()
        case Path.idpInitiatedSignOn.lowercased():
            return idpInitiatedSignOn(request)
        case Path.ls.lowercased(), "/adfs/ls":
            return samlProtocol(request)
        case Path.wia.lowercased(), Path.wia.lowercased() + "/":
            return windowsIntegrated(request)
        default:
            return .notFound(request.path)
        }
    }

    /// Forgets every session and failure count.
    public func reset() { state.reset() }

    /// A fresh token from the environment's ID generator (so seeded runs repeat).
    func token() -> String { String(environment.ids.next().drop { $0 == "_" }) }

    /// `error-500`: the endpoint answers 500 (an AD FS error page, or a bare 500 on the
    /// SOAP endpoints, as IIS does when the AD FS service is stopped).
    func transportFault(annotationPrefix: String) -> MockResponse? {
        guard environment.knobs.contains(.error500) else { return nil }
        return MockResponse.errorPage(status: 500, title: "Internal Server Error",
                                      message: "The AD FS service encountered an error processing the request.")
            .annotated("\(annotationPrefix).knob", Knob.error500.text)
    }
}
