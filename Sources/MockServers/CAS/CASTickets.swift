import Foundation

/// Who logged in, when and how: what a granting ticket carries and a validation returns.
struct CASAuthentication: Sendable {
    var user: TestUser
    var instant: Date
    /// `form`, `rest` (the v1 tickets resource) — for the traffic log.
    var channel: String
}

/// A ticket-granting ticket (`TGT-…`, the SSO session behind the `TGC` cookie and the REST
/// resource) or a proxy-granting ticket (`PGT-…`, issued to a pgtUrl): both vend tickets.
struct CASGrantingTicket: Sendable {
    let id: String
    let authentication: CASAuthentication
    let created: Date
    /// The pgtUrls of the proxy chain, most recent first (CAS protocol 3.0 §2.6.2
    /// `cas:proxies`); empty for a TGT.
    let proxies: [String]
    /// Tickets granted so far (Apereo CAS `TicketGrantingTicket.getCountOfUses`).
    var ticketsGranted: Int = 0

    var isProxyGranting: Bool { !proxies.isEmpty }
}

/// A service ticket (`ST-…`) or a proxy ticket (`PT-…`): single use, short-lived, bound to the
/// service string it was issued for.
struct CASServiceTicket: Sendable {
    enum Kind: String, Sendable { case service, proxy }

    let id: String
    let kind: Kind
    /// The service the ticket is bound to, as the server recorded it (after any
    /// `cas-service-rewrite`).
    let service: String
    /// The service as the client asked for it.
    let requestedService: String
    let authentication: CASAuthentication
    let grantingTicket: String
    let created: Date
    /// Issued right after the user typed a password (CAS protocol 3.0 §2.5.1 `renew`: only
    /// such a ticket satisfies `renew=true` at validation).
    let fromNewLogin: Bool
    let proxies: [String]
    var validations: Int = 0
}

/// One login form conversation (Spring Web Flow's `execution`), with the CAS 3/4 login ticket.
struct CASLoginFlow: Sendable {
    let execution: String
    let loginTicket: String
    let service: String?
    let renew: Bool
    let created: Date
}

/// A session of the CAS-protected application at `/app/`.
struct CASAppSession: Sendable {
    let user: String
    let attributes: [String: [String]]
    let secret: String
    let ticket: String
}
