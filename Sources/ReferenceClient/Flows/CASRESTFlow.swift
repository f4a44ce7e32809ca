import Foundation

/// `cas-rest` (Apereo CAS REST API): `POST /cas/v1/tickets` with the credentials → TGT
/// URL in `Location`; `POST` the TGT URL with `service` → `ST-…`; validate the ticket once,
/// with exactly the service string it was issued for (CAS protocol 3.0 §2.5–2.6: a ticket
/// is single-use and bound to its service).
struct CASRESTFlow {
    let context: FlowContext
    static let casNamespace = "http://www.yale.edu/tp/cas"

    func run() async throws -> ClientResult {
        let configuration = context.configuration
        let http = context.http
        let behaviour = context.behaviour
        guard let username = configuration.username, let password = configuration.password else {
            throw ClientFailure("cas-rest needs SAMLH_USERNAME and SAMLH_PASSWORD")
        }
        let service = try configuration.required("CAS_SERVICE")
        let validateURL = try configuration.requiredURL("CAS_VALIDATE_URL")
        // 1. The TGT. One password submission: a 401 here is final.
        try context.budget.spend(lastAnswer: "")
        var login = HTTPRequest.form(configuration.startURL, [("username", username), ("password", password)], behaviour: behaviour)
        login.headers.append(("Accept", "text/plain"))
        let created = try await http.send(login)
        guard created.status == 201, let location = created.header("Location"),
              let tgtURL = URL(string: location, relativeTo: configuration.startURL)?.absoluteURL else {
            let words = created.status == 401 ? " (password refused: \(created.text.prefix(300)))" : ""
            throw ClientFailure("\(created.errorSummary)\(words) from \(configuration.startURL.absoluteString)", resource: created.text)
        }
        // The TGT URL must stay on the CAS server that issued it (it is a credential).
        guard Origin(tgtURL) == Origin(configuration.startURL) else {
            throw ClientFailure("the TGT Location \(tgtURL.absoluteString) is not on the CAS server")
        }
        // 2. A service ticket for the service.
        var ticketRequest = HTTPRequest.form(tgtURL, [("service", service)], behaviour: behaviour)
        ticketRequest.headers.append(("Accept", "text/plain"))
        let issued = try await http.send(ticketRequest)
        let ticket = issued.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard issued.status == 200, ticket.hasPrefix("ST-") || ticket.hasPrefix("PT-") else {
            throw ClientFailure("no service ticket: \(issued.errorSummary) \(issued.text.prefix(200))", resource: issued.text)
        }
        // 3. Validation, with the very service string the ticket was issued for.
        let validationService = behaviour.validateWithIssuedService ? service
            : (service.hasSuffix("/") ? String(service.dropLast()) : service + "/")
        var validation = try await validate(ticket: ticket, service: validationService, at: validateURL)
        if !behaviour.useCASTicketOnce {
            validation = try await validate(ticket: ticket, service: validationService, at: validateURL)
        }
        // 4. Log out: the TGT is a live credential.
        _ = try? await http.send(HTTPRequest(method: "DELETE", url: tgtURL))
        return validation
    }

    private func validate(ticket: String, service: String, at validateURL: URL) async throws -> ClientResult {
        guard let url = FormEncoding.appendingQuery(validateURL, [("service", service), ("ticket", ticket)]) else {
            throw ClientFailure("cannot build the validation URL")
        }
        let answer = try await context.http.send(HTTPRequest(url: url))
        return try Self.judgeValidation(answer, ticket: ticket)
    }

    /// CAS 1 (`yes\n<user>`), CAS 2/3 XML `cas:authenticationSuccess` / `authenticationFailure`.
    static func judgeValidation(_ answer: HTTPResponse, ticket: String) throws -> ClientResult {
        let details = ["ticket": ticket, "validation_url": answer.url.absoluteString]
        if answer.text.hasPrefix("yes\n") {
            return ClientResult(outcome: .success, resource: answer.text, details: details)
        }
        if answer.text.hasPrefix("no\n") {
            throw ClientFailure("CAS 1 validation answered no", resource: answer.text)
        }
        guard answer.status == 200, let scan = XMLScan(answer.body) else {
            throw ClientFailure("validation failed: \(answer.errorSummary)", resource: answer.text)
        }
        if let failure = scan.first("authenticationFailure", namespace: casNamespace) {
            let code = failure.attributes["code"] ?? "?"
            throw ClientFailure("\(code): \(failure.text.trimmingCharacters(in: .whitespacesAndNewlines))", resource: answer.text)
        }
        guard let user = scan.first("user", namespace: casNamespace)?.text, scan.first("authenticationSuccess", namespace: casNamespace) != nil else {
            throw ClientFailure("the validation answer holds neither cas:authenticationSuccess nor a failure", resource: answer.text)
        }
        var result = ClientResult(outcome: .success, resource: answer.text, details: details)
        result.details["user"] = user
        return result
    }
}
