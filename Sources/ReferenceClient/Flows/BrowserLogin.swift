import Foundation

/// The browser-driven flows: SP-initiated Web SSO (`web-sso`), IdP-initiated
/// (`web-sso-idp-initiated`), CAS login through its application (`cas-browser`) and AD FS
/// forms sign-in (`adfs-passive`), whatever is behind a proxy (`proxy`) and a recorded chain
/// replayed live (`replay`). Success is a `200` at the origin of the resource;
/// any other last page is a failure in that page's words.
struct BrowserLogin {
    let context: FlowContext

    func run() async throws -> ClientResult {
        let configuration = context.configuration
        let resourceOrigin = try self.resourceOrigin()
        var start = configuration.startURL
        if configuration.flow == .adfsPassive, FormEncoding.queryValue("loginToRp", in: start) == nil {
            // AD FS: choose the relying party as the sign-on page's select would.
            let party = try configuration.required("ADFS_RELYING_PARTY")
            guard let url = FormEncoding.appendingQuery(start, [("loginToRp", party)]) else {
                throw ClientFailure("cannot add loginToRp to \(start.absoluteString)")
            }
            start = url
        }
        var browser = context.browser
        if configuration.flow == .adfsPassive, let origin = resourceOrigin {
            // A relying party elsewhere (AWS: https://signin.aws.amazon.com/saml) gets no POST
            // from us: tools like saml2aws read its Response locally and exchange it themselves.
            browser.mayPost = { Origin($0) == origin }
        }
        var final = try await browser.open(start)
        if let offBox = try Self.unsentResponse(final) { return offBox }
        var result = try judge(final, origin: resourceOrigin)
        if configuration.parameters["SECOND_LOGIN"] == "1" {
            // End the session at the resource only: the cookies its server set for the
            // resource's path. The IdP's session cookie stays — even when the IdP shares the
            // origin, as CAS and its application do (TGC on /cas/, the app's on /app/) — so
            // the IdP must let the user in without the password.
            if let origin = resourceOrigin {
                let resource = configuration.flow == .casBrowser ? try configuration.requiredURL("CAS_SERVICE") : start
                context.http.cookies.forget(setBy: origin, applyingTo: resource.path(percentEncoded: true))
            }
            let before = context.budget.count
            final = try await context.browser.open(start)
            result = try judge(final, origin: resourceOrigin)
            result.details["second_login_password_submissions"] = String(context.budget.count - before)
        }
        return result
    }

    /// Where the protected resource lives: the start URL's origin for SP-initiated Web SSO,
    /// the SP for IdP-initiated and AD FS, the CAS service for CAS.
    private func resourceOrigin() throws -> Origin? {
        let configuration = context.configuration
        switch configuration.flow {
        case .webSSO, .proxy, .replay: return Origin(configuration.startURL)
        case .casBrowser: return Origin(try configuration.requiredURL("CAS_SERVICE"))
        default: return configuration.parameters["SP_URL"].flatMap(URL.init(string:)).flatMap(Origin.init)
        }
    }

    /// An auto-post page left unsubmitted (``BrowserFlow/mayPost``): its decoded Response is
    /// the resource.
    static func unsentResponse(_ page: HTTPResponse) throws -> ClientResult? {
        guard page.status == 200, let form = HTMLForm.forms(in: page.text).first(where: { $0.has("SAMLResponse") }),
              let value = form.value("SAMLResponse") else { return nil }
        let compact = value.filter { !$0.isWhitespace }
        guard let xml = Data(base64Encoded: compact) else {
            throw ClientFailure("the SAMLResponse for \(form.action) is not base64", resource: page.text)
        }
        let text = String(decoding: xml, as: UTF8.self)
        guard text.contains("urn:oasis:names:tc:SAML:2.0:status:Success") else {
            throw ClientFailure("the Response for \(form.action) is not a success", resource: text)
        }
        return ClientResult(outcome: .success, resource: text,
                            details: ["final_url": page.url.absoluteString, "final_status": "200", "unsent_to": form.action])
    }

    private func judge(_ final: HTTPResponse, origin: Origin?) throws -> ClientResult {
        let details = ["final_url": final.url.absoluteString, "final_status": String(final.status)]
        if final.status == 200 {
            if !context.behaviour.detectIdPErrorPages || origin == nil || Origin(final.url) == origin {
                return ClientResult(outcome: .success, resource: final.text, details: details)
            }
            throw ClientFailure("the login ended on \(final.url.absoluteString), not at \(origin?.description ?? "?"): \(final.errorSummary)",
                                resource: final.text)
        }
        throw ClientFailure("\(final.errorSummary) at \(final.url.absoluteString)", resource: final.text)
    }
}
