import Foundation
import SAMLCore

/// Apereo CAS REST protocol (`cas-server-support-rest`): `/cas/v1/tickets`.
extension CASServer {
    /// `POST /cas/v1/tickets` with `username` and `password` (form-encoded): 201 Created, the
    /// TGT's URL in `Location`, and (for `Accept` absent, `*/*` or `text/html`) Apereo's small
    /// HTML form — else the bare TGT id. Bad credentials: 401 with Apereo's
    /// `authentication_exceptions` JSON; no credentials: 400.
    func createTicketGrantingTicket(_ request: MockRequest) -> MockResponse {
        guard request.method == "POST" else { return .methodNotAllowed(request.method, allowed: ["POST"]) }
        guard isFormEncoded(request) else { return unsupportedMediaType().annotated("cas.rest", "unsupported-media-type") }
        guard let username = request.formValue("username"), let password = request.formValue("password"),
              !username.isEmpty, !password.isEmpty else {
            return MockResponse.text("No credentials are provided or extracted to authenticate the REST request",
                                     status: 400, contentType: "text/plain;charset=UTF-8")
                .annotated("cas.rest", "no-credentials")
        }
        switch authenticate(username: username, password: password) {
        case .failure(let failure):
            return authenticationFailure(failure).annotated("cas.rest", "bad-credentials")
                .annotated("cas.login", "bad-password")
        case .success(let user):
            let tgt = createGrantingTicket(for: user, channel: "rest")
            let location = base + Path.tickets + "/" + tgt.id
            let accept = request.header("Accept")?.trimmingCharacters(in: .whitespaces) ?? ""
            var response: MockResponse
            if accept.isEmpty || accept.hasPrefix("*/*") || accept.hasPrefix("text/html") {
                // Apereo's DefaultTicketGrantingTicketResourceEntityResponseFactory, including the
                // backslashes its Java string literal leaves in the DOCTYPE.
                let html = #"<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\"><html><head><title>201 CREATED</title></head><body><h1>TGT Created</h1><form action=""#
                    + HTMLText.escape(location)
                    + #"" method="POST">Service:<input type="text" name="service" value=""><br><input type="submit" value="Submit"></form></body></html>"#
                response = .text(html, status: 201, contentType: "text/html;charset=UTF-8")
            } else {
                response = .text(tgt.id, status: 201, contentType: "text/plain;charset=UTF-8")
            }
            response.addHeader("Location", location)
            return response.annotated("cas.rest", "tgt-created").annotated("cas.login", "ok")
                .annotated("cas.user", user.username).annotated("cas.tgt", tgt.id)
        }
    }

    /// `/cas/v1/tickets/{TGT}`: `POST service=…` vends a service ticket (200, the id as the
    /// body); `GET` tells whether the ticket is alive; `DELETE` destroys it (logout).
    func ticketResource(_ request: MockRequest) -> MockResponse {
        let id = PercentEncoding.formDecode(String(request.path.dropFirst(Path.tickets.count + 1)))
        switch request.method {
        case "POST":
            guard isFormEncoded(request) else { return unsupportedMediaType().annotated("cas.rest", "unsupported-media-type") }
            // Apereo ServiceTicketResource: an unknown TGT and a blank service both raise
            // InvalidTicketException, answered "<id> could not be found" — for the blank
            // service the id is Java's `null`.
            guard let tgt = grantingTicket(id), !tgt.isProxyGranting else {
                return MockResponse.text("\(id) could not be found", status: 404, contentType: "text/plain;charset=UTF-8")
                    .annotated("cas.rest", "unknown-tgt")
            }
            guard let service = request.formValue("service"), !service.trimmingCharacters(in: .whitespaces).isEmpty else {
                return MockResponse.text("null could not be found", status: 404, contentType: "text/plain;charset=UTF-8")
                    .annotated("cas.rest", "no-service")
            }
            let ticket = grantServiceTicket(from: tgt, service: service)
            return MockResponse.text(ticket.id, contentType: "text/plain;charset=UTF-8")
                .annotated("cas.rest", "st-issued").annotated("cas.ticket", ticket.id)
                .annotated("cas.user", tgt.authentication.user.username).annotated("cas.bound-service", ticket.service)
        case "GET":
            guard grantingTicket(id) != nil else {
                return MockResponse.text("Ticket could not be found", status: 404, contentType: "text/plain;charset=UTF-8")
                    .annotated("cas.rest", "unknown-tgt")
            }
            return MockResponse.text(id, contentType: "text/plain;charset=UTF-8").annotated("cas.rest", "tgt-alive")
        case "DELETE":
            // Apereo answers 200 with the id whether or not the ticket existed.
            let destroyed = state.destroyGrantingTicket(id) != nil
            return MockResponse.text(id, contentType: "text/plain;charset=UTF-8")
                .annotated("cas.rest", destroyed ? "tgt-destroyed" : "tgt-unknown").annotated("cas.logout", "rest")
        default:
            return .methodNotAllowed(request.method, allowed: ["GET", "POST", "DELETE"])
        }
    }

    func isFormEncoded(_ request: MockRequest) -> Bool {
        request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
    }

    func unsupportedMediaType() -> MockResponse {
        .text("Content type must be application/x-www-form-urlencoded", status: 415, contentType: "text/plain;charset=UTF-8")
    }

    /// Apereo `RestResourceUtils.createResponseEntityForAuthnFailure`: 401, Jackson's pretty
    /// printer with default typing (hence `@class` and the `java.util.ArrayList` marker).
    func authenticationFailure(_ failure: LoginFailure) -> MockResponse {
        let detail: String
        switch failure {
        case .accountNotFound(let name): detail = "AccountNotFoundException: \(name) not found in backing map."
        case .failedLogin: detail = "FailedLoginException: Authentication Failure: 1 errors, 0 successes"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let quoted = (try? encoder.encode(detail)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        let body = "{\n  \"@class\" : \"java.util.HashMap\",\n  \"authentication_exceptions\" : [ \"java.util.ArrayList\", [ \(quoted) ] ]\n}"
        return MockResponse.text(body, status: 401, contentType: "application/json;charset=UTF-8")
            .annotated("cas.failure", failure.exception)
    }
}
