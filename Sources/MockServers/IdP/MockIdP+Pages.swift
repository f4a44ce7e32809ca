import Foundation
import SAMLCore

extension MockIdP {
    /// Renders the page of a flow's current step.
    func page(for flow: LoginFlow, path: String, error: String?, username: String = "") -> MockResponse {
        let templates = environment.profile.templates
        let personality = environment.profile.profile.personality
        let action = flowURL(flow, ssoPath: path)
        var hidden: [[String: String]] = []
        if personality == .simplesamlphp {
            hidden.append(["name": "AuthState", "value": flow.key])
        } else {
            hidden.append(["name": "csrf_token", "value": flow.csrfToken])
        }
        let sp = flow.pending.sp.entityID
        let html: String
        let step: String
        switch flow.step {
        case .login:
            if personality != .simplesamlphp {
                hidden.append(["name": "lt", "value": flow.loginTicket])
                hidden.append(["name": "execution", "value": flow.execution])
            }
            let fields = loginFieldNames
            var context: [String: Any] = [
                "action": action, "hidden": hidden, "sp": sp, "username": username,
                "usernameField": fields.username, "passwordField": fields.password,
                "submitName": fields.submit.isEmpty ? "submit" : fields.submit, "submitValue": "Login",
                "authState": flow.key, "csrfToken": flow.csrfToken, "loginTicket": flow.loginTicket,
                "execution": flow.execution,
            ]
            if let error { context["error"] = error }
            html = templates.login.render(context)
            step = "login"
        case .secondFactor:
            var context: [String: Any] = ["action": action, "hidden": hidden, "sp": sp, "codeField": "j_tokenNumber",
                                          "csrfToken": flow.csrfToken, "execution": flow.execution]
            if let error { context["error"] = error }
            html = templates.secondFactor.render(context)
            step = "second-factor"
        case .consent:
            let attributes = flow.user.map(AttributeNaming.attributes(for:)) ?? []
            let rows = attributes.map {
                ["name": AttributeNaming.friendlyName(of: $0), "value": $0.stringValues.joined(separator: "; "), "id": $0.name]
            }
            html = templates.consent.render(["action": action, "hidden": hidden, "sp": sp, "attributes": rows,
                                             "csrfToken": flow.csrfToken, "execution": flow.execution])
            step = "consent"
        }
        return MockResponse.html(html).annotated("idp.page", step)
    }

    /// The auto-submitting form that carries the Response to the SP's ACS (HTTP-POST
    /// binding, saml-bindings-2.0-os §3.5), with the knobs on the Response, its ACS URL,
    /// its RelayState and its base64 applied.
    func answer(pending: PendingSSO, user: TestUser?, status: Status?, setCookies: [SetCookie],
                session: IdPSession? = nil) throws -> MockResponse {
        let knobs = environment.knobs
        var sp = pending.sp
        if knobs.contains(.acsOther) { sp.acsURL = otherACS(for: sp) }
        let xml = try responseXML(pending: pending, sp: sp, user: user, status: status, session: session)
        var encoded = PostBinding.encode(Array(xml.utf8))
        for knob in knobs {
            if case .base64Wrapped(let width) = knob {
                encoded = SAMLBase64.encode(Array(xml.utf8), wrappingAt: width, lineEnding: "\r\n")
            }
        }
        var relayState = pending.relayState
        if knobs.contains(.relayStateDropped) { relayState = nil }
        if knobs.contains(.relayStateAltered) { relayState = (relayState ?? "") + "-altered" }
        let html = PostBinding.autoSubmitForm(action: sp.acsURL, encodedMessage: encoded, kind: .response,
                                              relayState: relayState)
        var response = MockResponse.html(html)
        for cookie in setCookies { response.setCookie(cookie) }
        if !knobs.isEmpty { response.annotations["idp.knobs"] = knobs.map(\.text).joined(separator: " ") }
        response.annotations["idp.acs"] = sp.acsURL
        return response
    }

    /// The Response XML for a pending request.
    func responseXML(pending: PendingSSO, sp: KnownSP, user: TestUser?, status: Status?, session: IdPSession?) throws -> String {
        let builder = IdPResponseBuilder(profile: environment.profile, knobs: environment.knobs,
                                         idpEntityID: environment.idpEntityID, clock: environment.clock,
                                         ids: environment.ids)
        let login = IssuedLogin(
            user: user ?? TestUser(username: "", password: ""), sp: sp, inResponseTo: pending.requestID,
            requestedNameIDFormat: pending.nameIDFormat, authnInstant: session?.authnInstant ?? environment.clock.now(),
            sessionIndex: session?.sessionIndex ?? token("_"), status: user == nil ? (status ?? .success) : status)
        return try builder.response(for: login)
    }
}
