import Foundation
import SAMLCore

extension ADFSServer {
    /// AD FS's default `WIASupportedUserAgents` (Windows Server 2016/2019): the user agents
    /// sent to Windows Integrated Authentication rather than the forms page. `=~` entries are
    /// regular expressions, the rest substrings.
    static let wiaUserAgents = ["MSAuthHost/1.0/In-Domain", "MSIE 6.0", "MSIE 7.0", "MSIE 8.0", "MSIE 9.0", "MSIE 10.0",
                                "Trident/7.0", "MSIPC", "Windows Rights Management Client", "MS_WorkFoldersClient",
                                "=~Windows\\s*NT.*Edge"]

    /// Whether a passive sign-in from this request goes to WIA: its user agent is on the list,
    /// or knob `adfs-wia` widened the list to everyone.
    func wantsWIA(_ request: MockRequest) -> Bool {
        if environment.knobs.contains(.adfs(.wia)) { return true }
        let agent = request.header("User-Agent") ?? ""
        return Self.wiaUserAgents.contains { entry in
            entry.hasPrefix("=~") ? agent.range(of: String(entry.dropFirst(2)), options: .regularExpression) != nil
                : agent.contains(entry)
        }
    }

    /// The redirect AD FS gives a WIA-capable user agent: the same sign-in, at `/adfs/ls/wia`.
    func redirectToWIA(query raw: String?, returnTo path: String) -> MockResponse {
        var query = "ReturnPath=" + PercentEncoding.queryComponentEncode(path)
        if let raw, !raw.isEmpty { query += "&" + raw }
        return MockResponse.redirect(Path.wia + "?" + query).annotated("adfs.page", "wia-redirect")
    }

    /// `/adfs/ls/wia`: 401 `Negotiate`, `NTLM` until a handshake on one connection proves the
    /// password (``NTLMAuthenticator``); then the session cookies, as the forms sign-in sets
    /// them, and a redirect back to the sign-in it came from, which now answers with the
    /// auto-post form.
    func windowsIntegrated(_ request: MockRequest) -> MockResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(request.method, allowed: ["GET"]) }
        let returnPath = request.queryValue("ReturnPath").flatMap { path in [Path.idpInitiatedSignOn, Path.ls].first { $0.caseInsensitiveCompare(path) == .orderedSame } }
            ?? Path.idpInitiatedSignOn
        let rest = QueryParameter.parse(request.rawQuery ?? "").filter { $0.name != "ReturnPath" }
        let back = returnPath + (rest.isEmpty ? "" : "?" + rest.map { $0.raw }.joined(separator: "&"))
        switch wia.judge(request.header("Authorization"), offer: .negotiateAndNTLM, connectionID: request.connectionID) {
        case .challenge(let values, _, let detail, let notes, let closeConnection):
            var response = errorPage(status: 401, relyingParty: nil,
                                     detail: "Windows Integrated Authentication is required (\(values.map { String($0.prefix { $0 != " " }) }.joined(separator: ", "))): \(detail).",
                                     request: request)
            for value in values { response.addHeader("WWW-Authenticate", value) }
            if closeConnection { response.addHeader("Connection", "close") }
            response.annotations.merge(notes) { _, new in new }
            return response.annotated("adfs.page", "wia").annotated("adfs.login", notes[NTLMAuthenticator.Key.message] == "authenticate" ? "bad-password" : "wia-challenge")
        case .malformed(let detail, let notes):
            var response = errorPage(status: 400, relyingParty: nil, detail: "The Authorization header cannot be read: \(detail).", request: request)
            response.annotations.merge(notes) { _, new in new }
            return response.annotated("adfs.page", "wia")
        case .granted(let user, _, let finalValue, let notes):
            let now = environment.clock.now()
            let key = token()
            state.save(session: ADFSSession(user: user, authnInstant: now, sessionIndex: "_" + token()), key: key)
            var response = MockResponse.redirect(back)
            if let finalValue { response.addHeader("WWW-Authenticate", finalValue) }
            response.setCookie(SetCookie(name: CookieName.auth, value: key, path: CookieName.path, secure: false))
            response.setCookie(SetCookie(name: CookieName.authenticated,
                                         value: Data(SAMLDateTime.string(from: now).utf8).base64EncodedString(), path: CookieName.path))
            response.annotations.merge(notes) { _, new in new }
            return response.annotated("adfs.page", "wia").annotated("adfs.login", "ok").annotated("adfs.user", user.username)
                .annotated("adfs.auth-method", "windows")
        }
    }
}
