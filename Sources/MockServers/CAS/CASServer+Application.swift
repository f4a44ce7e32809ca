import Foundation
import SAMLCore

/// A CAS-protected application at `/app/` on the CAS listener, behaving as an application
/// behind a CAS client filter (the Java CAS client's `AuthenticationFilter` +
/// `Cas30ProxyReceivingTicketValidationFilter`): no session → to `/cas/login?service=<its
/// URL>`; back with `?ticket=` → the ticket is validated as `/p3/proxyValidate` would (same
/// registry, same matching rules and knobs), a session cookie is set and the browser is sent
/// to the same URL without the ticket; with a session, the page shows the user and a
/// per-session secret `SECRET-…`.
///
/// Traffic log: `cas.app.accepted` (the user) and `cas.app.secret` when a ticket was
/// accepted, `cas.app.rejected` (the CAS error code) when not, `cas.app.session` on pages
/// served to a session, `cas.app.login` on the redirect to CAS.
extension CASServer {
    static let applicationCookie = "CASAPPSESSION"

    func application(_ request: MockRequest) -> MockResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .methodNotAllowed(request.method, allowed: ["GET"])
        }
        if let ticket = request.queryValue("ticket") {
            return acceptTicket(ticket, request: request)
        }
        if let key = request.cookie(Self.applicationCookie), let session = state.appSession(key) {
            return applicationPage(session).annotated("cas.app.session", session.user)
        }
        let service = serviceURL(of: request)
        return MockResponse.redirect(base + Path.login + "?service=" + PercentEncoding.queryComponentEncode(service))
            .annotated("cas.app.login", "redirect")
    }

    /// The URL the application names itself with: its own URL without `ticket`, as the Java
    /// CAS client's `CommonUtils.constructServiceUrl` builds it.
    func serviceURL(of request: MockRequest) -> String {
        let path = request.path == "/app" ? Path.app : request.path
        let kept = request.query.filter { $0.name != "ticket" }.map(\.raw)
        return base + path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    func acceptTicket(_ ticket: String, request: MockRequest) -> MockResponse {
        let service = serviceURL(of: request)
        let outcome = validateTicket(ticket, service: service, renew: false, allowProxyTickets: true)
        switch outcome {
        case .failure(let failure):
            let response = CASPages.page(title: "Application - Login failed", body: """
            <h1>Login failed</h1>
            <p class="error">The CAS server did not accept the ticket: <code>\(HTMLText.escape(failure.code.rawValue))</code></p>
            <p>\(HTMLText.escape(failure.description))</p>
            """, status: 403)
            return annotate(response, outcome: outcome, ticket: ticket, service: service, version: .cas3)
                .annotated("cas.app.rejected", failure.code.rawValue)
        case .success(let assertion):
            let key = String(environment.ids.next().drop { $0 == "_" })
            let session = CASAppSession(user: assertion.user.username, attributes: assertion.user.attributes,
                                        secret: "SECRET-" + environment.ids.next().drop { $0 == "_" }, ticket: ticket)
            state.save(appSession: session, key: key)
            var response = MockResponse.redirect(service)
            response.setCookie(SetCookie(name: Self.applicationCookie, value: key, path: Path.app))
            return annotate(response, outcome: outcome, ticket: ticket, service: service, version: .cas3)
                .annotated("cas.app.accepted", session.user).annotated("cas.app.secret", session.secret)
        }
    }

    func applicationPage(_ session: CASAppSession) -> MockResponse {
        let rows = session.attributes.sorted { $0.key < $1.key }.map { name, values in
            "<tr><th>\(HTMLText.escape(name))</th><td>\(values.map(HTMLText.escape).joined(separator: ", "))</td></tr>"
        }.joined(separator: "\n")
        return CASPages.page(title: "Application - \(session.user)", body: """
        <h1>CAS-protected application</h1>
        <p>Logged in as <strong id="user">\(HTMLText.escape(session.user))</strong> (ticket \(HTMLText.escape(session.ticket))).</p>
        <p>Session secret: <code id="secret">\(HTMLText.escape(session.secret))</code></p>
        <table id="attributes">
        \(rows)
        </table>
        """)
    }
}
