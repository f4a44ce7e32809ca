import Foundation
import SAMLCore

extension CASServer {
    enum ProtocolVersion: String, Sendable { case cas1 = "1", cas2 = "2", cas3 = "3" }

    /// Validates `ticketID` for `service` as Apereo CAS `validateServiceTicket` and the
    /// validation specifications do, in this order:
    /// 1. unknown or expired → `INVALID_TICKET` (an expired ticket is deleted);
    /// 2. the ticket is used up now, before anything else is checked (single use: CAS
    ///    protocol 3.0 §3.1.1, and Apereo counts the use in `isValidFor`), so a failed
    ///    validation consumes it too;
    /// 3. service mismatch → `INVALID_SERVICE` naming both services;
    /// 4. a proxy ticket where only service tickets are allowed (`/validate`,
    ///    `/serviceValidate`), or `renew=true` and the ticket did not come from a password
    ///    typed just now → `INVALID_TICKET` (Apereo CAS 6's answer for an unsatisfied
    ///    validation specification).
    func validateTicket(_ ticketID: String, service: String, renew: Bool, allowProxyTickets: Bool) -> Result<CASAssertion, CASFailure> {
        let ticket: CASServiceTicket
        switch state.use(ticketID, now: environment.clock.now(), lifetime: serviceTicketLifetime, reusable: ticketsReusable) {
        case .unknown: return .failure(CASFailure.invalidTicket(ticketID).with(detail: "unknown-or-used"))
        case .expired: return .failure(CASFailure.invalidTicket(ticketID).with(detail: "expired"))
        case .found(let found): ticket = found
        }
        guard CASServiceURL.matches(bound: ticket.service, supplied: service, mode: serviceMatch) else {
            return .failure(CASFailure.invalidService(ticketID, original: ticket.service, supplied: service).with(detail: "service-mismatch"))
        }
        if ticket.kind == .proxy, !allowProxyTickets {
            return .failure(CASFailure.invalidTicket(ticketID).with(detail: "proxy-ticket-not-accepted-here"))
        }
        if renew, !ticket.fromNewLogin { return .failure(CASFailure.invalidTicket(ticketID).with(detail: "renew-not-satisfied")) }
        return .success(CASAssertion(ticket: ticket))
    }

    /// CAS protocol 3.0 §2.4 `/validate` (CAS 1): `yes\n<user>\n` or `no\n\n`, always 200.
    /// Proxy tickets are refused (CAS 1 has no proxying).
    func validateCAS1(_ request: MockRequest) async -> MockResponse {
        let ticket = request.queryValue("ticket") ?? ""
        let service = request.queryValue("service") ?? ""
        let outcome: Result<CASAssertion, CASFailure> = ticket.isEmpty || service.isEmpty
            ? .failure(.missingParameters)
            : validateTicket(ticket, service: service, renew: request.queryValue("renew") == "true", allowProxyTickets: false)
        let body: String
        switch outcome {
        case .success(let assertion): body = "yes\n\(assertion.user.username)\n"
        case .failure: body = "no\n\n"
        }
        return annotate(.text(body, contentType: "text/plain;charset=UTF-8"), outcome: outcome, ticket: ticket, service: service, version: .cas1)
    }

    /// `/serviceValidate`, `/proxyValidate` (CAS 2) and `/p3/serviceValidate`,
    /// `/p3/proxyValidate` (CAS 3, with `cas:attributes`), XML or `format=JSON`; with a
    /// `pgtUrl`, a proxy-granting ticket is sent to the callback (CAS protocol 3.0 §2.5.4)
    /// and its IOU returned.
    func serviceValidate(_ request: MockRequest, version: ProtocolVersion, allowProxyTickets: Bool) async -> MockResponse {
        let format = CASServiceResponse.Format(request.queryValue("format"))
        let ticket = request.queryValue("ticket") ?? ""
        let service = request.queryValue("service") ?? ""
        guard !ticket.isEmpty, !service.isEmpty else {
            let outcome: Result<CASAssertion, CASFailure> = .failure(.missingParameters)
            return annotate(CASServiceResponse.failure(.missingParameters, format: format), outcome: outcome,
                            ticket: ticket, service: service, version: version)
        }
        let renew = request.queryValue("renew") == "true"
        var outcome: Result<CASAssertion, CASFailure>
        var callbackNote: String?
        if let pgtUrl = request.queryValue("pgtUrl"), !pgtUrl.isEmpty {
            (outcome, callbackNote) = await validateWithProxyCallback(ticket, service: service, renew: renew,
                                                                       allowProxyTickets: allowProxyTickets, pgtUrl: pgtUrl)
        } else {
            outcome = validateTicket(ticket, service: service, renew: renew, allowProxyTickets: allowProxyTickets)
        }
        var response: MockResponse
        switch outcome {
        case .success(let assertion):
            response = CASServiceResponse.success(assertion, withAttributes: version == .cas3 && !attributesWithheld, format: format)
        case .failure(let failure):
            response = CASServiceResponse.failure(failure, format: format)
        }
        if let callbackNote { response = response.annotated("cas.proxy-callback", callbackNote) }
        return annotate(response, outcome: outcome, ticket: ticket, service: service, version: version)
    }

    /// Apereo CAS `handleTicketValidation` with a pgtUrl: the ticket must exist (else
    /// `INVALID_TICKET`, ticket untouched); a callback the mock may not call (not plain http on
    /// loopback; neither a mock listener of the suite nor in `cas.proxy_callback_allow`) is
    /// `INVALID_PROXY_CALLBACK` without a call, the ticket untouched, the reason in
    /// `cas.failure`; the callback is "authenticated" by a GET that must
    /// answer 200 (else `INVALID_PROXY_CALLBACK`, ticket untouched); the ticket is validated
    /// (consumed); then `pgtIou` and `pgtId` are sent to the callback, whose failure is
    /// `INVALID_PROXY_CALLBACK` too — after the ticket was used up.
    func validateWithProxyCallback(_ ticketID: String, service: String, renew: Bool, allowProxyTickets: Bool,
                                   pgtUrl: String) async -> (Result<CASAssertion, CASFailure>, String) {
        let lookup = state.use(ticketID, now: environment.clock.now(), lifetime: serviceTicketLifetime, reusable: true, peek: true)
        guard case .found = lookup else {
            return (.failure(CASFailure.invalidTicket(ticketID).with(detail: "unknown-used-or-expired")), "not-called")
        }
        guard let callback = CASProxyCallback(pgtUrl) else {
            return (.failure(CASFailure.invalidProxyCallback(pgtUrl).with(detail: "not-loopback-http")), "refused")
        }
        // Apereo CAS: a callback URL the service's proxy policy does not allow is refused before
        // any call (HttpBasedServiceCredentialsAuthenticationHandler: FailedLoginException →
        // INVALID_PROXY_CALLBACK, the ticket untouched). Here: not a mock listener, not allowed.
        if let reason = callback.refusal(mockBases: environment.baseURLs, allowed: settings.proxyCallbackAllow) {
            return (.failure(CASFailure.invalidProxyCallback(pgtUrl).with(detail: "not-allowed: " + reason)), "refused")
        }
        guard await callback.call(parameters: []) else {
            return (.failure(CASFailure.invalidProxyCallback(pgtUrl).with(detail: "callback-unreachable")), "unreachable")
        }
        let outcome = validateTicket(ticketID, service: service, renew: renew, allowProxyTickets: allowProxyTickets)
        guard case .success(var assertion) = outcome else { return (outcome, "not-delivered") }
        let pgt = createGrantingTicket(authentication: assertion.ticket.authentication,
                                       proxies: [pgtUrl] + assertion.ticket.proxies, prefix: "PGT")
        let iou = self.ticketID("PGTIOU")
        // CAS protocol 3.0 §2.5.4: pgtIou and pgtId as query parameters of the callback URL.
        guard await callback.call(parameters: [("pgtIou", iou), ("pgtId", pgt.id)]) else {
            state.destroyGrantingTicket(pgt.id)
            return (.failure(CASFailure.invalidProxyCallback(pgtUrl).with(detail: "delivery-failed")), "delivery-failed")
        }
        assertion.proxyGrantingTicketIOU = iou
        return (.success(assertion), "delivered")
    }

    /// CAS protocol 3.0 §2.7 `/proxy?pgt=…&targetService=…`: a proxy ticket off a PGT.
    func proxy(_ request: MockRequest) -> MockResponse {
        let format = CASServiceResponse.Format(request.queryValue("format"))
        guard let pgtID = request.queryValue("pgt"), !pgtID.isEmpty,
              let target = request.queryValue("targetService"), !target.isEmpty else {
            return CASServiceResponse.proxyFailure(.proxyMissingParameters, format: format)
                .annotated("cas.proxy", CASFailure.Code.invalidRequest.rawValue)
        }
        // Apereo CAS looks the ticket up as a ProxyGrantingTicket: a TGT or an unknown or
        // expired PGT is INVALID_TICKET (the protocol text says BAD_PGT; Apereo does not use it).
        guard let pgt = grantingTicket(pgtID), pgt.isProxyGranting else {
            return CASServiceResponse.proxyFailure(.invalidTicket(pgtID), format: format)
                .annotated("cas.proxy", CASFailure.Code.invalidTicket.rawValue)
        }
        guard CASServiceURL.isAcceptable(target) else {
            return CASServiceResponse.proxyFailure(.unauthorizedServiceProxy(target), format: format)
                .annotated("cas.proxy", CASFailure.Code.unauthorizedServiceProxy.rawValue)
        }
        let ticket = grantServiceTicket(from: pgt, service: target)
        return CASServiceResponse.proxySuccess(ticket.id, format: format)
            .annotated("cas.proxy", "success").annotated("cas.ticket", ticket.id).annotated("cas.user", pgt.authentication.user.username)
    }

    /// Notes a validation's outcome for the traffic log.
    func annotate(_ response: MockResponse, outcome: Result<CASAssertion, CASFailure>, ticket: String, service: String,
                  version: ProtocolVersion) -> MockResponse {
        var response = response.annotated("cas.protocol", version.rawValue)
        if !ticket.isEmpty { response = response.annotated("cas.ticket", ticket) }
        switch outcome {
        case .success(let assertion):
            response = response.annotated("cas.validate", "success").annotated("cas.user", assertion.user.username)
            if assertion.ticket.service != service { response = response.annotated("cas.bound-service", assertion.ticket.service) }
        case .failure(let failure):
            response = response.annotated("cas.validate", failure.code.rawValue)
            if let detail = failure.detail { response = response.annotated("cas.failure", detail) }
        }
        return response
    }
}
