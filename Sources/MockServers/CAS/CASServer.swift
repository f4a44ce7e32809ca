import Foundation
import SAMLCore

/// The mock CAS server (Apereo CAS protocol 1, 2, 3 and REST) under `/cas`, with a
/// CAS-protected application at `/app/` on the same listener. See `docs/cas.md`.
///
/// Every answer is annotated for the traffic log: `cas.login`, `cas.validate` (`success` or
/// the error code), `cas.user`, `cas.ticket`, `cas.rest`, `cas.proxy`, `cas.logout`, and for
/// the application `cas.app.accepted` / `cas.app.secret` / `cas.app.rejected`.
public struct CASServer: MockHandler {
    public let name = "cas"
    public let environment: MockEnvironment
    let state = CASState()

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    /// The paths, as Apereo CAS serves them.
    public enum Path {
        public static let login = "/cas/login"
        public static let logout = "/cas/logout"
        public static let tickets = "/cas/v1/tickets"
        public static let validate = "/cas/validate"
        public static let serviceValidate = "/cas/serviceValidate"
        public static let proxyValidate = "/cas/proxyValidate"
        public static let p3ServiceValidate = "/cas/p3/serviceValidate"
        public static let p3ProxyValidate = "/cas/p3/proxyValidate"
        public static let proxy = "/cas/proxy"
        public static let samlValidate = "/cas/samlValidate"
        /// A CAS-protected application on the same listener: the default `service`.
        public static let app = "/app/"
    }

    /// Apereo CAS's ticket-granting cookie.
    static let ticketGrantingCookie = "TGC"

    public func handle(_ request: MockRequest) async -> MockResponse {
        let path = request.path
        switch path {
        case Path.login:
            return await login(request)
        case Path.logout:
            return logout(request)
        case Path.tickets:
            return createTicketGrantingTicket(request)
        case Path.validate:
            return await validateCAS1(request)
        case Path.serviceValidate:
            return await serviceValidate(request, version: .cas2, allowProxyTickets: false)
        case Path.proxyValidate:
            return await serviceValidate(request, version: .cas2, allowProxyTickets: true)
        case Path.p3ServiceValidate:
            return await serviceValidate(request, version: .cas3, allowProxyTickets: false)
        case Path.p3ProxyValidate:
            return await serviceValidate(request, version: .cas3, allowProxyTickets: true)
        case Path.proxy:
            return proxy(request)
        case Path.samlValidate:
            return samlValidate(request)
        case "/cas", "/cas/":
            return .redirect(base + Path.login)
        default:
            if path.hasPrefix(Path.tickets + "/") { return ticketResource(request) }
            if path == "/app" || path.hasPrefix(Path.app) { return application(request) }
            return .notFound(path)
        }
    }

    /// Forgets every ticket, login flow and application session (for the control API's reset).
    public func reset() { state.reset() }

    // MARK: - Shared helpers

    var base: String { environment.baseURL(of: name) }
    var settings: CASSettings { environment.profile.profile.cas }

    /// A ticket ID as Apereo CAS shapes them: `PREFIX-N-random` (`ST-1-…`, `TGT-2-…`), from the
    /// environment's ID generator so seeded runs repeat.
    func ticketID(_ prefix: String) -> String {
        "\(prefix)-\(state.nextNumber())-" + environment.ids.next().drop { $0 == "_" }
    }

    var casKnobs: [CASKnob] {
        environment.knobs.compactMap { if case .cas(let knob) = $0 { knob } else { nil } }
    }

    var serviceMatch: CASKnob.ServiceMatch {
        for case .serviceMatch(let mode) in casKnobs { return mode }
        return settings.serviceMatch
    }

    var serviceTicketLifetime: TimeInterval {
        for case .ticketLifetime(let seconds) in casKnobs { return seconds }
        return settings.serviceTicketLifetime
    }

    var ticketsReusable: Bool { casKnobs.contains(.ticketReusable) }
    var attributesWithheld: Bool { casKnobs.contains(.noAttributes) }

    /// The service as this server records it when it issues a ticket (`cas-service-rewrite`).
    func boundService(_ service: String) -> String {
        var bound = service
        for case .serviceRewrite(let rewrite) in casKnobs { bound = CASServiceURL.rewrite(bound, rewrite) }
        return bound
    }

    /// A live granting ticket (TGT or PGT).
    func grantingTicket(_ id: String) -> CASGrantingTicket? {
        state.grantingTicket(id, now: environment.clock.now(), lifetime: settings.ticketGrantingTicketLifetime)
    }

    /// Creates a ticket-granting ticket for a user who just authenticated.
    func createGrantingTicket(for user: TestUser, channel: String) -> CASGrantingTicket {
        createGrantingTicket(authentication: CASAuthentication(user: user, instant: environment.clock.now(), channel: channel),
                             proxies: [], prefix: "TGT")
    }

    /// Creates a granting ticket (a proxy-granting one when `proxies` is not empty).
    func createGrantingTicket(authentication: CASAuthentication, proxies: [String], prefix: String) -> CASGrantingTicket {
        let ticket = CASGrantingTicket(id: ticketID(prefix), authentication: authentication,
                                       created: environment.clock.now(), proxies: proxies)
        state.save(ticket)
        return ticket
    }

    /// Grants a service (or proxy) ticket for `service` off a granting ticket. Apereo CAS marks
    /// it "from new login" when it is the granting ticket's first (`countOfUses == 0`), unless
    /// the caller knows better (an SSO login through the `TGC` is never new).
    func grantServiceTicket(from granting: CASGrantingTicket, service: String, fromNewLogin: Bool? = nil) -> CASServiceTicket {
        let previous = state.countGrant(granting.id)
        let kind: CASServiceTicket.Kind = granting.isProxyGranting ? .proxy : .service
        let ticket = CASServiceTicket(id: ticketID(kind == .proxy ? "PT" : "ST"), kind: kind, service: boundService(service),
                                      requestedService: service, authentication: granting.authentication,
                                      grantingTicket: granting.id, created: environment.clock.now(),
                                      fromNewLogin: fromNewLogin ?? (previous == 0), proxies: granting.proxies)
        state.save(ticket)
        return ticket
    }

    /// The user named `username` if `password` is theirs; otherwise the Apereo CAS exception
    /// that `AcceptUsersAuthenticationHandler` throws.
    func authenticate(username: String, password: String) -> Result<TestUser, LoginFailure> {
        guard let user = environment.profile.profile.user(named: username) else { return .failure(.accountNotFound(username)) }
        guard user.password == password else { return .failure(.failedLogin) }
        return .success(user)
    }

    /// Apereo CAS authentication exceptions and their `messages.properties` texts.
    enum LoginFailure: Error {
        case accountNotFound(String)
        case failedLogin

        var exception: String {
            switch self {
            case .accountNotFound: "AccountNotFoundException"
            case .failedLogin: "FailedLoginException"
            }
        }

        /// `authenticationFailure.<Exception>` in Apereo CAS `messages.properties`.
        var message: String {
            switch self {
            case .accountNotFound: "Your account is not recognized and cannot login at this time."
            case .failedLogin: "Authentication attempt has failed, likely due to invalid credentials. Please verify and try again."
            }
        }
    }
}
