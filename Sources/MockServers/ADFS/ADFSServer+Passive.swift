import Foundation
import SAMLCore

extension ADFSServer {
    /// The passive sign-in in progress: which trust, which AuthnRequest (SP-initiated), which
    /// RelayState. Carried in the URL the forms page posts back to, as AD FS carries it.
    struct PassiveContext {
        var rp: ADFSRelyingParty?
        var requestID: String?
        var requestedNameIDFormat: String?
        var relayState: String?
        var forceAuthn = false
    }

    /// `/adfs/ls/IdpInitiatedSignOn.aspx`. GET: the sign-on page (no trust chosen), the forms
    /// sign-in (`?loginToRp=` or `?RelayState=RPID%3D…%26RelayState%3D…`, AD FS 2.0 RU3
    /// and later), or, signed in, the auto-post to the trust's ACS. POST: the sign-on page's
    /// choice (`SignInOtherSite` + `RelyingParty`), or the forms sign-in (`UserName`,
    /// `Password`, `AuthMethod=FormsAuthentication`).
    func idpInitiatedSignOn(_ request: MockRequest) -> MockResponse {
        guard request.method == "GET" || request.method == "POST" || request.method == "HEAD" else {
            return .methodNotAllowed(request.method, allowed: ["GET", "POST"])
        }
        if let fault = transportFault(annotationPrefix: "adfs") { return fault }
        var answer = idpInitiated(request)
        if request.method != "POST" { answer.delivery = environment.faultDelivery }
        return answer
    }

    private func idpInitiated(_ request: MockRequest) -> MockResponse {
        var context = PassiveContext()
        var identifier = request.queryValue("loginToRp")
        if let relayState = request.queryValue("RelayState") {
            // AD FS's IdP-initiated RelayState: `RPID=<identifier>&RelayState=<target>`, itself URL-encoded.
            let inner = QueryParameter.parse(relayState)
            if let rpid = inner.first(named: "RPID")?.value {
                identifier = rpid
                context.relayState = inner.first(named: "RelayState")?.value
            }
        }
        let session = currentSession(request)
        if request.method == "POST", request.formValue("UserName") == nil {
            // The sign-on page's choice.
            if request.formValue("SignInOtherSite") != nil || request.formValue("SignInIdpSite") == nil {
                identifier = request.formValue("RelyingParty") ?? identifier
            } else {
                identifier = nil
            }
        }
        if let identifier {
            guard let rp = relyingParty(identifier: identifier) else {
                return unknownRelyingParty(identifier, request: request)
            }
            context.rp = rp
        }
        let action = signOnURL(context)
        if request.method == "POST", request.formValue("UserName") != nil {
            return formsSignIn(request, context: context, action: action)
        }
        guard let session else {
            if context.rp == nil && request.method != "POST" {
                return .html(ADFSPages.signOn(relyingParties: relyingParties, signedIn: false, action: Path.idpInitiatedSignOn, version: pages))
                    .annotated("adfs.page", "idp-initiated-sign-on")
            }
            if wantsWIA(request) {
                // A WIA-capable user agent signs in with Windows authentication, not the form.
                return redirectToWIA(query: action.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init),
                                     returnTo: Path.idpInitiatedSignOn)
            }
            return .html(ADFSPages.formsSignIn(action: action, error: nil, username: "", version: pages))
                .annotated("adfs.page", "forms-sign-in")
        }
        guard context.rp != nil else {
            return .html(ADFSPages.signOn(relyingParties: relyingParties, signedIn: true, action: Path.idpInitiatedSignOn, version: pages))
                .annotated("adfs.page", "signed-in")
        }
        return issueResponse(context: context, session: session)
    }

    /// The IdP-initiated page's URL for a context: `loginToRp=` plus the RPID RelayState.
    private func signOnURL(_ context: PassiveContext) -> String {
        guard let rp = context.rp else { return Path.idpInitiatedSignOn }
        if let relayState = context.relayState {
            let inner = "RPID=" + PercentEncoding.queryComponentEncode(rp.identifier) + "&RelayState="
                + PercentEncoding.queryComponentEncode(relayState)
            return Path.idpInitiatedSignOn + "?RelayState=" + PercentEncoding.queryComponentEncode(inner)
        }
        return Path.idpInitiatedSignOn + "?loginToRp=" + PercentEncoding.queryComponentEncode(rp.identifier)
    }

    /// `/adfs/ls/`: SAML-P. A GET with an HTTP-Redirect `SAMLRequest` (saml-bindings-2.0-os
    /// §3.4) from a known trust starts (or, signed in, completes) the sign-in; the forms page
    /// posts back to the same URL.
    func samlProtocol(_ request: MockRequest) -> MockResponse {
        guard request.queryValue("SAMLRequest") != nil else {
            if request.queryValue("wa") != nil {
                return errorPage(status: 400, relyingParty: nil, detail: "WS-Federation passive requests (wa=…) are not implemented by the mock AD FS.", request: request)
                    .annotated("adfs.error", "ws-federation")
            }
            return errorPage(status: 400, relyingParty: nil, detail: "No SAMLRequest in the query: /adfs/ls/ takes SAML-P AuthnRequests by HTTP-Redirect (saml-bindings-2.0-os §3.4).", request: request)
                .annotated("adfs.error", "no-request")
        }
        if let fault = transportFault(annotationPrefix: "adfs") { return fault }
        let authnRequest: AuthnRequest
        do {
            let xml = try RedirectBinding.decode(request.rawQuery ?? "").xml
            let document = try XMLDocument(parsing: xml)
            authnRequest = try AuthnRequest(element: document.root)
        } catch {
            return errorPage(status: 400, relyingParty: nil, detail: "MSIS7015: This request does not contain the expected protocol message or incorrect protocol parameters were found according to the HTTP SAML protocol bindings. (\(error))", request: request)
                .annotated("adfs.error", "request-malformed")
        }
        let issuer = authnRequest.issuer?.value ?? ""
        guard let rp = relyingParty(identifier: issuer) else { return unknownRelyingParty(issuer, request: request) }
        if let acs = authnRequest.assertionConsumerServiceURL, !rp.acsLocations.contains(where: { acs.hasPrefix($0) }) {
            return errorPage(status: 400, relyingParty: rp.identifier, detail: "MSIS3200: No AssertionConsumerService is configured on the relying party trust '\(rp.identifier)' that is a prefix match of the AssertionConsumerServiceUrl '\(acs)' specified by the request.", request: request)
                .annotated("adfs.error", "acs-unknown").annotated("adfs.rp", rp.identifier)
        }
        var context = PassiveContext(rp: rp, requestID: authnRequest.id,
                                     requestedNameIDFormat: authnRequest.nameIDPolicy?.format,
                                     relayState: request.queryValue("RelayState"), forceAuthn: authnRequest.forceAuthn ?? false)
        if let acs = authnRequest.assertionConsumerServiceURL { context.rp?.acs = acs }
        let action = request.target.hasPrefix("/") ? request.target : Path.ls + "?" + (request.rawQuery ?? "")
        if request.method == "POST", request.formValue("UserName") != nil {
            return formsSignIn(request, context: context, action: action)
        }
        if let session = currentSession(request), !context.forceAuthn {
            var answer = issueResponse(context: context, session: session)
            answer.delivery = environment.faultDelivery
            return answer
        }
        if wantsWIA(request) { return redirectToWIA(query: request.rawQuery, returnTo: Path.ls) }
        var page = MockResponse.html(ADFSPages.formsSignIn(action: action, error: nil, username: "", version: pages))
            .annotated("adfs.page", "forms-sign-in").annotated("adfs.rp", rp.identifier)
        page.delivery = environment.faultDelivery
        return page
    }

    /// The forms sign-in posted back: a wrong password shows the page again with AD FS's
    /// error text; a right one sets the session cookies and redirects (POST-redirect-GET) to
    /// the same URL, which now answers with the auto-post form.
    private func formsSignIn(_ request: MockRequest, context: PassiveContext, action: String) -> MockResponse {
        let username = request.formValue("UserName") ?? ""
        let method = request.formValue("AuthMethod") ?? ""
        guard let password = request.formValue("Password") else {
            // `form#options` (2019 carries the user name in it) chose no method: the page again.
            return .html(ADFSPages.formsSignIn(action: action, error: nil, username: username, version: pages))
                .annotated("adfs.page", "forms-sign-in")
        }
        guard method.isEmpty || method == "FormsAuthentication" else {
            return .html(ADFSPages.formsSignIn(action: action, error: "The selected authentication method is not available.", username: username,
                                               version: pages))
                .annotated("adfs.login", "bad-method")
        }
        guard let user = environment.profile.profile.user(named: username), user.password == password else {
            let failures = state.recordFailure(username)
            return .html(ADFSPages.formsSignIn(action: action, error: environment.profile.profile.adfs.badPasswordMessage,
                                               username: username, version: pages))
                .annotated("adfs.login", environment.profile.profile.user(named: username) == nil ? "unknown-user" : "bad-password")
                .annotated("adfs.failures", String(failures))
        }
        state.clearFailures(username)
        let now = environment.clock.now()
        let key = token()
        let session = ADFSSession(user: user, authnInstant: now, sessionIndex: "_" + token())
        state.save(session: session, key: key)
        // ForceAuthn: the redirect would ask again; answer at once.
        var response = context.forceAuthn ? issueResponse(context: context, session: session) : MockResponse.redirect(action)
        response.setCookie(SetCookie(name: CookieName.auth, value: key, path: CookieName.path, secure: false))
        response.setCookie(SetCookie(name: CookieName.authenticated,
                                     value: Data(SAMLDateTime.string(from: now).utf8).base64EncodedString(),
                                     path: CookieName.path))
        return response.annotated("adfs.login", "ok").annotated("adfs.user", user.username)
    }

    /// The version of the sign-in pages served (knob `adfs-pages`).
    var pages: ADFSPages.Version { ADFSPages.version(environment.knobs) }

    func currentSession(_ request: MockRequest) -> ADFSSession? {
        request.cookie(CookieName.auth).flatMap { state.session($0) }
    }

    /// The auto-post form with a signed SAML 2.0 Response for the trust (the IdP's builder, so
    /// every assertion knob applies), the claims named by claim type.
    private func issueResponse(context: PassiveContext, session: ADFSSession) -> MockResponse {
        guard let rp = context.rp else { return .notFound(Path.idpInitiatedSignOn) }
        let knobs = environment.knobs
        let builder = IdPResponseBuilder(profile: environment.profile, knobs: knobs, idpEntityID: entityID,
                                         clock: environment.clock, ids: environment.ids)
        var claims: [String: [String]] = [:]
        for claim in ADFSClaims.claims(for: session.user, rp: rp, roleOrder: ADFSClaims.roleOrder(knobs)) { claims[claim.type] = claim.values }
        let user = TestUser(username: session.user.username, password: "",
                            nameID: session.user.nameID ?? ADFSClaims.upn(of: session.user), attributes: claims)
        let sp = KnownSP(entityID: rp.identifier, acsURL: rp.acs, encryptionCertificate: nil, fromMetadata: true,
                         singleLogoutURL: nil)
        let login = IssuedLogin(user: user, sp: sp, inResponseTo: context.requestID,
                                requestedNameIDFormat: context.requestedNameIDFormat, authnInstant: session.authnInstant,
                                sessionIndex: session.sessionIndex, status: nil)
        let xml: String
        do {
            xml = try builder.response(for: login)
        } catch {
            return errorPage(status: 500, relyingParty: rp.identifier, detail: "MSIS7012: An error occurred while processing the request: \(error)", request: nil)
        }
        var relayState = context.relayState
        if knobs.contains(.relayStateDropped) { relayState = nil }
        if knobs.contains(.relayStateAltered) { relayState = (relayState ?? "") + "-altered" }
        var response = MockResponse.html(ADFSPages.autoPost(action: rp.acs, encodedMessage: PostBinding.encode(Array(xml.utf8)),
                                                            relayState: relayState))
        response.setCookie(SetCookie(name: CookieName.loopDetection, value: Data((SAMLDateTime.string(from: environment.clock.now()) + "\\1").utf8).base64EncodedString(),
                                     path: CookieName.path))
        if !knobs.isEmpty { response.annotations["adfs.knobs"] = knobs.map(\.text).joined(separator: " ") }
        return response.annotated("adfs.result", "response").annotated("adfs.rp", rp.identifier)
            .annotated("adfs.token", "saml20").annotated("adfs.acs", rp.acs).annotated("adfs.user", session.user.username)
    }

    private func unknownRelyingParty(_ identifier: String, request: MockRequest) -> MockResponse {
        errorPage(status: 400, relyingParty: identifier,
                  detail: "MSIS7007: The requested relying party trust '\(identifier)' is unspecified or unsupported. If a relying party trust was specified, it is possible that you do not have permission to access the trust relying party. Contact your administrator for details.",
                  request: request)
            .annotated("adfs.error", "unknown-rp").annotated("adfs.rp", identifier)
    }

    func errorPage(status: Int, relyingParty: String?, detail: String, request: MockRequest?) -> MockResponse {
        let activity = ADFSPages.activityID(from: token())
        return MockResponse.html(ADFSPages.error(activityID: activity, relyingParty: relyingParty, detail: detail,
                                                 time: environment.clock.now(), userAgent: request?.header("User-Agent") ?? "",
                                                 version: pages),
                                 status: status)
    }
}
