import Foundation

/// `adfs-wstrust`: a WS-Trust 1.3 (or Feb 2005) `RequestSecurityToken` with a WS-Security
/// `UsernameToken`, SOAP 1.2, to AD FS's `usernamemixed` endpoint; the RSTR (with its
/// signed SAML assertion) is the resource.
struct WSTrustFlow {
    let context: FlowContext

    static let soap12 = "http://www.w3.org/2003/05/soap-envelope"

    func run() async throws -> ClientResult {
        let configuration = context.configuration
        guard let username = configuration.username, let password = configuration.password else {
            throw ClientFailure("adfs-wstrust needs SAMLH_USERNAME and SAMLH_PASSWORD")
        }
        let endpoint = configuration.parameters["ADFS_ENDPOINT"].flatMap(URL.init(string:)) ?? configuration.startURL
        let appliesTo = try configuration.required("ADFS_APPLIES_TO")
        let envelope = Self.envelope(endpoint: endpoint, username: username, password: password, appliesTo: appliesTo,
                                     tokenType: configuration.parameters["ADFS_TOKEN_TYPE"].map(Self.tokenTypeURI),
                                     escape: context.behaviour.xmlEscapeWSTrustCredentials)
        try context.budget.spend(lastAnswer: "")
        let answer = try await context.http.send(HTTPRequest(method: "POST", url: endpoint, headers: [
            ("Content-Type", "application/soap+xml; charset=utf-8"),
        ], body: Data(envelope.utf8)))
        guard let scan = XMLScan(answer.body) else {
            throw ClientFailure("\(answer.errorSummary): the answer is not XML", resource: answer.text)
        }
        if scan.first("Fault", namespace: Self.soap12) != nil {
            // SOAP 1.2 §5.4.6: the innermost Subcode Value names the fault (a:FailedAuthentication).
            let code = scan.all("Value", namespace: Self.soap12).last?.text.trimmingCharacters(in: .whitespaces) ?? "?"
            let reason = scan.first("Text", namespace: Self.soap12)?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            throw ClientFailure("HTTP \(answer.status) \(code): \(reason)", resource: answer.text)
        }
        guard answer.status == 200, scan.first("RequestedSecurityToken") != nil else {
            throw ClientFailure("\(answer.errorSummary): no RequestedSecurityToken in the answer", resource: answer.text)
        }
        if context.behaviour.requireSignedToken, scan.first("SignatureValue", namespace: "http://www.w3.org/2000/09/xmldsig#") == nil {
            // A refused token is not a resource the client obtained: it is not reported.
            throw ClientFailure("the issued token carries no signature (unsigned token refused)")
        }
        if context.behaviour.checkTokenConditions {
            try Self.checkValidity(scan, answer: answer)
        }
        var details = ["endpoint": endpoint.absoluteString]
        details["token_type"] = scan.first("TokenType")?.text
        return ClientResult(outcome: .success, resource: answer.text, details: details)
    }

    /// `saml20` / `saml11` (the scenario shorthand) as token type URIs; others as given.
    static func tokenTypeURI(_ value: String) -> String {
        switch value.lowercased() {
        case "saml20", "saml2": "urn:oasis:names:tc:SAML:2.0:assertion"
        case "saml11", "saml1": "urn:oasis:names:tc:SAML:1.0:assertion"
        default: value
        }
    }

    /// SAML 2.0 Core §2.5.1.2 / SAML 1.1 Core §2.3.2.1: the assertion's Conditions
    /// `NotBefore` / `NotOnOrAfter` (and the RSTR `Lifetime`), with 180 s of clock skew.
    /// A client that caches the token must not cache a dead one.
    static func checkValidity(_ scan: XMLScan, answer: HTTPResponse, now: Date = Date(), skew: TimeInterval = 180) throws {
        let formatter = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func date(_ text: String?) -> Date? {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
            return formatter.date(from: text) ?? fractional.date(from: text)
        }
        var notOnOrAfter = scan.all("Conditions").compactMap { date($0.attributes["NotOnOrAfter"]) }
        var notBefore = scan.all("Conditions").compactMap { date($0.attributes["NotBefore"]) }
        if let lifetime = scan.first("Lifetime"), let index = scan.elements.firstIndex(where: { $0.name == "Lifetime" && $0.depth == lifetime.depth }) {
            let inside = scan.elements[(index + 1)...].prefix { $0.depth > lifetime.depth }
            notOnOrAfter += inside.filter { $0.name == "Expires" }.compactMap { date($0.text) }
            notBefore += inside.filter { $0.name == "Created" }.compactMap { date($0.text) }
        }
        if let expiry = notOnOrAfter.min(), expiry.addingTimeInterval(skew) <= now {
            throw ClientFailure("the issued token expired at \(formatter.string(from: expiry)) (NotOnOrAfter; now \(formatter.string(from: now)))")
        }
        if let start = notBefore.max(), start.addingTimeInterval(-skew) > now {
            throw ClientFailure("the issued token is not yet valid before \(formatter.string(from: start)) (NotBefore)")
        }
    }

    /// The RST, as MSAL writes it (Timestamp of ten minutes, Bearer key). The credentials
    /// are XML-escaped (XML 1.0 §2.4): a password `d<na&co]]>x` is `d&lt;na&amp;co]]&gt;x`.
    static func envelope(endpoint: URL, username: String, password: String, appliesTo: String,
                         tokenType: String?, escape: Bool, now: Date = Date()) -> String {
        let is2005 = endpoint.path.contains("/2005/")
        let trust = is2005 ? "http://schemas.xmlsoap.org/ws/2005/02/trust" : "http://docs.oasis-open.org/ws-sx/ws-trust/200512"
        let action = is2005 ? "http://schemas.xmlsoap.org/ws/2005/02/trust/RST/Issue" : "\(trust)/RST/Issue"
        let requestType = "\(trust)/Issue"
        let keyType = is2005 ? "http://schemas.xmlsoap.org/ws/2005/05/identity/NoProofKey" : "\(trust)/Bearer"
        let formatter = ISO8601DateFormatter()
        let created = formatter.string(from: now)
        let expires = formatter.string(from: now.addingTimeInterval(600))
        let text: (String) -> String = { escape ? XMLText.escape($0) : $0 }
        let tokenTypeElement = tokenType.map { "<trust:TokenType>\(XMLText.escape($0))</trust:TokenType>" } ?? ""
        return """
        <s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing" \
        xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">\
        <s:Header><wsa:Action s:mustUnderstand="1">\(action)</wsa:Action>\
        <wsa:MessageID>urn:uuid:\(UUID().uuidString.lowercased())</wsa:MessageID>\
        <wsa:To s:mustUnderstand="1">\(XMLText.escape(endpoint.absoluteString))</wsa:To>\
        <wsse:Security s:mustUnderstand="1" xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">\
        <wsu:Timestamp wsu:Id="_0"><wsu:Created>\(created)</wsu:Created><wsu:Expires>\(expires)</wsu:Expires></wsu:Timestamp>\
        <wsse:UsernameToken wsu:Id="uuid-\(UUID().uuidString.lowercased())"><wsse:Username>\(text(username))</wsse:Username>\
        <wsse:Password>\(text(password))</wsse:Password></wsse:UsernameToken></wsse:Security></s:Header>\
        <s:Body><trust:RequestSecurityToken xmlns:trust="\(trust)">\
        <wsp:AppliesTo xmlns:wsp="http://schemas.xmlsoap.org/ws/2004/09/policy"><wsa:EndpointReference>\
        <wsa:Address>\(XMLText.escape(appliesTo))</wsa:Address></wsa:EndpointReference></wsp:AppliesTo>\
        <trust:KeyType>\(keyType)</trust:KeyType><trust:RequestType>\(requestType)</trust:RequestType>\(tokenTypeElement)\
        </trust:RequestSecurityToken></s:Body></s:Envelope>
        """
    }
}
