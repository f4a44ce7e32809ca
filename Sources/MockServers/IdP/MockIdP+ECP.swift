import Foundation
import SAMLCore

extension MockIdP {
    /// The ECP endpoint (saml-ecp-v2.0 §2.3.3, Shibboleth's `/idp/profile/SAML2/SOAP/ECP`): a
    /// SOAP 1.1 envelope with the AuthnRequest the SP sent through the client, HTTP Basic
    /// authentication, and a SOAP answer whose `ecp:Response` header names the ACS URL the
    /// client must compare with the SP's `paos:Request responseConsumerURL`.
    func ecp(_ request: MockRequest) async throws -> MockResponse {
        guard request.method == "POST" else { return .methodNotAllowed(request.method, allowed: ["POST"]) }
        if let fault = transportFault(for: request) { return fault }
        let envelope: SOAPEnvelope
        do {
            envelope = try SOAPBinding.parse(request.body)
        } catch {
            return soapFault(.client, "The request is not a SOAP 1.1 envelope: \(error)", status: 400)
                .annotated("idp.error", "ecp.envelope")
        }
        guard envelope.bodyName == "AuthnRequest", envelope.bodyNamespace == SAMLNamespace.protocol_ else {
            return soapFault(.client, "The SOAP Body holds \(envelope.bodyName), not a samlp:AuthnRequest", status: 400)
                .annotated("idp.error", "ecp.not-authnrequest")
        }
        let authnRequest: AuthnRequest
        do {
            authnRequest = try AuthnRequest(element: try XMLDocument(parsing: envelope.body).root)
        } catch {
            return soapFault(.client, "The AuthnRequest could not be read: \(error)", status: 400)
                .annotated("idp.error", "ecp.malformed")
        }
        let user: TestUser
        let charset: String
        switch authenticateBasic(request, missing: "ECP requires HTTP Basic authentication.", wrong: Self.wrongPasswordMessage) {
        case .refused(let response): return response
        case .user(let found, let foundCharset): (user, charset) = (found, foundCharset)
        }
        let pending: PendingSSO
        do {
            pending = try pendingSSO(for: authnRequest, relayState: nil, expectBinding: SAMLBindingURI.paos)
        } catch let error as IdPError {
            return soapFault(.client, error.message, status: 400).annotated("idp.error", error.code)
        }
        var sp = pending.sp
        if environment.knobs.contains(.acsOther) { sp.acsURL = otherACS(for: sp) }
        let xml = try responseXML(pending: pending, sp: sp, user: user, status: nil, session: nil)
        let body = ECPResponse(assertionConsumerServiceURL: sp.acsURL, response: xml).envelope()
        var response = MockResponse.xml(body, contentType: SOAPBinding.contentType)
        response.delivery = environment.faultDelivery
        response.annotations["idp.login"] = "ok"
        response.annotations["idp.basic-charset"] = charset
        response.annotations["idp.acs"] = sp.acsURL
        if !environment.knobs.isEmpty { response.annotations["idp.knobs"] = environment.knobs.map(\.text).joined(separator: " ") }
        return response
    }

    func soapFault(_ code: SOAPFault.Code, _ message: String, status: Int) -> MockResponse {
        MockResponse.xml(SOAPFault(code: code, string: message).envelope(), status: status,
                         contentType: SOAPBinding.contentType)
    }

    /// IdP-initiated SSO, Shibboleth's `Unsolicited/SSO?providerId=…&shire=…&target=…`
    /// (`target` becomes the RelayState). The Response has no InResponseTo.
    func unsolicited(_ request: MockRequest) async throws -> MockResponse {
        guard let providerId = request.queryValue("providerId"), !providerId.isEmpty else {
            throw IdPError.badRequest("unsolicited.provider-missing", "IdP-initiated SSO needs ?providerId=<SP entityID> (and optionally shire=<ACS URL>, target=<RelayState>).")
        }
        if let fault = transportFault(for: request) { return fault }
        let sp = try resolveSP(entityID: providerId, requestedACS: request.queryValue("shire"), acsIndex: nil,
                               binding: SAMLBindingURI.httpPost)
        let pending = PendingSSO(sp: sp, requestID: nil, relayState: request.queryValue("target"), forceAuthn: false,
                                 isPassive: false, nameIDFormat: nil)
        var answer = try await begin(pending, request: request)
        answer.delivery = environment.faultDelivery
        return answer
    }
}
