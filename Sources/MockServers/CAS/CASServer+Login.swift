import Foundation
import SAMLCore

/// CAS protocol 3.0 §2.1–§2.3: the browser login (`/cas/login`) and logout (`/cas/logout`).
extension CASServer {
    /// `GET /cas/login?service=…[&renew=true|&gateway=true]` and the login form's POST.
    func login(_ request: MockRequest) async -> MockResponse {
        if let fault = transportFault() { return fault }
        var response: MockResponse
        switch request.method {
        case "GET", "HEAD": response = loginPage(request)
        case "POST": response = submitLogin(request)
        default: return .methodNotAllowed(request.method, allowed: ["GET", "POST"])
        }
        response.delivery = environment.faultDelivery(for: response)
        return response
    }

    /// The credential requestor, or SSO through the `TGC` (CAS protocol 3.0 §2.1.1).
    func loginPage(_ request: MockRequest) -> MockResponse {
        let service = request.queryValue("service").flatMap { $0.isEmpty ? nil : $0 }
        if let service, !CASServiceURL.isAcceptable(service) {
            return CASPages.unauthorizedService().annotated("cas.login", "unauthorized-service")
        }
        let renew = request.queryValue("renew") == "true"
        let gateway = request.queryValue("gateway") == "true"
        let sso = request.cookie(Self.ticketGrantingCookie).flatMap(grantingTicket).flatMap { $0.isProxyGranting ? nil : $0 }
        // §2.1.1: renew bypasses single sign-on (and takes precedence over gateway).
        if let sso, !renew {
            let user = sso.authentication.user.username
            guard let service else {
                return CASPages.loggedIn(user).annotated("cas.login", "sso").annotated("cas.user", user)
            }
            let ticket = grantServiceTicket(from: sso, service: service, fromNewLogin: false)
            return redirect(to: service, ticket: ticket).annotated("cas.login", "sso").annotated("cas.user", user)
        }
        // §2.1.1 gateway: no credentials asked; back to the service without a ticket.
        if gateway, !renew, let service {
            return MockResponse.redirect(service).annotated("cas.login", "gateway")
        }
        let flow = newFlow(service: service, renew: renew)
        return CASPages.login(flow: flow, error: nil).annotated("cas.login", "form")
    }

    /// The login form posted back (§2.2): execution and login ticket single-use, then the
    /// credentials; success sets `TGC` and redirects to `service?ticket=ST-…`.
    func submitLogin(_ request: MockRequest) -> MockResponse {
        guard let execution = request.formValue("execution"), let flow = state.takeFlow(execution) else {
            // Spring Web Flow cannot restore the execution (stale, replayed or missing): Apereo
            // CAS starts a new login conversation.
            let service = request.queryValue("service").flatMap { $0.isEmpty || !CASServiceURL.isAcceptable($0) ? nil : $0 }
            let flow = newFlow(service: service, renew: request.queryValue("renew") == "true")
            return CASPages.login(flow: flow, error: nil).annotated("cas.login", "stale-execution")
        }
        if let lt = request.formValue("lt"), lt != flow.loginTicket {
            let next = newFlow(service: flow.service, renew: flow.renew)
            return CASPages.login(flow: next, error: nil).annotated("cas.login", "bad-login-ticket")
        }
        let username = request.formValue("username") ?? ""
        let password = request.formValue("password") ?? ""
        guard !username.isEmpty, !password.isEmpty else {
            let next = newFlow(service: flow.service, renew: flow.renew)
            let message = username.isEmpty ? "Username is a required field." : "Password is a required field."
            return CASPages.login(flow: next, error: message, username: username).annotated("cas.login", "missing-field")
        }
        switch authenticate(username: username, password: password) {
        case .failure(let failure):
            // Apereo CAS 6 re-shows the form with the exception's message and status 401.
            let next = newFlow(service: flow.service, renew: flow.renew)
            return CASPages.login(flow: next, error: failure.message, username: username, status: 401)
                .annotated("cas.login", "bad-password").annotated("cas.failure", failure.exception)
        case .success(let user):
            if let old = request.cookie(Self.ticketGrantingCookie) { state.destroyGrantingTicket(old) }
            let tgt = createGrantingTicket(for: user, channel: "form")
            var response: MockResponse
            if let service = flow.service {
                response = redirect(to: service, ticket: grantServiceTicket(from: tgt, service: service, fromNewLogin: true))
            } else {
                response = CASPages.loggedIn(user.username)
            }
            response.setCookie(ticketGrantingCookie(tgt.id, request: request))
            return response.annotated("cas.login", "ok").annotated("cas.user", user.username).annotated("cas.tgt", tgt.id)
        }
    }

    /// `/cas/logout`: the SSO session ends, `TGC` is expired; `service` is followed when the
    /// profile allows it (Apereo `cas.logout.follow-service-redirects`), CAS 3's `url` becomes
    /// a link on the page.
    func logout(_ request: MockRequest) -> MockResponse {
        let destroyed = request.cookie(Self.ticketGrantingCookie).flatMap { state.destroyGrantingTicket($0) }
        var response: MockResponse
        var outcome = "page"
        if let service = request.queryValue("service"), settings.logoutFollowsServiceRedirects, CASServiceURL.isAcceptable(service) {
            response = .redirect(service)
            outcome = "redirect"
        } else {
            let link = request.queryValue("url").flatMap { CASServiceURL.isAcceptable($0) ? $0 : nil }
            response = CASPages.loggedOut(link: link)
        }
        response.setCookie(SetCookie(name: Self.ticketGrantingCookie, value: "", path: "/cas/", maxAge: 0,
                                     secure: request.origin.hasPrefix("https")))
        response = response.annotated("cas.logout", outcome)
        if let destroyed { response = response.annotated("cas.user", destroyed.authentication.user.username) }
        return response
    }

    // MARK: - Helpers

    func newFlow(service: String?, renew: Bool) -> CASLoginFlow {
        let execution = environment.ids.next().drop { $0 == "_" } + "_" + environment.ids.next().drop { $0 == "_" }
        let flow = CASLoginFlow(execution: String(execution), loginTicket: ticketID("LT"), service: service, renew: renew,
                                created: environment.clock.now())
        state.save(flow)
        return flow
    }

    /// 302 to `service` with `ticket=ST-…` (CAS protocol 3.0 §2.2.4).
    func redirect(to service: String, ticket: CASServiceTicket) -> MockResponse {
        MockResponse.redirect(CASServiceURL.appending("ticket", ticket.id, to: service))
            .annotated("cas.ticket", ticket.id).annotated("cas.bound-service", ticket.service)
    }

    /// Apereo CAS's `TGC`: path `/cas/`, HttpOnly, Secure over HTTPS.
    func ticketGrantingCookie(_ id: String, request: MockRequest) -> SetCookie {
        SetCookie(name: Self.ticketGrantingCookie, value: id, path: "/cas/", secure: request.origin.hasPrefix("https"))
    }

    /// The general `error-500` knob on the login endpoint.
    func transportFault() -> MockResponse? {
        for knob in environment.knobs {
            if case .error500 = knob {
                return CASPages.page(title: "CAS - Error", body: "<h2>CAS error</h2><p>There was an error trying to complete your request. Please notify your support desk or try again.</p>", status: 500)
                    .annotated("cas.knob", knob.text)
            }
        }
        return nil
    }
}
