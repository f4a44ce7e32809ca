import Foundation
import SAMLCore

extension MockIdP {
    /// The SSO endpoints: a new AuthnRequest (HTTP-Redirect `SAMLRequest` query, or HTTP-POST
    /// form), or the next step of a login flow (`?execution=e1sN`).
    func sso(_ request: MockRequest) async throws -> MockResponse {
        if request.queryValue("execution") != nil {
            return try await flowStep(request)
        }
        let samlRequest: String?
        let relayState: String?
        let binding: String
        switch request.method {
        case "GET", "HEAD":
            samlRequest = request.queryValue("SAMLRequest")
            relayState = request.queryValue("RelayState")
            binding = SAMLBindingURI.httpRedirect
        case "POST":
            // Refused by size before anything is decoded, as the servlet container in front of
            // Shibboleth IdP refuses such a form (Tomcat's default maxPostSize: 2 MiB); an
            // AuthnRequest is a few kilobytes.
            guard request.body.count <= Self.maxFormBytes else {
                throw IdPError(status: 413, code: "request.too-large", title: "Form too large",
                               message: "The form body is \(request.body.count) bytes; this endpoint reads at most \(Self.maxFormBytes) (Tomcat's default maxPostSize). An AuthnRequest is a few kilobytes.")
            }
            samlRequest = request.formValue("SAMLRequest")
            relayState = request.formValue("RelayState")
            binding = SAMLBindingURI.httpPost
        default:
            return .methodNotAllowed(request.method, allowed: ["GET", "POST"])
        }
        guard samlRequest != nil else {
            throw IdPError.badRequest("request.missing", "No SAMLRequest in the \(binding == SAMLBindingURI.httpPost ? "form body" : "query"); this endpoint expects an AuthnRequest (saml-bindings-2.0-os §3.4.4 / §3.5.4).")
        }
        if let fault = transportFault(for: request) { return fault }
        let authnRequest = try decodeAuthnRequest(request, binding: binding)
        let pending = try pendingSSO(for: authnRequest, relayState: relayState, expectBinding: SAMLBindingURI.httpPost)
        var answer = try await begin(pending, request: request)
        answer.delivery = environment.faultDelivery(for: answer)
        if !pending.sp.fromMetadata {
            answer.annotations["idp.sp-unverified"] = "no metadata for \(pending.sp.entityID): answering at the request's ACS URL \(pending.sp.acsURL)"
            environment.logger.notice("no metadata for SP \(pending.sp.entityID); answering at the request's ACS URL \(pending.sp.acsURL)")
        }
        return answer
    }

    /// The largest form body the SSO endpoint reads (Tomcat's default maxPostSize, 2 MiB).
    static let maxFormBytes = 2 << 20

    func decodeAuthnRequest(_ request: MockRequest, binding: String) throws -> AuthnRequest {
        let xml: [UInt8]
        let deviations: [EncodingDeviation]
        do {
            if binding == SAMLBindingURI.httpRedirect {
                let message = try RedirectBinding.decode(request.rawQuery ?? "")
                (xml, deviations) = (message.xml, message.deviations)
            } else {
                let message = try PostBinding.decode(formBody: request.bodyText)
                (xml, deviations) = (message.xml, message.deviations)
            }
        } catch {
            throw IdPError.badRequest("request.encoding", "The SAMLRequest could not be decoded: \(error)")
        }
        // When the lenient decoder had to repair the value, say how, beside what broke.
        let repaired = deviations.isEmpty ? ""
            : " (the SAMLRequest value was damaged: " + deviations.map { "\($0.code): \($0.message)" }.joined(separator: "; ") + ")"
        do {
            let document = try XMLDocument(parsing: xml)
            guard document.root.is("AuthnRequest", SAMLNamespace.protocol_) else {
                throw IdPError.badRequest("request.not-authnrequest", "The SAMLRequest is a \(document.root.localName), not an AuthnRequest.\(repaired)")
            }
            return try AuthnRequest(element: document.root)
        } catch let error as IdPError {
            throw error
        } catch {
            throw IdPError.badRequest("request.malformed", "The AuthnRequest could not be read: \(error)\(repaired)")
        }
    }

    /// Who the request is from and where the answer goes, checked against metadata when
    /// there is any (saml-profiles-2.0-os §4.1.4.1: the ACS URL must belong to the SP).
    func pendingSSO(for authnRequest: AuthnRequest, relayState: String?, expectBinding: String) throws -> PendingSSO {
        guard let issuer = authnRequest.issuer?.value, !issuer.isEmpty else {
            throw IdPError.badRequest("request.issuer-missing", "The AuthnRequest has no Issuer; the IdP cannot tell which SP sent it (saml-profiles-2.0-os §4.1.4.1).")
        }
        let sp = try resolveSP(entityID: issuer, requestedACS: authnRequest.assertionConsumerServiceURL,
                               acsIndex: authnRequest.assertionConsumerServiceIndex, binding: expectBinding)
        return PendingSSO(sp: sp, requestID: authnRequest.id, relayState: relayState,
                          forceAuthn: authnRequest.forceAuthn ?? false, isPassive: authnRequest.isPassive ?? false,
                          nameIDFormat: authnRequest.nameIDPolicy?.format)
    }

    /// The metadata the IdP knows for `entityID`: explicit metadata (`--sp-metadata`, the
    /// profile's) first, then the suite's own mock SP and circulation manager. Theirs is built
    /// only when asked for (issue 25's profile: it was built for every AuthnRequest).
    func knownSP(_ entityID: String) -> EntityDescriptor? {
        if let explicit = environment.explicitSPMetadata.first(where: { $0.entityID == entityID }) { return explicit }
        if entityID == environment.spEntityID { return MockSP.metadata(environment: environment) }
        if entityID == CirculationManager.entityID(environment: environment) {
            return CirculationManager.metadata(environment: environment)
        }
        return nil
    }

    func resolveSP(entityID: String, requestedACS: String?, acsIndex: Int?, binding: String) throws -> KnownSP {
        let descriptor = knownSP(entityID)
        guard let descriptor, let sp = descriptor.spSSODescriptor else {
            guard environment.explicitSPMetadata.isEmpty else {
                throw IdPError(status: 400, code: "sp.unknown", title: "Web Login Service - Unsupported Request",
                               message: "The application you have accessed is not registered for use with this service: no metadata for \(entityID).")
            }
            guard let requestedACS, !requestedACS.isEmpty else {
                throw IdPError.badRequest("request.acs-missing", "No metadata for \(entityID) and the AuthnRequest names no AssertionConsumerServiceURL, so there is nowhere to send the Response.")
            }
            return KnownSP(entityID: entityID, acsURL: requestedACS, encryptionCertificate: nil, fromMetadata: false,
                           singleLogoutURL: nil)
        }
        let acs: String
        if let requestedACS {
            guard sp.assertionConsumerServices.contains(where: { $0.location == requestedACS }) else {
                throw IdPError.badRequest("request.acs-unknown", "The AssertionConsumerServiceURL \(requestedACS) is not in the metadata of \(entityID) (saml-profiles-2.0-os §4.1.4.1).")
            }
            acs = requestedACS
        } else if let acsIndex {
            guard let endpoint = sp.assertionConsumerServices.first(where: { $0.index == acsIndex }) else {
                throw IdPError.badRequest("request.acs-unknown", "No AssertionConsumerService with index \(acsIndex) in the metadata of \(entityID).")
            }
            acs = endpoint.location
        } else {
            let matching = sp.assertionConsumerServices.filter { $0.binding == binding }
            guard let endpoint = IndexedEndpoint.defaultEndpoint(in: matching) else {
                throw IdPError.badRequest("request.acs-unknown", "The metadata of \(entityID) has no AssertionConsumerService for \(binding).")
            }
            acs = endpoint.location
        }
        let encryption = sp.keyDescriptors.first { $0.use == .encryption } ?? sp.keyDescriptors.first { $0.isForEncryption }
        let certificate = try encryption?.certificates.first.map { try Certificate.cached(base64DER: $0) }
        let slo = sp.singleLogoutServices.first { $0.binding == SAMLBindingURI.httpRedirect }?.location
        return KnownSP(entityID: entityID, acsURL: acs, encryptionCertificate: certificate, fromMetadata: true,
                       singleLogoutURL: slo)
    }

    /// The ACS the `acs-other` knob sends the Response to instead: another ACS of the same SP.
    func otherACS(for sp: KnownSP) -> String {
        if let descriptor = knownSP(sp.entityID)?.spSSODescriptor,
           let other = descriptor.assertionConsumerServices.first(where: {
               $0.location != sp.acsURL && $0.binding != SAMLBindingURI.paos && $0.binding != SAMLBindingURI.httpArtifact
           }) {
            return other.location
        }
        if sp.acsURL.hasSuffix("/SAML2/POST") { return sp.acsURL + "-SimpleSign" }
        return sp.acsURL + "-other"
    }

    /// Starts (or short-cuts) the login for a pending request: IdP session reuse, IsPassive,
    /// then the profile's login mode.
    func begin(_ pending: PendingSSO, request: MockRequest) async throws -> MockResponse {
        let profile = environment.profile.profile
        if let key = request.cookie(CookieName.session), let session = state.session(key),
           profile.idp.sessionReuse, !pending.forceAuthn {
            return try await afterAuthentication(user: session.user, pending: pending, request: request,
                                                 sessionKey: key, reused: true)
        }
        if pending.isPassive {
            let status = Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.noPassive]),
                                message: "IsPassive was set and the user has no session at the IdP")
            return try answer(pending: pending, user: nil, status: status, setCookies: [])
                .annotated("idp.result", "no-passive")
        }
        switch profile.idp.login {
        case .basic:
            return try await basicLogin(pending: pending, request: request)
        case .form:
            return startFlow(pending: pending, request: request)
        }
    }
}
