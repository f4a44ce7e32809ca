import Foundation

/// What a browser does between a start URL and the page the user wanted: follow redirects,
/// answer HTTP challenges, fill the login form (password, second factor), answer the
/// consent page, and submit the IdP's auto-post form — Web SSO (SP- and IdP-initiated),
/// CAS login, AD FS forms sign-in, the OPDS login and a fulfilment that asks again.
struct BrowserFlow {
    let http: HTTPSession
    let configuration: ClientConfiguration
    let behaviour: ClientBehaviour
    let budget: PasswordBudget
    let maxPages = 16
    /// Where an auto-post form may be submitted; a form addressed elsewhere (an off-box
    /// relying party such as AWS sign-in) ends the walk unsubmitted, for the flow to read.
    var mayPost: @Sendable (URL) -> Bool = { _ in true }

    /// Opens `url` and walks until a page that asks nothing of the user.
    func open(_ url: URL) async throws -> HTTPResponse {
        var request = HTTPRequest(url: url, headers: [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")])
        if behaviour.sendCredentialsBeforeChallenge, let username = configuration.username {
            // Bug variant: Basic credentials before any challenge.
            request.authorization = Challenge.basicCredentials(username: username, password: configuration.password ?? "")
        }
        return try await walk(from: http.follow(request))
    }

    /// Walks from `first`; returns the first page that is neither a challenge nor a form the
    /// client knows, or a redirect to an app callback.
    func walk(from first: HTTPResponse) async throws -> HTTPResponse {
        var page = first
        for _ in 0..<maxPages {
            if page.redirectTarget != nil { return page }
            if let answered = try await ChallengeResponder(http: http, configuration: configuration, budget: budget).answer(page) {
                page = answered
                continue
            }
            guard page.mediaType.contains("html"), let step = try nextStep(after: page) else { return page }
            page = try await http.follow(step)
        }
        throw ClientFailure("the login did not end after \(maxPages) pages; last page \(page.url.absoluteString) (\(page.errorSummary))")
    }

    /// The request the user would make on `page`, or nil.
    func nextStep(after page: HTTPResponse) throws -> HTTPRequest? {
        let forms = HTMLForm.forms(in: page.text)
        if let form = forms.first(where: { $0.has("SAMLResponse") }) {
            guard let action = form.actionURL(relativeTo: page.url), mayPost(action) else { return nil }
            return try autoPost(form, on: page)
        }
        if let form = forms.first(where: { $0.passwordField != nil }), let passwordField = form.passwordField {
            guard let username = configuration.username, let password = configuration.password else {
                throw ClientFailure("\(page.errorSummary): a login form asks for a password and none was given")
            }
            // A password form answering our own password post is a refusal.
            let refused = page.request.method == "POST"
                && String(decoding: page.request.body ?? Data(), as: UTF8.self).contains(FormEncoding.encode(passwordField) + "=")
            try budget.spend(refused: refused, lastAnswer: page.errorSummary)
            var values = [passwordField: password]
            if let usernameField = form.usernameField { values[usernameField] = username }
            return try submit(form, on: page, values: values)
        }
        if let form = forms.first(where: { $0.has("j_tokenNumber") }) {
            guard let code = configuration.secondFactorCode else {
                throw ClientFailure("\(page.errorSummary): the IdP asks for a second factor and SAMLH_SECOND_FACTOR_CODE is not set")
            }
            return try submit(form, on: page, values: ["j_tokenNumber": code], submitter: "_eventId_proceed")
        }
        if let form = forms.first(where: { $0.has("_shib_idp_consentIds") || $0.has("_eventId_AttributeReleaseRejected") }) {
            let decline = configuration.parameters["CONSENT"]?.lowercased() == "decline"
            return try submit(form, on: page, values: [:], submitter: decline ? "_eventId_AttributeReleaseRejected" : "_eventId_proceed")
        }
        return nil
    }

    /// saml-bindings-2.0-os §3.5.4: the browser posts the form's `SAMLResponse` and
    /// `RelayState` exactly as the IdP wrote them (after HTML attribute decoding),
    /// form-URL-encoded — `+`, `/` and `=` in base64 must arrive as `%2B`, `%2F`, `%3D`.
    func autoPost(_ form: HTMLForm, on page: HTTPResponse) throws -> HTTPRequest {
        guard let action = form.actionURL(relativeTo: page.url) else {
            throw ClientFailure("the auto-post form's action is not a URL: '\(form.action)'")
        }
        var entries = form.entries([:])
        if !behaviour.keepBase64Padding {
            entries = entries.map { $0.0 == "SAMLResponse" ? ($0.0, String($0.1.reversed().drop { $0 == "=" }.reversed())) : $0 }
        }
        if !behaviour.echoRelayState {
            entries.removeAll { $0.0 == "RelayState" }
        }
        return HTTPRequest.form(action, entries, behaviour: behaviour)
    }

    /// Submits `form` as a browser would (POST body or GET query).
    func submit(_ form: HTMLForm, on page: HTTPResponse, values: [String: String], submitter: String? = nil) throws -> HTTPRequest {
        guard let action = form.actionURL(relativeTo: page.url) else {
            throw ClientFailure("the form's action is not a URL: '\(form.action)'")
        }
        let entries = form.entries(values, submitter: submitter)
        if form.method == "get" {
            var base = action.absoluteString
            if let question = base.firstIndex(of: "?") { base = String(base[..<question]) }
            guard let url = URL(string: base).flatMap({ FormEncoding.appendingQuery($0, entries) }) else {
                throw ClientFailure("cannot build the form's GET URL from '\(form.action)'")
            }
            return HTTPRequest(url: url)
        }
        return HTTPRequest.form(action, entries, behaviour: behaviour)
    }
}
