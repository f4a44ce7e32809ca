import Foundation
import SAMLCore

extension ADFSServer {
    /// `POST /adfs/services/trust/{13,2005}/usernamemixed`: a RequestSecurityToken with a
    /// UsernameToken → an RSTR carrying a signed SAML 1.1 (default) or SAML 2.0 assertion, or
    /// a SOAP 1.2 fault. Checks run in the order WCF and AD FS run them: the message must
    /// decode; the security header (timestamp, then the password); the Action; the RST body;
    /// the relying party; the token type.
    func usernameMixed(_ request: MockRequest, version: WSTrustVersion) -> MockResponse {
        guard request.method == "POST" else { return .methodNotAllowed(request.method, allowed: ["POST"]) }
        let contentType = request.header("Content-Type") ?? ""
        guard contentType.lowercased().hasPrefix("application/soap+xml") else {
            // WCF's answer when a SOAP 1.1 (text/xml) or form post reaches a SOAP 1.2 binding.
            return MockResponse.text("Cannot process the message because the content type '\(contentType)' was not the expected type 'application/soap+xml; charset=utf-8'.",
                                     status: 415).annotated("adfs.fault", "content-type").annotated("adfs.trust", version.rawValue)
        }
        if let fault = transportFault(annotationPrefix: "adfs") { return fault }
        var response: MockResponse
        var relatesTo: String?
        do throws(WSTrustFault) {
            let rst = try WSTrustRequest(body: request.body, version: version)
            relatesTo = rst.messageID
            response = try issue(rst, version: version)
        } catch {
            response = MockResponse.xml(WSTrustEnvelope.fault(error, relatesTo: relatesTo, now: environment.clock.now()),
                                        status: error.httpStatus, contentType: WSTrustEnvelope.contentType)
                .annotated("adfs.fault", error.annotation).annotated("adfs.fault-detail", error.detail)
        }
        response.delivery = environment.faultDelivery
        if !environment.knobs.isEmpty { response.annotations["adfs.knobs"] = environment.knobs.map(\.text).joined(separator: " ") }
        return response.annotated("adfs.trust", version.rawValue)
    }

    private func issue(_ rst: WSTrustRequest, version: WSTrustVersion) throws(WSTrustFault) -> MockResponse {
        let settings = environment.profile.profile.adfs
        let now = environment.clock.now()
        // WS-Security: the security header and its timestamp (WSS 1.0 §10: Created/Expires,
        // judged with WCF's MaxClockSkew).
        guard rst.hasSecurityHeader else { throw .invalidSecurity("no wsse:Security header") }
        if let problem = rst.timestampProblem { throw .invalidSecurity(problem) }
        guard let created = rst.created else { throw .invalidSecurity("no wsu:Timestamp in the security header") }
        let skew = TimeInterval(settings.timestampSkew)
        if created.timeIntervalSince(now) > skew {
            throw .invalidSecurity("wsu:Created \(SAMLDateTime.string(from: created)) is in the future (now \(SAMLDateTime.string(from: now)), \(Int(skew)) s skew allowed)")
        }
        if let expires = rst.expires, now.timeIntervalSince(expires) > skew {
            throw .invalidSecurity("wsu:Expires \(SAMLDateTime.string(from: expires)) has passed (now \(SAMLDateTime.string(from: now)), \(Int(skew)) s skew allowed)")
        }
        guard let username = rst.username, let password = rst.password else {
            throw .invalidSecurity("no wsse:UsernameToken with Username and Password")
        }
        if let type = rst.passwordType, type != WSTrustNamespace.passwordText {
            throw .invalidSecurity("wsse:Password Type \(type); usernamemixed takes PasswordText only")
        }
        if case .fault(.failedAuthentication) = adfsKnobFault { throw .failedAuthentication("knob adfs-fault=failed-authentication") }
        guard let user = environment.profile.profile.user(named: username), user.password == password else {
            _ = state.recordFailure(username)
            let known = environment.profile.profile.user(named: username) != nil
            throw .failedAuthentication(known ? "wrong password for \(username)" : "unknown user \(username)")
        }
        state.clearFailures(username)
        // WS-Addressing: the Action must be this endpoint's.
        guard rst.action == version.requestAction else { throw .actionNotSupported(rst.action ?? "") }
        guard rst.hasRST else {
            throw .invalidRequest(version, "the Body holds \(rst.bodyElement ?? "nothing"), not a \(version.namespace) RequestSecurityToken")
        }
        if let type = rst.requestType, type != version.issueRequestType {
            throw .invalidRequest(version, "RequestType \(type); only Issue is supported")
        }
        if case .fault(.invalidRequest) = adfsKnobFault { throw .invalidRequest(version, "knob adfs-fault=invalid-request") }
        guard let appliesTo = rst.appliesTo, !appliesTo.isEmpty else {
            throw .invalidRequest(version, "no wsp:AppliesTo/wsa:EndpointReference/wsa:Address")
        }
        guard let rp = relyingParty(appliesTo: appliesTo) else { throw .unknownScope(version, appliesTo: appliesTo) }
        if case .fault(.requestFailed) = adfsKnobFault { throw .requestFailed(version, "knob adfs-fault=request-failed") }
        guard let requested = rst.requestedKind else {
            throw .invalidRequest(version, "TokenType \(rst.tokenType ?? "") is not one AD FS issues (SAML 1.1 or SAML 2.0)")
        }
        let kind: ADFSIssuedToken.Kind = switch adfsKnobTokenType {
        case .saml11?: .saml11
        case .saml20?: .saml20
        case nil: requested ?? .saml11
        }
        let token: ADFSIssuedToken
        do {
            token = try tokenIssuer.issue(kind, user: user, rp: rp)
        } catch {
            throw .requestFailed(version, "signing failed: \(error)")
        }
        let xml = WSTrustEnvelope.response(token, appliesTo: appliesTo, version: version, relatesTo: rst.messageID, now: now)
        return MockResponse.xml(xml, contentType: WSTrustEnvelope.contentType)
            .annotated("adfs.login", "ok").annotated("adfs.token", kind.rawValue).annotated("adfs.rp", rp.identifier)
            .annotated("adfs.user", user.username)
    }

    var tokenIssuer: ADFSTokenIssuer {
        ADFSTokenIssuer(environment: environment, issuer: entityID,
                        lifetime: TimeInterval(environment.profile.profile.adfs.tokenLifetime))
    }

    /// The `adfs-fault` knob, if on.
    var adfsKnobFault: ADFSKnob? {
        for case .adfs(let knob) in environment.knobs {
            if case .fault = knob { return knob }
        }
        return nil
    }

    var adfsKnobTokenType: ADFSKnob.TokenType? {
        for case .adfs(let knob) in environment.knobs {
            if case .tokenType(let type) = knob { return type }
        }
        return nil
    }
}
