import Foundation

/// `opds-saml` (Library Simplified / SimplyE): read the Authentication for OPDS document,
/// log in through the chosen IdP with `redirect_uri` (a web view's job: ``BrowserFlow``),
/// take `access_token` from the final redirect, then borrow and fulfil a book with
/// `Authorization: Bearer` and the stored cookies. A `credentials-invalid` problem document
/// gets one new login and the failed action is done again.
struct OPDSFlow {
    let context: FlowContext

    static let samlAuthType = "http://librarysimplified.org/authtype/SAML-2.0"
    static let credentialsInvalid = "http://librarysimplified.org/terms/problem/credentials-invalid"
    static let borrowRel = "http://opds-spec.org/acquisition/borrow"
    static let acquisitionRel = "http://opds-spec.org/acquisition"
    /// An app's own callback scheme, as the SimplyE apps use; never fetched.
    static let callback = "samlharness-reference://authenticated"

    /// The login state across actions.
    final class Session: @unchecked Sendable {
        var token = ""
        var logins = 0
        var relogins = 0
    }

    func run() async throws -> ClientResult {
        let configuration = context.configuration
        let http = context.http
        let documentURL = configuration.parameters["OPDS_AUTH_DOCUMENT"].flatMap(URL.init(string:)) ?? configuration.startURL
        let document = try await http.follow(HTTPRequest(url: documentURL, headers: [("Accept", "application/vnd.opds.authentication.v1.0+json")]))
        let authenticate = try Self.authenticateLink(in: document, idp: configuration.parameters["OPDS_IDP_ENTITY_ID"])
        let session = Session()
        try await login(authenticate, session)
        var secondLogin: [String: String] = [:]
        if configuration.parameters["SECOND_LOGIN"] == "1" {
            // Signed out of the app and in again (`SAMLH_SECOND_LOGIN`): the app's token is
            // new, the IdP's session cookies are kept, so the IdP must let the user in
            // without the password.
            let before = context.budget.count
            try await login(authenticate, session)
            secondLogin["second_login_password_submissions"] = String(context.budget.count - before)
        }

        // The catalog: the chosen book's borrow link.
        let catalogURL = try configuration.requiredURL("OPDS_CATALOG")
        let catalog = try await authorized(session, authenticate) { HTTPRequest(url: catalogURL) }
        let book = configuration.parameters["OPDS_BOOK"]
        guard let borrowURL = Self.link(rel: Self.borrowRel, in: catalog, entryID: book) else {
            throw ClientFailure("no borrow link\(book.map { " for book \($0)" } ?? "") in the catalog: \(catalog.errorSummary)", resource: catalog.text)
        }
        // Borrow, then the loan's fulfil link.
        let loan = try await authorized(session, authenticate) { HTTPRequest(url: borrowURL) }
        guard loan.status == 200 || loan.status == 201, let fulfilURL = Self.link(rel: Self.acquisitionRel, in: loan, entryID: nil) else {
            throw ClientFailure("borrow failed: \(Self.problem(loan) ?? loan.errorSummary)", resource: loan.text)
        }
        await context.emit(.step("borrowed"))
        // Fulfil: perhaps a redirect chain, perhaps the IdP again, then the book.
        var fulfilled = try await authorized(session, authenticate) { HTTPRequest(url: fulfilURL) }
        if fulfilled.mediaType.contains("html") {
            fulfilled = try await context.browser.walk(from: fulfilled)
        }
        let type = fulfilled.mediaType
        guard fulfilled.status == 200, type == "application/epub+zip" || type == "application/pdf" else {
            throw ClientFailure("fulfil failed: \(Self.problem(fulfilled) ?? fulfilled.errorSummary) at \(fulfilled.url.absoluteString)",
                                resource: fulfilled.text)
        }
        let sha256 = SHA256.hex(Array(fulfilled.body))
        await context.emit(.step("fulfilled"))
        return ClientResult(outcome: .success, resource: "sha256=\(sha256)\ncontent-type=\(fulfilled.header("Content-Type") ?? type)\nbytes=\(fulfilled.body.count)\n",
                            details: ["sha256": sha256, "content_type": type, "logins": String(session.logins),
                                      "relogins": String(session.relogins), "final_url": fulfilled.url.absoluteString]
                                .merging(secondLogin) { first, _ in first })
    }

    /// Sends `make()` with the bearer token (to the circulation manager's origin only;
    /// `HTTPSession.follow` drops it on a redirect elsewhere). On `credentials-invalid`:
    /// one new login, then the same action again.
    private func authorized(_ session: Session, _ authenticate: URL, _ make: () -> HTTPRequest) async throws -> HTTPResponse {
        var request = make()
        request.authorization = "Bearer " + session.token
        var response = try await context.http.follow(request)
        guard Self.isCredentialsInvalid(response) else { return response }
        guard context.behaviour.reloginOnCredentialsInvalid, session.relogins == 0 else {
            throw ClientFailure("credentials-invalid: \(Self.problem(response) ?? response.errorSummary) (after \(session.relogins) re-login)",
                                resource: response.text)
        }
        session.relogins += 1
        try await login(authenticate, session)
        request = make()
        request.authorization = "Bearer " + session.token
        response = try await context.http.follow(request)
        if Self.isCredentialsInvalid(response) {
            throw ClientFailure("credentials-invalid again after a new login: \(Self.problem(response) ?? "")", resource: response.text)
        }
        return response
    }

    /// The SAML login: `authenticate` + `redirect_uri`, the IdP pages, then the redirect to
    /// `redirect_uri?access_token=…&patron_info=…` (or `?error=<problem>`).
    private func login(_ authenticate: URL, _ session: Session) async throws {
        guard let start = FormEncoding.appendingQuery(authenticate, [("redirect_uri", Self.callback)]) else {
            throw ClientFailure("cannot add redirect_uri to \(authenticate.absoluteString)")
        }
        let final = try await context.browser.open(start)
        guard let target = final.redirectTarget, target.absoluteString.hasPrefix(Self.callback) else {
            throw ClientFailure("the SAML login did not end at redirect_uri: \(Self.problem(final) ?? final.errorSummary) at \(final.url.absoluteString)",
                                resource: final.text)
        }
        if let error = FormEncoding.queryValue("error", in: target) {
            throw ClientFailure("the circulation manager refused the login: \(error)")
        }
        guard let token = FormEncoding.queryValue("access_token", in: target), !token.isEmpty else {
            throw ClientFailure("no access_token in \(target.absoluteString)")
        }
        session.token = token
        session.logins += 1
        await context.emit(.tokenObtained(count: session.logins))
    }

    /// The `authenticate` link of the SAML auth type for `idp` (or the first).
    static func authenticateLink(in document: HTTPResponse, idp: String?) throws -> URL {
        guard document.status == 200, let json = try? JSONSerialization.jsonObject(with: document.body) as? [String: Any],
              let flows = json["authentication"] as? [[String: Any]] else {
            throw ClientFailure("no authentication document: \(document.errorSummary)", resource: document.text)
        }
        let links = flows.filter { $0["type"] as? String == samlAuthType }
            .flatMap { ($0["links"] as? [[String: Any]]) ?? [] }
            .filter { $0["rel"] as? String == "authenticate" }
            .compactMap { ($0["href"] as? String).flatMap { URL(string: $0, relativeTo: document.url)?.absoluteURL } }
        let chosen = idp.flatMap { entity in links.first { FormEncoding.queryValue("idp_entity_id", in: $0) == entity } } ?? links.first
        guard let chosen else { throw ClientFailure("the authentication document lists no \(samlAuthType) authenticate link") }
        return chosen
    }

    /// The href of the first link with `rel` (in the entry whose id ends with `:entryID`).
    static func link(rel: String, in response: HTTPResponse, entryID: String?) -> URL? {
        guard let scan = XMLScan(response.body) else { return nil }
        var inWantedEntry = entryID == nil
        var entryDepth = 0
        for element in scan.elements {
            if element.name == "entry" { entryDepth = element.depth; inWantedEntry = entryID == nil }
            if let entryID, element.name == "id", element.depth == entryDepth + 1 {
                let id = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
                inWantedEntry = id == entryID || id.hasSuffix(":" + entryID) || id.hasSuffix("/" + entryID)
            }
            if inWantedEntry, element.name == "link", element.attributes["rel"] == rel, let href = element.attributes["href"] {
                return URL(string: href, relativeTo: response.url)?.absoluteURL
            }
        }
        return nil
    }

    static func isCredentialsInvalid(_ response: HTTPResponse) -> Bool {
        guard response.status == 401, response.mediaType.hasSuffix("problem+json") else { return false }
        let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return object?["type"] as? String == credentialsInvalid
    }

    /// "credentials-invalid: Invalid credentials (detail)" from a problem document.
    static func problem(_ response: HTTPResponse) -> String? {
        guard response.mediaType.hasSuffix("problem+json"),
              let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else { return nil }
        let type = (object["type"] as? String).map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "problem"
        return "HTTP \(response.status) \(type): \(object["title"] as? String ?? "") (\(object["detail"] as? String ?? ""))"
    }
}
