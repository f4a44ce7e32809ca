import Foundation

/// SAML 2.0 ECP (saml-ecp-v2.0): PAOS request from the SP, the AuthnRequest to the IdP's
/// SOAP endpoint with HTTP Basic, the consumer-URL check, the Response to the SP, then the
/// resource.
///
/// The credentials go with the AuthnRequest, to the ECP endpoint the client is configured
/// with: SimpleSAMLphp 1.19 never challenges there (`UserPassBase::authenticate` reads
/// `PHP_AUTH_USER` and answers a Responder status, `WRONGUSERPASS`, when it is missing — seen
/// in the recording of a real one, Tests/HarnessTests/Fixtures/recorded/real/), and an IdP that
/// does challenge (Shibboleth's container-protected endpoint) gets its 401 answered.
struct ECPFlow {
    let context: FlowContext

    static let paosContentType = "application/vnd.paos+xml"
    /// saml-ecp-v2.0 §2.3.1: the PAOS header an ECP sends.
    static let paosHeader = "ver=\"urn:liberty:paos:2003-08\";\"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp\""
    static let soap11 = "http://schemas.xmlsoap.org/soap/envelope/"
    static let paos = "urn:liberty:paos:2003-08"
    static let ecp = "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp"

    func run() async throws -> ClientResult {
        let configuration = context.configuration
        let http = context.http
        // 1. saml-ecp-v2.0 §2.3.1: announce ECP; the SP answers a PAOS request.
        let start = try await http.follow(HTTPRequest(url: configuration.startURL, headers: [
            ("Accept", "text/html; \(Self.paosContentType)"), ("PAOS", Self.paosHeader),
        ]))
        guard start.mediaType == Self.paosContentType, let scan = XMLScan(start.body),
              let paosRequest = scan.first("Request", namespace: Self.paos),
              let consumerURL = paosRequest.attributes["responseConsumerURL"],
              let authnRequest = XMLText.rawContent(of: "Body", in: start.text) else {
            throw ClientFailure("the SP did not answer a PAOS request: \(start.errorSummary) (\(start.mediaType))", resource: start.text)
        }
        let relayState = Self.headerBlock("RelayState", in: start.text)
        // 2. §2.3.3: the AuthnRequest to the IdP in a SOAP envelope, with HTTP Basic.
        let idpURL = try configuration.requiredURL("IDP_ECP_URL")
        let envelope = Self.envelope(body: authnRequest)
        var soap = HTTPRequest(method: "POST", url: idpURL, headers: [("Content-Type", "text/xml; charset=utf-8")],
                               body: Data(envelope.utf8))
        let sent = configuration.username != nil && configuration.password != nil
        if let username = configuration.username, let password = configuration.password {
            try context.budget.spend(refused: false, lastAnswer: "")
            soap.authorization = Challenge.basicCredentials(username: username, password: password)
        }
        var idpAnswer = try await http.follow(soap)
        if let answered = try await ChallengeResponder(http: http, configuration: configuration, budget: context.budget)
            .answer(idpAnswer, credentialsSent: sent) {
            idpAnswer = answered
        }
        guard let idpScan = XMLScan(idpAnswer.body) else {
            throw ClientFailure("the IdP's ECP answer is not XML: \(idpAnswer.errorSummary)", resource: idpAnswer.text)
        }
        if idpScan.first("Fault", namespace: Self.soap11) != nil {
            let code = idpScan.first("faultcode")?.text ?? ""
            let text = idpScan.first("faultstring")?.text ?? ""
            throw ClientFailure("HTTP \(idpAnswer.status) SOAP fault from the IdP: \(code): \(text)", resource: idpAnswer.text)
        }
        guard idpAnswer.status == 200, let ecpResponse = idpScan.first("Response", namespace: Self.ecp),
              let acs = ecpResponse.attributes["AssertionConsumerServiceURL"],
              let samlResponse = XMLText.rawContent(of: "Body", in: idpAnswer.text) else {
            throw ClientFailure("the IdP did not answer an ECP Response: \(idpAnswer.errorSummary)", resource: idpAnswer.text)
        }
        // 3. saml-ecp-v2.0 §2.3.4 (saml-profiles-2.0-os §4.2.4.4): the ACS URL the IdP names
        //    must be the responseConsumerURL the SP gave, or the Response goes nowhere.
        if context.behaviour.checkECPConsumerURL, acs != consumerURL {
            throw ClientFailure("ecp consumer URL mismatch: the IdP's AssertionConsumerServiceURL \(acs) is not the SP's responseConsumerURL \(consumerURL); the Response was not sent")
        }
        if context.behaviour.requireSignedToken, !samlResponse.contains("SignatureValue") {
            throw ClientFailure("the IdP's Response carries no signature (unsigned Response refused)")
        }
        guard let acsURL = URL(string: acs) else { throw ClientFailure("AssertionConsumerServiceURL is not a URL: \(acs)") }
        // 4. §2.3.6: the Response (byte for byte) and the RelayState back to the SP.
        let back = Self.envelope(body: samlResponse, header: relayState)
        let final = try await http.follow(HTTPRequest(method: "POST", url: acsURL, headers: [
            ("Content-Type", Self.paosContentType), ("Accept", "text/html; \(Self.paosContentType)"), ("PAOS", Self.paosHeader),
        ], body: Data(back.utf8)))
        let details = ["final_url": final.url.absoluteString, "final_status": String(final.status), "acs": acs]
        guard final.status == 200 else {
            throw ClientFailure("\(final.errorSummary) at \(final.url.absoluteString)", resource: final.text)
        }
        return ClientResult(outcome: .success, resource: final.text, details: details)
    }

    /// A SOAP 1.1 envelope around `body` (and header blocks), written as text so the SAML
    /// message inside keeps its bytes.
    static func envelope(body: String, header: String? = nil) -> String {
        var xml = "<S:Envelope xmlns:S=\"\(soap11)\">"
        if let header { xml += "<S:Header>\(header)</S:Header>" }
        return xml + "<S:Body>\(body)</S:Body></S:Envelope>"
    }

    /// The whole `ecp:RelayState` header block as sent (so it goes back unchanged).
    static func headerBlock(_ local: String, in xml: String) -> String? {
        guard let content = XMLText.rawContent(of: local, in: xml) else { return nil }
        return "<ecp:\(local) xmlns:ecp=\"\(ecp)\" xmlns:S=\"\(soap11)\" S:mustUnderstand=\"1\" S:actor=\"http://schemas.xmlsoap.org/soap/actor/next\">\(content)</ecp:\(local)>"
    }
}
