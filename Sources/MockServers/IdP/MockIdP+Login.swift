import Foundation
import SAMLCore

extension MockIdP {
    static let wrongPasswordMessage = "The password you entered was incorrect."
    static let unknownUserMessage = "The username you entered cannot be identified."

    /// Where a flow's pages live: the SSO path it started on, or SimpleSAMLphp's login page.
    func flowURL(_ flow: LoginFlow, ssoPath: String) -> String {
        if environment.profile.profile.personality == .simplesamlphp {
            return "\(Path.sspLogin)?AuthState=\(PercentEncoding.queryComponentEncode(flow.key))"
        }
        return "\(ssoPath)?execution=\(flow.execution)"
    }

    func ssoPath(for request: MockRequest) -> String {
        request.path == Path.postSSO ? Path.postSSO : Path.redirectSSO
    }

    func flowCookie(_ flow: LoginFlow) -> SetCookie {
        if environment.profile.profile.personality == .simplesamlphp {
            return SetCookie(name: CookieName.sspSession, value: flow.key, path: "/")
        }
        return SetCookie(name: CookieName.flow, value: flow.key, path: cookiePath)
    }

    func newFlow(pending: PendingSSO, step: LoginFlow.Step, user: TestUser?) -> LoginFlow {
        LoginFlow(key: token(), pending: pending, step: step, stateNumber: 1, loginTicket: token("LT-1-"),
                  csrfToken: token("_"), user: user, created: environment.clock.now())
    }

    /// The form login starts: a flow cookie and a redirect to the first page (Spring Web
    /// Flow's POST-redirect-GET, as Shibboleth IdP does).
    func startFlow(pending: PendingSSO, request: MockRequest) -> MockResponse {
        let flow = newFlow(pending: pending, step: .login, user: nil)
        state.save(flow)
        var response = MockResponse.redirect(flowURL(flow, ssoPath: ssoPath(for: request)))
        response.setCookie(flowCookie(flow))
        return response.annotated("idp.flow", "login")
    }

    /// A page of a flow (`GET ?execution=…`) or its form posted back.
    func flowStep(_ request: MockRequest) async throws -> MockResponse {
        let cookieName = environment.profile.profile.personality == .simplesamlphp ? CookieName.sspSession : CookieName.flow
        guard let key = request.cookie(cookieName) else {
            throw IdPError(status: 400, code: "flow.cookie-missing", title: "Stale Request",
                           message: "The login conversation cookie \(cookieName) did not come back, so this request cannot be matched to a login in progress. Cookies must be kept between the redirect and the login page.")
        }
        guard var flow = state.flow(key) else {
            throw IdPError(status: 400, code: "flow.unknown", title: "Stale Request",
                           message: "No login is in progress for this browser (it ended, or the cookie is stale). Start again from the application.")
        }
        let requestedExecution = request.queryValue("execution") ?? request.queryValue("AuthState").map { _ in flow.execution }
        guard requestedExecution == flow.execution else {
            throw IdPError(status: 400, code: "flow.stale-execution", title: "Stale Request",
                           message: "This page (execution \(requestedExecution ?? "none")) is no longer current; the login is at \(flow.execution). The Back button or a replayed form causes this.")
        }
        let path = ssoPath(for: request)
        guard request.method == "POST" else {
            // The page the SSO endpoint's redirect leads to: the fault knobs that cut a body
            // (`truncated-body`, `connection-reset`) cut this one, the login page itself.
            var shown = page(for: flow, path: path, error: nil)
            if environment.faultCutsBody { shown.delivery = environment.faultDelivery }
            return shown
        }
        guard request.formValue("csrf_token") == flow.csrfToken || environment.profile.profile.personality == .simplesamlphp else {
            throw IdPError(status: 403, code: "flow.csrf", title: "Invalid Request",
                           message: "The form's csrf_token is missing or does not match the one issued with the page.")
        }
        switch flow.step {
        case .login:
            if environment.profile.profile.personality != .simplesamlphp, request.formValue("lt") != flow.loginTicket {
                throw IdPError(status: 400, code: "flow.login-ticket", title: "Invalid Request",
                               message: "The login ticket (lt) is missing, or was already used: each LT-… is good for one POST.")
            }
            let fields = loginFieldNames
            let username = request.formValue(fields.username) ?? ""
            let password = request.formValue(fields.password) ?? ""
            return try await checkPassword(username: username, password: password, flow: &flow, path: path, request: request)
        case .secondFactor:
            guard let user = flow.user else { throw IdPError.badRequest("flow.state", "No user in this flow.") }
            guard request.formValue("j_tokenNumber") == (user.secondFactorCode ?? "123456") else {
                advance(&flow, to: .secondFactor)
                return page(for: flow, path: path, error: "The code you entered is not valid.").annotated("idp.second-factor", "wrong-code")
            }
            return try await proceed(after: .secondFactor, flow: &flow, path: path, request: request)
        case .consent:
            guard let user = flow.user else { throw IdPError.badRequest("flow.state", "No user in this flow.") }
            if request.formValue("_eventId_AttributeReleaseRejected") != nil {
                state.endFlow(flow.key)
                let status = Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.requestDenied]),
                                    message: "The user declined to release attributes")
                return try answer(pending: flow.pending, user: user, status: status, setCookies: [])
                    .annotated("idp.consent", "rejected")
            }
            guard request.formValue("_eventId_proceed") != nil else {
                throw IdPError.badRequest("flow.consent-event", "The consent form was posted without _eventId_proceed (Accept) or _eventId_AttributeReleaseRejected (Reject).")
            }
            let remember = request.formValue("_shib_idp_consentOptions") != "_shib_idp_doNotRememberConsent"
            return try finish(flow: flow, user: user, request: request, rememberConsent: remember)
                .annotated("idp.consent", "accepted")
        }
    }

    var loginFieldNames: (username: String, password: String, submit: String) {
        environment.profile.profile.personality == .simplesamlphp
            ? ("username", "password", "")
            : ("j_username", "j_password", "_eventId_proceed")
    }

    func checkPassword(username: String, password: String, flow: inout LoginFlow, path: String,
                       request: MockRequest) async throws -> MockResponse {
        let idp = environment.profile.profile.idp
        if idp.badPassword == .lockout, state.failures(username) >= idp.lockoutAfter {
            state.endFlow(flow.key)
            return lockedPage(username).annotated("idp.login", "locked")
        }
        guard let user = environment.profile.profile.user(named: username), user.password == password else {
            let failures = state.recordFailure(username)
            let message = environment.profile.profile.user(named: username) == nil ? Self.unknownUserMessage : Self.wrongPasswordMessage
            switch idp.badPassword {
            case .rechallenge:
                advance(&flow, to: .login)
                return MockResponse.redirect(flowURL(flow, ssoPath: path))
                    .annotated("idp.login", "bad-password").annotated("idp.failures", String(failures))
            case .formError:
                advance(&flow, to: .login)
                return page(for: flow, path: path, error: message, username: username)
                    .annotated("idp.login", "bad-password").annotated("idp.failures", String(failures))
            case .lockout:
                if failures >= idp.lockoutAfter {
                    state.endFlow(flow.key)
                    return lockedPage(username).annotated("idp.login", "locked").annotated("idp.failures", String(failures))
                }
                advance(&flow, to: .login)
                return page(for: flow, path: path, error: message + " \(idp.lockoutAfter - failures) attempt(s) left before the account is locked.", username: username)
                    .annotated("idp.login", "bad-password").annotated("idp.failures", String(failures))
            }
        }
        state.clearFailures(username)
        flow.user = user
        return try await proceed(after: .login, flow: &flow, path: path, request: request).annotated("idp.login", "ok")
    }

    func lockedPage(_ username: String) -> MockResponse {
        errorPage(status: 403, title: "Account Locked",
                  message: "The account \(username) is locked after too many failed logins. Contact the help desk.")
    }

    /// Moves a flow to its next page: new state number, new single-use tokens.
    func advance(_ flow: inout LoginFlow, to step: LoginFlow.Step) {
        flow.step = step
        flow.stateNumber += 1
        flow.loginTicket = token("LT-\(flow.stateNumber)-")
        flow.csrfToken = token("_")
        state.save(flow)
    }

    /// After a step succeeded: the second factor, consent, or the answer.
    func proceed(after step: LoginFlow.Step, flow: inout LoginFlow, path: String, request: MockRequest) async throws -> MockResponse {
        guard let user = flow.user else { throw IdPError.badRequest("flow.state", "No user in this flow.") }
        let idp = environment.profile.profile.idp
        if step == .login, idp.secondFactor {
            advance(&flow, to: .secondFactor)
            return .redirect(flowURL(flow, ssoPath: path))
        }
        if step != .consent, idp.consent {
            advance(&flow, to: .consent)
            return .redirect(flowURL(flow, ssoPath: path))
        }
        return try finish(flow: flow, user: user, request: request, rememberConsent: false)
    }

    /// The flow is done: an IdP session, the flow cookie expired, and the Response.
    func finish(flow: LoginFlow, user: TestUser, request: MockRequest, rememberConsent: Bool) throws -> MockResponse {
        state.endFlow(flow.key)
        var cookies = [SetCookie.expire(flowCookie(flow).name, path: flowCookie(flow).path)]
        let sessionKey = request.cookie(CookieName.session).flatMap { state.session($0) == nil ? nil : $0 } ?? token()
        var session = state.session(sessionKey) ?? IdPSession(user: user, authnInstant: environment.clock.now(),
                                                                 sessionIndex: token("_"), rememberedConsent: [])
        if session.user.username != user.username {
            session = IdPSession(user: user, authnInstant: environment.clock.now(), sessionIndex: token("_"), rememberedConsent: [])
        }
        if rememberConsent { session.rememberedConsent.insert(flow.pending.sp.entityID) }
        if environment.profile.profile.idp.sessionReuse {
            state.save(session: session, key: sessionKey)
            cookies.append(SetCookie(name: CookieName.session, value: sessionKey, path: cookiePath))
            if environment.profile.profile.personality == .simplesamlphp {
                cookies.append(SetCookie(name: CookieName.sspAuthToken, value: token("_"), path: "/"))
            }
        }
        return try answer(pending: flow.pending, user: user, status: nil, setCookies: cookies, session: session)
            .annotated("idp.result", "response")
    }

    /// After the password (or an IdP session): second factor and consent as the profile
    /// wants, then the answer.
    func afterAuthentication(user: TestUser, pending: PendingSSO, request: MockRequest, sessionKey: String?,
                             reused: Bool) async throws -> MockResponse {
        let idp = environment.profile.profile.idp
        let session = sessionKey.flatMap { state.session($0) }
        let needsConsent = idp.consent && !(session?.rememberedConsent.contains(pending.sp.entityID) ?? false)
        if (idp.secondFactor && !reused) || needsConsent {
            var flow = newFlow(pending: pending, step: (idp.secondFactor && !reused) ? .secondFactor : .consent, user: user)
            flow.stateNumber = 2
            state.save(flow)
            var response = MockResponse.redirect(flowURL(flow, ssoPath: ssoPath(for: request)))
            response.setCookie(flowCookie(flow))
            return response.annotated("idp.session", reused ? "reused" : "new")
        }
        let flow = newFlow(pending: pending, step: .consent, user: user)
        return try finish(flow: flow, user: user, request: request, rememberConsent: false)
            .annotated("idp.session", reused ? "reused" : "new")
    }

    /// HTTP Basic on the SSO endpoint (RFC 7617), as older Shibboleth deployments do.
    func basicLogin(pending: PendingSSO, request: MockRequest) async throws -> MockResponse {
        let wrong = environment.profile.profile.idp.badPassword == .rechallenge ? "Authentication is required." : Self.wrongPasswordMessage
        switch authenticateBasic(request, missing: "Authentication is required.", wrong: wrong) {
        case .refused(let response):
            return response
        case .user(let user, let charset):
            return try await afterAuthentication(user: user, pending: pending, request: request, sessionKey: nil, reused: false)
                .annotated("idp.login", "ok").annotated("idp.basic-charset", charset)
        }
    }

    enum BasicOutcome {
        case user(TestUser, charset: String)
        case refused(MockResponse)
    }

    /// HTTP Basic against the profile's users, with its lockout rule: a 401 challenge
    /// (`missing` when no or unreadable credentials, `wrong` after a wrong password), the
    /// locked page, or the user.
    func authenticateBasic(_ request: MockRequest, missing: String, wrong: String) -> BasicOutcome {
        let idp = environment.profile.profile.idp
        guard let credentials = BasicCredentials(authorization: request.header("Authorization")) else {
            return .refused(basicChallenge(message: missing)
                .annotated("idp.login", request.header("Authorization") == nil ? "challenge" : "malformed"))
        }
        if idp.badPassword == .lockout, state.failures(credentials.username) >= idp.lockoutAfter {
            return .refused(lockedPage(credentials.username).annotated("idp.login", "locked"))
        }
        guard let user = environment.profile.profile.user(named: credentials.username), user.password == credentials.password else {
            let failures = state.recordFailure(credentials.username)
            if idp.badPassword == .lockout, failures >= idp.lockoutAfter {
                return .refused(lockedPage(credentials.username).annotated("idp.login", "locked")
                    .annotated("idp.failures", String(failures)))
            }
            return .refused(basicChallenge(message: wrong).annotated("idp.login", "bad-password")
                .annotated("idp.failures", String(failures)))
        }
        state.clearFailures(user.username)
        return .user(user, charset: credentials.charset)
    }

    func basicChallenge(message: String) -> MockResponse {
        var response = errorPage(status: 401, title: "Unauthorized", message: message)
        response.addHeader("WWW-Authenticate", "Basic realm=\"\(environment.profile.profile.idp.realm)\", charset=\"UTF-8\"")
        return response
    }
}
