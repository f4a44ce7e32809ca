import Foundation
import SAMLCore

/// SAML Web SSO as the circulation manager's `SAMLController` runs it.
extension CirculationManager {
    static let relayLibrary = "library_short_name"
    static let relayProvider = "provider"
    static let relayIdP = "idp_entity_id"

    /// `GET /SAML/saml_authenticate?provider=…&idp_entity_id=…&redirect_uri=…`
    /// (`SAMLController.saml_authentication_redirect`): every parameter is required; the
    /// RelayState is `redirect_uri` with `library_short_name`, `provider` and `idp_entity_id`
    /// added to its query, because the IdP hands nothing else back.
    func samlAuthenticate(_ request: MockRequest) throws -> MockResponse {
        for name in [Self.relayProvider, Self.relayIdP, "redirect_uri"] where (request.queryValue(name) ?? "").isEmpty {
            throw CMProblem.samlInvalidRequest.detailed("Required parameter \(name) is missing", code: "saml.parameter-missing")
        }
        let provider = request.queryValue(Self.relayProvider)!
        let entityID = request.queryValue(Self.relayIdP)!
        let redirectURI = try CMRedirectURI.check(request.queryValue("redirect_uri")!)
        guard provider == Self.providerName else {
            // The real controller sends a provider lookup failure back to redirect_uri in `error=`.
            throw redirectWithError(redirectURI, CMProblem.unknownProvider.detailed(
                "No SAML provider named \(provider); this library has \(Self.providerName).", code: "saml.unknown-provider"))
        }
        guard let idp = identityProviders.first(where: { $0.entityID == entityID }) else {
            throw CMProblem.samlInvalidRequest.detailed(
                "No identity provider with entity ID \(entityID) is configured for this library; known: "
                    + identityProviders.map(\.entityID).joined(separator: ", "), code: "saml.unknown-idp")
        }
        let relayState = Self.addingQuery(redirectURI, [
            (Self.relayLibrary, settings.libraryShortName), (Self.relayProvider, provider), (Self.relayIdP, entityID),
        ])
        return try sendAuthnRequest(to: idp, relayState: relayState, purpose: .login, forceAuthn: false)
            .annotated("cm.sso", "redirect").annotated("cm.idp", idp.entityID)
    }

    /// An AuthnRequest by HTTP-Redirect (saml-bindings-2.0-os §3.4), unsigned like
    /// python3-saml's default, asking for the answer at the HTTP-POST ACS.
    func sendAuthnRequest(to idp: CMIdentityProvider, relayState: String, purpose: CMPendingLogin.Purpose,
                          forceAuthn: Bool) throws -> MockResponse {
        let authnRequest = AuthnRequest.make(issuer: Self.entityID(environment: environment), destination: idp.ssoURL,
                                             assertionConsumerServiceURL: base + Path.samlCallback,
                                             forceAuthn: forceAuthn ? true : nil,
                                             clock: environment.clock, ids: environment.ids)
        state.addPending(CMPendingLogin(requestID: authnRequest.id, relayState: relayState, idp: idp, purpose: purpose))
        let url = try RedirectBinding.url(destination: idp.ssoURL, message: Array(authnRequest.xml().utf8), kind: .request,
                                          relayState: relayState)
        return MockResponse.redirect(url).annotated("cm.request-id", authnRequest.id)
    }

    /// `POST /SAML/saml_callback` (`SAMLController.saml_authentication_callback`): finds the
    /// request the Response answers (strictly by InResponseTo; RelayState must come back
    /// unchanged, saml-bindings-2.0-os §3.5.3), validates it with ``SPValidator`` against the
    /// chosen IdP, and redirects to `redirect_uri?access_token=<JWT>&patron_info=<JSON>`.
    /// A Response that fails validation is sent back to `redirect_uri` with the problem in
    /// `error=`, as the real controller's `_redirect_with_error` does.
    func samlCallback(_ request: MockRequest) throws -> MockResponse {
        let message: PostMessage
        do {
            message = try PostBinding.decode(formBody: request.bodyText)
        } catch let error as BindingError {
            throw CMProblem.samlInvalidResponse.detailed(error.message, code: "encoding.invalid")
        }
        guard message.kind == .response else {
            throw CMProblem.samlInvalidResponse.detailed("The ACS expects SAMLResponse, not SAMLRequest.", code: "encoding.invalid")
        }
        guard let relayState = message.relayState, !relayState.isEmpty else {
            throw CMProblem.samlInvalidResponse.detailed("Required parameter RelayState is missing from the response body",
                                                         code: "relaystate.missing")
        }
        let inResponseTo: String?
        do {
            inResponseTo = try XMLDocument(parsing: message.xml).root.attribute("InResponseTo")
        } catch let error as XMLError {
            // Name what is wrong with the document (a DOCTYPE, entities, deep nesting, invalid
            // UTF-8…) rather than reporting it as a Response without InResponseTo.
            throw CMProblem.samlInvalidResponse.detailed("The SAMLResponse is not XML this circulation manager reads: \(error)",
                                                         code: error.reason.rawValue)
        }
        guard let inResponseTo, let pending = state.pending(requestID: inResponseTo) else {
            throw CMProblem.samlInvalidResponse.detailed(
                inResponseTo.map { "The Response answers request \($0), which this circulation manager did not send or already consumed." }
                    ?? "The Response has no InResponseTo; this circulation manager accepts no unsolicited Responses.",
                code: inResponseTo == nil ? "in-response-to.missing" : "in-response-to.unknown")
        }
        guard relayState == pending.relayState else {
            throw CMProblem.samlInvalidResponse.detailed(
                "The RelayState came back changed: sent \(pending.relayState), received \(relayState) (saml-bindings-2.0-os §3.5.3).",
                code: "relaystate.changed")
        }
        let redirectURI = Self.strippingRelayParameters(relayState)
        let configuration = SPValidator.Configuration(
            idpEntityID: pending.idp.entityID, idpKeys: [environment.profile.idpCertificate.publicKey],
            spEntityID: Self.entityID(environment: environment), acsURL: base + Path.samlCallback,
            requestID: pending.requestID, allowUnsolicited: false, clock: environment.clock, skew: settings.skew,
            signatureRequirement: .responseOrAssertion, decryptionKeys: [environment.profile.spKey],
            replayCache: state.replayCache)
        let assertion: ValidatedAssertion
        switch SPValidator(configuration: configuration).validate(message.xml) {
        case .success(let validated): assertion = validated
        case .failure(let failure):
            state.consumePending(pending.requestID)
            let problem = CMProblem.samlInvalidResponse.detailed("\(failure.code.rawValue): \(failure.description)",
                                                                  code: failure.code.rawValue)
            return redirectWithError(redirectURI, problem).response.annotated("cm.rejected", failure.code.rawValue)
        }
        state.consumePending(pending.requestID)
        let patron = Self.patronIdentifier(assertion)
        switch pending.purpose {
        case .login:
            return issueToken(patron: patron, idp: pending.idp, redirectURI: redirectURI)
        case .reverify(let ticket):
            return try reverified(ticket: ticket, patron: patron, next: redirectURI)
        }
    }

    /// A new credential and its bearer token; the Flask `session` cookie is set too.
    func issueToken(patron: String, idp: CMIdentityProvider, redirectURI: String) -> MockResponse {
        let now = environment.clock.now()
        let credential = CMCredential(id: token("cred-"), patron: patron, idpEntityID: idp.entityID,
                                      expires: now.addingTimeInterval(tokenLifetime))
        let sessionKey = token("sess-")
        state.addCredential(credential, sessionKey: sessionKey)
        let jwt = CMBearerToken(issuer: Self.providerName, credentialID: credential.id, issuedAt: now,
                                expires: credential.expires).encode(secret: tokenSecret)
        // `PatronData.to_response_parameters`: the SAML provider sets no personal name, so {}.
        let location = Self.addingQuery(redirectURI, [("access_token", jwt), ("patron_info", "{}")])
        var response = MockResponse.redirect(location)
        response.setCookie(SetCookie(name: Self.sessionCookie, value: sessionKey, path: "/"))
        return response.annotated("cm.accepted", patron).annotated("cm.idp", idp.entityID)
            .annotated("cm.credential", credential.id).annotated("cm.token-expires", SAMLDateTime.string(from: credential.expires))
    }

    /// The patron's permanent id as `SAMLSubjectUIDExtractor` picks it: eduPersonUniqueId,
    /// eduPersonTargetedID, eduPersonPrincipalName, uid, then the NameID.
    static func patronIdentifier(_ assertion: ValidatedAssertion) -> String {
        for name in ["eduPersonUniqueId", "eduPersonTargetedID", "eduPersonPrincipalName", "uid"] {
            if let value = assertion.attributes.first(where: { AttributeNaming.friendlyName(of: $0) == name })?.stringValues.first,
               !value.isEmpty {
                return value
            }
        }
        return assertion.nameID.value
    }

    /// The real controller's `_redirect_with_error`: `redirect_uri?error=<problem JSON>`.
    func redirectWithError(_ redirectURI: String, _ problem: CMProblem) -> CMAnswer {
        let response = MockResponse.redirect(Self.addingQuery(redirectURI, [("error", problem.jsonText)]))
            .annotated("cm.problem", problem.code).annotated("cm.explanation", problem.detail ?? problem.title)
        return CMAnswer(response: response)
    }

    /// `url` with `pairs` added to its query (before any fragment), form-encoded as Python's
    /// `urlencode` does.
    static func addingQuery(_ url: String, _ pairs: [(String, String)]) -> String {
        var head = url
        var fragment = ""
        if let hash = url.firstIndex(of: "#") {
            head = String(url[..<hash])
            fragment = String(url[hash...])
        }
        let query = QueryParameter.formEncoded(pairs.map { (name: $0.0, value: $0.1) })
        let separator = head.contains("?") ? (head.hasSuffix("?") || head.hasSuffix("&") ? "" : "&") : "?"
        return head + separator + query + fragment
    }

    /// `_get_redirect_uri`: the RelayState without the three parameters the controller added.
    static func strippingRelayParameters(_ relayState: String) -> String {
        guard let question = relayState.firstIndex(of: "?") else { return relayState }
        var rest = String(relayState[relayState.index(after: question)...])
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = String(rest[..<hash])
        }
        let kept = rest.split(separator: "&").filter { pair in
            let name = PercentEncoding.formDecode(String(pair.prefix { $0 != "=" }))
            return ![relayLibrary, relayProvider, relayIdP].contains(name)
        }
        let head = String(relayState[..<question])
        return (kept.isEmpty ? head : head + "?" + kept.joined(separator: "&")) + fragment
    }
}

/// The `redirect_uri` rules: an absolute URI (RFC 3986 §3) with a scheme a client can catch —
/// `http`, `https`, or an app's own scheme (`simplified-saml20://authenticated`, the
/// Library Simplified Android client's) — never `javascript:`, `data:`, `file:` or
/// `vbscript:`, and never CR, LF or other control characters (header injection into the
/// `Location` the callback sends).
enum CMRedirectURI {
    static let refusedSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob"]

    static func check(_ uri: String) throws -> String {
        if uri.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            throw CMProblem.samlInvalidRequest.detailed("redirect_uri contains a control character (CR, LF…); refused.",
                                                        code: "redirect-uri.control-character")
        }
        guard let colon = uri.firstIndex(of: ":") else {
            throw CMProblem.samlInvalidRequest.detailed("redirect_uri \(uri) is not an absolute URI (RFC 3986 §4.3).",
                                                        code: "redirect-uri.relative")
        }
        let scheme = uri[..<colon].lowercased()
        // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            throw CMProblem.samlInvalidRequest.detailed("redirect_uri \(uri) has no valid scheme (RFC 3986 §3.1).",
                                                        code: "redirect-uri.relative")
        }
        guard !refusedSchemes.contains(scheme) else {
            throw CMProblem.samlInvalidRequest.detailed("redirect_uri scheme \(scheme): is refused; use http(s) or an app scheme.",
                                                        code: "redirect-uri.scheme")
        }
        if scheme == "http" || scheme == "https" {
            guard let url = URL(string: uri), let host = url.host, !host.isEmpty else {
                throw CMProblem.samlInvalidRequest.detailed("redirect_uri \(uri) names no host.", code: "redirect-uri.relative")
            }
        }
        return uri
    }
}
