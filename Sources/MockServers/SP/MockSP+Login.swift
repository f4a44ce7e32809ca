import Foundation
import SAMLCore

extension MockSP {
    /// `/secure`: the session's secret, or the start of SSO — a PAOS request for a client that
    /// advertises ECP, else a redirect to the IdP.
    func protectedResource(_ request: MockRequest) throws -> MockResponse {
        if let key = request.cookie(sessionCookieName), let session = state.session(key) {
            // `sp-session-ends`: the session served its page once; this visit finds it over.
            if !environment.knobs.contains(.spSessionEnds) || !state.useOnce(key) {
                return securePage(session, path: request.path).annotated("sp.session", "valid")
            }
            let target = base + request.target
            var again = try redirectToIdP(target: target, forceAuthn: false, isPassive: false).annotated("sp.sso", "redirect")
            again.setCookie(.expire(sessionCookieName))
            return again.annotated("sp.session", "ended")
        }
        let target = base + request.target
        if PAOSHTTP.announcesECP(accept: request.header("Accept"), paos: request.header(PAOSHTTP.paosHeaderName)) {
            return paosRequest(target: target).annotated("sp.sso", "paos")
        }
        return try redirectToIdP(target: target, forceAuthn: false, isPassive: false).annotated("sp.sso", "redirect")
    }

    /// `/Shibboleth.sso/Login?target=…&forceAuthn=1&isPassive=1` (Shibboleth SP's SessionInitiator).
    func login(_ request: MockRequest) throws -> MockResponse {
        let target = try checkedTarget(request.queryValue("target"), parameter: "target").flatMap { sameOrigin($0) }
            ?? base + Path.secure
        return try redirectToIdP(target: target, forceAuthn: flag(request.queryValue("forceAuthn")),
                                 isPassive: flag(request.queryValue("isPassive")))
            .annotated("sp.sso", "redirect")
    }

    func flag(_ value: String?) -> Bool { value == "1" || value == "true" }

    /// `value`, refused when it holds a control character: every target the SP accepts ends up
    /// in a `Location` header, and RFC 9110 §5.5 field values carry no CR, LF or NUL (header
    /// injection; the transport would otherwise mangle the redirect into `…/secure  X-…`).
    func checkedTarget(_ value: String?, parameter: String) throws -> String? {
        guard let value, value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return value }
        throw SPError(status: 400, code: "target.control-character",
                      message: "The \(parameter) parameter contains a control character (CR, LF, NUL…); it would be echoed into the Location header, so it is refused.")
    }

    /// A target the SP will redirect to: a path or a URL on the SP itself (no open redirect).
    func sameOrigin(_ target: String) -> String? {
        if target.hasPrefix("/"), !target.hasPrefix("//") { return base + target }
        if target == base || target.hasPrefix(base + "/") || target.hasPrefix(base + "?") { return target }
        return nil
    }

    var idpSSOURL: String {
        let idpBase = environment.baseURL(of: "idp")
        return environment.profile.profile.personality == .simplesamlphp
            ? idpBase + MockIdP.Path.sspSSO : idpBase + MockIdP.Path.redirectSSO
    }

    /// An AuthnRequest by HTTP-Redirect (saml-bindings-2.0-os §3.4), RelayState `ss:mem:…`.
    func redirectToIdP(target: String, forceAuthn: Bool, isPassive: Bool) throws -> MockResponse {
        let acs = base + Path.acsPost
        let authnRequest = AuthnRequest.make(issuer: environment.spEntityID, destination: idpSSOURL,
                                             assertionConsumerServiceURL: acs,
                                             forceAuthn: forceAuthn ? true : nil, isPassive: isPassive ? true : nil,
                                             clock: environment.clock, ids: environment.ids)
        let pending = SPPendingRequest(requestID: authnRequest.id, relayState: token("ss:mem:"), target: target,
                                       acsURL: acs, nameIDFormat: authnRequest.nameIDPolicy?.format,
                                       created: environment.clock.now())
        state.add(pending)
        let url = try RedirectBinding.url(destination: idpSSOURL, message: Array(authnRequest.xml().utf8),
                                          kind: .request, relayState: pending.relayState)
        return MockResponse.redirect(url).annotated("sp.request-id", authnRequest.id)
    }

    /// A PAOS request (saml-ecp-v2.0 §2.3.2): the AuthnRequest for the ECP ACS in a SOAP
    /// envelope with `paos:Request` and `ecp:Request` header blocks.
    func paosRequest(target: String) -> MockResponse {
        let acs = base + Path.acsECP
        let authnRequest = AuthnRequest.make(issuer: environment.spEntityID, destination: nil,
                                             assertionConsumerServiceURL: acs, protocolBinding: SAMLBindingURI.paos,
                                             clock: environment.clock, ids: environment.ids)
        let pending = SPPendingRequest(requestID: authnRequest.id, relayState: token("ss:mem:"), target: target,
                                       acsURL: acs, nameIDFormat: authnRequest.nameIDPolicy?.format,
                                       created: environment.clock.now())
        state.add(pending)
        let envelope = PAOSRequest(responseConsumerURL: acs, messageID: token("_"), issuer: environment.spEntityID,
                                   providerName: "SAMLHarness mock SP", relayState: pending.relayState,
                                   authnRequest: authnRequest.xml()).envelope()
        return MockResponse.xml(envelope, contentType: PAOSHTTP.contentType).annotated("sp.request-id", authnRequest.id)
    }

    /// The protected page: the secret a client must bring back, the NameID and attributes.
    func securePage(_ session: SPSession, path: String) -> MockResponse {
        var rows = ""
        for name in session.attributes.keys.sorted() {
            rows += "<tr><th>\(HTMLText.escape(name))</th><td>\(HTMLText.escape(session.attributes[name]!.joined(separator: "; ")))</td></tr>\n"
        }
        return MockResponse.html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Protected resource</title></head>
        <body><h1>Protected resource \(HTMLText.escape(path))</h1>
        <p>secret: <code id="secret">\(session.secret)</code></p>
        <p>NameID: <code id="nameid">\(HTMLText.escape(session.nameID))</code></p>
        <table id="attributes">
        \(rows)</table>
        </body></html>

        """)
    }

    /// `/`: the site's home page, outside the protected area — where Shibboleth SP lands a
    /// login whose RelayState was lost (`homeURL`, default `/`). Like a site's home page
    /// under a lazy session, it names the user (and the session's secret) when there is a
    /// session; it never starts a login.
    func homePage(_ request: MockRequest) -> MockResponse {
        var body = "<p>You are not logged in. <a href=\"\(Path.secure)\">Log in</a></p>"
        var annotation = "none"
        if let key = request.cookie(sessionCookieName), let session = state.session(key) {
            body = """
            <p>Logged in as <code id="nameid">\(HTMLText.escape(session.nameID))</code>.</p>
            <p>secret: <code id="secret">\(session.secret)</code></p>
            """
            annotation = "valid"
        }
        return MockResponse.html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Home</title></head>
        <body><h1 id="home">Home</h1>
        \(body)
        </body></html>

        """).annotated("sp.home", annotation)
    }

    /// `/Shibboleth.sso/Session`, as Shibboleth SP's Session handler shows it.
    func sessionPage(_ request: MockRequest) -> MockResponse {
        guard let key = request.cookie(sessionCookieName), let session = state.session(key) else {
            if request.header("Accept")?.contains("application/json") == true {
                return .json(["session": nil as String?], status: 200)
            }
            return .html("<!DOCTYPE html><html><body><p>A valid session was not found.</p></body></html>\n")
        }
        if request.header("Accept")?.contains("application/json") == true {
            return .json(session)
        }
        var text = "<strong>Miscellaneous</strong>\n"
        text += "<strong>Client Address:</strong> \(HTMLText.escape(session.clientAddress ?? ""))\n"
        text += "<strong>SSO Protocol:</strong> urn:oasis:names:tc:SAML:2.0:protocol\n"
        text += "<strong>Identity Provider:</strong> \(HTMLText.escape(session.identityProvider))\n"
        text += "<strong>Authentication Time:</strong> \(SAMLDateTime.string(from: session.authnInstant))\n"
        text += "<strong>NameID:</strong> \(HTMLText.escape(session.nameID))\n\n<strong>Attributes</strong>\n"
        for name in session.attributes.keys.sorted() {
            text += "<strong>\(HTMLText.escape(name))</strong>: \(HTMLText.escape(session.attributes[name]!.joined(separator: ";")))\n"
        }
        return .html("<!DOCTYPE html><html><body><pre>\n\(text)</pre></body></html>\n")
    }

    /// `/Shibboleth.sso/Logout?return=…`: ends the SP session and, when there was one, logs
    /// out at the IdP by a LogoutRequest (HTTP-Redirect, signed).
    func logout(_ request: MockRequest) throws -> MockResponse {
        let returnURL = try checkedTarget(request.queryValue("return"), parameter: "return").flatMap { sameOrigin($0) }
        let key = request.cookie(sessionCookieName)
        let session = key.flatMap { state.session($0) }
        if let key { state.endSession(key) }
        var response: MockResponse
        if let session {
            let idpBase = environment.baseURL(of: "idp")
            let slo = idpBase + (environment.profile.profile.personality == .simplesamlphp ? MockIdP.Path.sspSLO : MockIdP.Path.slo)
            let logoutRequest = LogoutRequest.make(issuer: environment.spEntityID, destination: slo,
                                                   nameID: NameID(session.nameID, format: session.nameIDFormat),
                                                   sessionIndexes: session.sessionIndex.map { [$0] } ?? [],
                                                   clock: environment.clock, ids: environment.ids)
            let url = try RedirectBinding.url(destination: slo, message: Array(logoutRequest.xml().utf8), kind: .request,
                                              relayState: returnURL, signer: RedirectSigner(key: environment.profile.spKey))
            response = .redirect(url)
        } else if let returnURL {
            response = .redirect(returnURL)
        } else {
            response = .html("<!DOCTYPE html><html><body><p>Logout completed successfully.</p></body></html>\n")
        }
        response.setCookie(.expire(sessionCookieName))
        return response.annotated("sp.logout", session == nil ? "no-session" : "slo")
    }

    /// `/Shibboleth.sso/SLO/Redirect`: the IdP's LogoutResponse comes back.
    func logoutReturn(_ request: MockRequest) throws -> MockResponse {
        if let relay = try checkedTarget(request.queryValue("RelayState"), parameter: "RelayState").flatMap({ sameOrigin($0) }) {
            return MockResponse.redirect(relay).annotated("sp.logout", "complete")
        }
        return MockResponse.html("<!DOCTYPE html><html><body><p>Logout completed successfully.</p></body></html>\n")
            .annotated("sp.logout", "complete")
    }
}
