import Foundation
import SAMLCore

extension MockIdP {
    /// Single logout (saml-profiles-2.0-os §4.4), HTTP-Redirect: ends the IdP session and
    /// answers the SP's SingleLogoutService with a signed LogoutResponse when its metadata has
    /// one, else a "logged out" page.
    func singleLogout(_ request: MockRequest) throws -> MockResponse {
        var cookies = [SetCookie.expire(CookieName.session, path: cookiePath)]
        if let key = request.cookie(CookieName.session) { state.endSession(key) }
        if environment.profile.profile.personality == .simplesamlphp {
            cookies.append(.expire(CookieName.sspAuthToken, path: "/"))
        }
        guard request.queryValue("SAMLRequest") != nil else {
            var page = errorPage(status: 200, title: "Logout successful", message: "You have been logged out of the identity provider.")
            cookies.forEach { page.setCookie($0) }
            return page.annotated("idp.logout", "local")
        }
        let message: RedirectMessage
        let logoutRequest: LogoutRequest
        do {
            message = try RedirectBinding.decode(request.rawQuery ?? "")
            logoutRequest = try LogoutRequest(element: try XMLDocument(parsing: message.xml).root)
        } catch {
            throw IdPError.badRequest("logout.malformed", "The LogoutRequest could not be read: \(error)")
        }
        let spEntityID = logoutRequest.issuer?.value ?? ""
        let slo = knownSP(spEntityID)?.spSSODescriptor?
            .singleLogoutService(binding: SAMLBindingURI.httpRedirect)
        guard let slo else {
            var page = errorPage(status: 200, title: "Logout successful",
                                 message: "You have been logged out. (No SingleLogoutService is known for \(spEntityID.isEmpty ? "this SP" : spEntityID), so there is nothing to return to.)")
            cookies.forEach { page.setCookie($0) }
            return page.annotated("idp.logout", "no-slo-endpoint")
        }
        let destination = slo.responseLocation ?? slo.location
        let logoutResponse = LogoutResponse.make(issuer: environment.idpEntityID, destination: destination,
                                                 inResponseTo: logoutRequest.id, clock: environment.clock, ids: environment.ids)
        let url = try RedirectBinding.url(destination: destination, message: Array(logoutResponse.xml().utf8), kind: .response,
                                          relayState: message.relayState,
                                          signer: RedirectSigner(key: environment.profile.idpKey))
        var response = MockResponse.redirect(url)
        cookies.forEach { response.setCookie($0) }
        return response.annotated("idp.logout", "response")
    }

    /// SimpleSAMLphp's `loginuserpass.php?AuthState=…`: the same flow as Shibboleth's
    /// execution pages, addressed by AuthState.
    func sspLoginPage(_ request: MockRequest) async throws -> MockResponse {
        guard request.queryValue("AuthState") != nil || request.formValue("AuthState") != nil else {
            throw IdPError.badRequest("flow.authstate-missing", "Missing AuthState parameter.")
        }
        return try await flowStep(request)
    }

    /// The IdP's metadata (saml-metadata-2.0-os §2.4.3): its signing certificate (the expired
    /// one when `expired-certificate` is on), SSO endpoints for Redirect, POST and SOAP (ECP),
    /// and SLO.
    func metadataResponse() -> MockResponse {
        MockResponse.xml(Self.metadataXML(environment: environment), contentType: "application/samlmetadata+xml")
    }

    public static func metadataXML(environment: MockEnvironment) -> String {
        let base = environment.baseURL(of: "idp")
        let profile = environment.profile
        let certificate = environment.knobs.contains(.expiredCertificate) ? profile.expiredIdPCertificate : profile.idpCertificate
        let ssp = profile.profile.personality == .simplesamlphp
        var sso = [
            Endpoint(binding: SAMLBindingURI.httpRedirect, location: base + Path.redirectSSO),
            Endpoint(binding: SAMLBindingURI.httpPost, location: base + Path.postSSO),
            Endpoint(binding: SAMLBindingURI.soap, location: base + Path.ecp),
        ]
        if ssp {
            sso.insert(Endpoint(binding: SAMLBindingURI.httpRedirect, location: base + Path.sspSSO), at: 0)
        }
        let descriptor = IDPSSODescriptor(
            keyDescriptors: [KeyDescriptor(use: .signing, certificates: [certificate.base64DER])],
            singleLogoutServices: [Endpoint(binding: SAMLBindingURI.httpRedirect, location: base + (ssp ? Path.sspSLO : Path.slo))],
            nameIDFormats: [NameIDFormat.transient, NameIDFormat.persistent, NameIDFormat.emailAddress],
            singleSignOnServices: sso)
        return EntityDescriptor(entityID: environment.idpEntityID, idpSSODescriptor: descriptor).xml()
    }
}
