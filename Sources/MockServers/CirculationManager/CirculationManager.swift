import Foundation
import SAMLCore

/// The mock OPDS circulation manager (Library Simplified / SimplyE) with SAML login, on the
/// real circulation manager's paths:
///
/// | path | what |
/// |---|---|
/// | `/authentication_document` | Authentication for OPDS 1.0: auth type `…/authtype/SAML-2.0`, one `authenticate` link per IdP |
/// | `/SAML/saml_authenticate?provider=…&idp_entity_id=…&redirect_uri=…` | starts Web SSO (HTTP-Redirect AuthnRequest) |
/// | `/SAML/saml_callback` | ACS (HTTP-POST): validates, redirects to `redirect_uri?access_token=…&patron_info=…` |
/// | `/SAML/metadata` | the SP metadata |
/// | `/` | OPDS 1.2 acquisition feed with borrow links |
/// | `/loans` | the patron's loans (Bearer) |
/// | `/works/{id}/borrow` | GET or PUT (Bearer): the loan entry |
/// | `/works/{id}/fulfill/{mechanism}` | the book, or a chain to it (`cm-fulfill`) |
/// | `/delivery/{ticket}`, `/delivery/{ticket}/download` | the fulfilment chain (cookies, not the token) |
///
/// Every refusal is a problem document (or a redirect carrying one in `error=`, as the real
/// controller does) and is annotated in the traffic log (`cm.problem`, `cm.rejected`).
public struct CirculationManager: MockHandler {
    public let name = "cm"
    public let environment: MockEnvironment
    let state = CMState()

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    /// The paths, as the Library Simplified circulation manager serves them.
    public enum Path {
        public static let catalog = "/"
        public static let authenticationDocument = "/authentication_document"
        public static let samlAuthenticate = "/SAML/saml_authenticate"
        public static let samlCallback = "/SAML/saml_callback"
        public static let metadata = "/SAML/metadata"
        public static let loans = "/loans"
        /// `/works/{id}/borrow`.
        public static func borrow(_ workID: String) -> String { "/works/\(workID)/borrow" }
        /// `/works/{id}/fulfill/{mechanism}`.
        public static func fulfill(_ workID: String, mechanism: String) -> String { "/works/\(workID)/fulfill/\(mechanism)" }
        static let delivery = "/delivery/"
    }

    /// The provider name of the real SAML provider (`SAMLWebSSOAuthenticationProvider.NAME`).
    public static let providerName = "SAML 2.0 Web SSO"
    /// The Flask session cookie the circulation manager sets at login.
    public static let sessionCookie = "session"
    /// The cookie a borrow sets (`cm_loan_{id}`); the fulfilment chain wants it back.
    public static func loanCookie(_ workID: String) -> String { "cm_loan_\(workID)" }
    static let deliveryCookie = "cm_delivery"

    /// The SP entity ID the circulation manager logs in as.
    public static func entityID(environment: MockEnvironment) -> String {
        environment.expand(environment.profile.profile.circulationManager.entityID, base: environment.baseURL(of: "cm"))
    }

    /// The circulation manager's SP metadata (the mock IdP trusts it).
    public static func metadata(environment: MockEnvironment) -> EntityDescriptor {
        let base = environment.baseURL(of: "cm")
        let descriptor = SPSSODescriptor(
            authnRequestsSigned: false, wantAssertionsSigned: false,
            keyDescriptors: [KeyDescriptor(use: nil, certificates: [environment.profile.spCertificate.base64DER])],
            singleLogoutServices: [], nameIDFormats: [NameIDFormat.transient],
            assertionConsumerServices: [
                IndexedEndpoint(binding: SAMLBindingURI.httpPost, location: base + Path.samlCallback, index: 0, isDefault: true),
            ])
        return EntityDescriptor(entityID: entityID(environment: environment), spSSODescriptor: descriptor)
    }

    /// The SHA-256 (lowercase hex) of the book a fulfil of `workID` delivers, or nil.
    public static func bookSHA256(_ workID: String) -> String? { CMBook.find(workID)?.sha256 }

    /// Every work id of the collection.
    public static var workIDs: [String] { CMBook.collection.map(\.id) }

    public func handle(_ request: MockRequest) async -> MockResponse {
        let path = request.path
        do {
            switch path {
            case Path.catalog: return try only(["GET", "HEAD"], request) { catalog() }
            case Path.authenticationDocument: return try only(["GET", "HEAD"], request) { authenticationDocument() }
            case Path.samlAuthenticate: return try only(["GET"], request) { try samlAuthenticate(request) }
            case Path.samlCallback: return try only(["POST"], request) { try samlCallback(request) }
            case Path.metadata:
                return MockResponse.xml(Self.metadata(environment: environment).xml(), contentType: "application/samlmetadata+xml")
            case Path.loans, Path.loans + "/": return try only(["GET", "HEAD"], request) { try loans(request) }
            default: break
            }
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if segments.count == 4, segments[1] == "works", segments[3] == "borrow" {
                return try only(["GET", "PUT"], request) { try borrow(request, workID: segments[2]) }
            }
            if segments.count == 5, segments[1] == "works", segments[3] == "fulfill" {
                return try only(["GET"], request) { try fulfil(request, workID: segments[2], mechanism: segments[4]) }
            }
            if segments.count == 3, segments[1] == "delivery" {
                return try only(["GET"], request) { try deliveryStart(request, ticket: segments[2]) }
            }
            if segments.count == 4, segments[1] == "delivery", segments[3] == "download" {
                return try only(["GET"], request) { try deliveryDownload(request, ticket: segments[2]) }
            }
            return .notFound(path)
        } catch let problem as CMProblem {
            return problem.response(mediaType: problemMediaType)
        } catch let answer as CMAnswer {
            return answer.response
        } catch {
            return CMProblem(type: CMProblem.base + "internal", title: "Internal error", status: 500,
                             detail: "\(error)", code: "cm.internal").response(mediaType: problemMediaType)
        }
    }

    /// Forgets every pending login, token, session, loan and fulfilment.
    public func reset() { state.reset() }

    func only(_ methods: [String], _ request: MockRequest, _ body: () throws -> MockResponse) throws -> MockResponse {
        guard methods.contains(request.method) else { return .methodNotAllowed(request.method, allowed: methods) }
        return try body()
    }

    var base: String { environment.baseURL(of: name) }
    var settings: CirculationManagerSettings { environment.profile.profile.circulationManager }

    var cmKnobs: [CMKnob] {
        environment.knobs.compactMap { if case .cm(let knob) = $0 { knob } else { nil } }
    }

    /// `cm-problem-type`: `application/api-problem+json` (the real one) or RFC 7807's type.
    var problemMediaType: String {
        cmKnobs.contains(.problemType(.problem)) ? "application/problem+json" : "application/api-problem+json"
    }

    var tokenLifetime: Double {
        for case .tokenLifetime(let seconds) in cmKnobs { return seconds }
        return settings.tokenLifetime
    }

    var fulfilMode: CMKnob.Fulfil {
        for case .fulfil(let mode) in cmKnobs { return mode }
        return .direct
    }

    /// The IdPs of the authentication document: the suite's mock SAML IdP, then AD FS.
    var identityProviders: [CMIdentityProvider] {
        var providers = [CMIdentityProvider(
            entityID: environment.idpEntityID, ssoURL: environment.baseURL(of: "idp") + "/idp/profile/SAML2/Redirect/SSO",
            displayName: "SAMLHarness Test IdP", description: "The suite's mock SAML IdP (\(environment.profile.profile.name))",
            logoURL: environment.baseURL(of: "idp") + "/favicon.png")]
        if settings.listADFS {
            let adfs = ADFSServer(environment: environment)
            providers.append(CMIdentityProvider(
                entityID: adfs.entityID, ssoURL: environment.baseURL(of: "adfs") + ADFSServer.Path.ls,
                displayName: "SAMLHarness AD FS", description: "The suite's mock AD FS (SAML-P)",
                logoURL: environment.baseURL(of: "adfs") + "/adfs/portal/logo/logo.png"))
        }
        return providers
    }

    func token(_ prefix: String = "") -> String {
        prefix + environment.ids.next().drop { $0 == "_" }
    }

    /// The HS256 secret: derived from the circulation manager's private key (the SP key), so
    /// it is stable for a profile and unknown to clients.
    var tokenSecret: [UInt8] {
        MessageDigest.sha256.hash("samlharness circulation manager bearer token\n" + environment.profile.spKey.pem)
    }
}

/// A finished answer thrown out of a handler (a redirect with `error=`, an auth document 401).
struct CMAnswer: Error {
    let response: MockResponse
}
