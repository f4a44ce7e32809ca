import TestSupport
import Foundation
import MockServers
import SAMLCore

/// Builds WS-Trust requests the way AD FS clients write them (ADAL/MSAL shape) and reads the
/// answers, for the AD FS tests.
enum ADFSTestSupport {
    static let soap12 = "http://www.w3.org/2003/05/soap-envelope"
    static let wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
    static let trust13 = "http://docs.oasis-open.org/ws-sx/ws-trust/200512"
    static let trust2005 = "http://schemas.xmlsoap.org/ws/2005/02/trust"
    static let office365 = "urn:federation:MicrosoftOnline"
    static let aws = "urn:amazon:webservices"

    struct RST {
        var username: String
        /// Written into the envelope exactly as given: escape it yourself (or not, on purpose).
        var passwordXML: String
        var appliesTo: String = office365
        var trust2005 = false
        var tokenType: String?
        var action: String?
        var created: Date = Date()
        var lifetime: TimeInterval = 600
        var security = true
        var messageID = "urn:uuid:7f3e0d8c-5a4b-4c1d-9e2f-0a1b2c3d4e5f"
    }

    /// Writes an RST envelope. Every value but the password is XML-escaped.
    static func envelope(_ rst: RST, to endpoint: String) -> String {
        let e = XMLWriter.escapeText
        let trust = rst.trust2005 ? trust2005 : trust13
        let action = rst.action ?? (rst.trust2005 ? "http://schemas.xmlsoap.org/ws/2005/02/trust/RST/Issue"
            : "http://docs.oasis-open.org/ws-sx/ws-trust/200512/RST/Issue")
        let keyType = rst.trust2005 ? "http://schemas.xmlsoap.org/ws/2005/05/identity/NoProofKey"
            : "http://docs.oasis-open.org/ws-sx/ws-trust/200512/Bearer"
        let requestType = rst.trust2005 ? "http://schemas.xmlsoap.org/ws/2005/02/trust/Issue"
            : "http://docs.oasis-open.org/ws-sx/ws-trust/200512/Issue"
        let security = !rst.security ? "" : """
        <wsse:Security s:mustUnderstand="1" xmlns:wsse="\(wsse)">\
        <wsu:Timestamp wsu:Id="_0"><wsu:Created>\(SAMLDateTime.string(from: rst.created))</wsu:Created>\
        <wsu:Expires>\(SAMLDateTime.string(from: rst.created.addingTimeInterval(rst.lifetime)))</wsu:Expires></wsu:Timestamp>\
        <wsse:UsernameToken wsu:Id="uuid-1"><wsse:Username>\(e(rst.username))</wsse:Username>\
        <wsse:Password>\(rst.passwordXML)</wsse:Password></wsse:UsernameToken></wsse:Security>
        """
        return """
        <s:Envelope xmlns:s="\(soap12)" xmlns:wsa="http://www.w3.org/2005/08/addressing" \
        xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">\
        <s:Header><wsa:Action s:mustUnderstand="1">\(e(action))</wsa:Action>\
        <wsa:MessageID>\(e(rst.messageID))</wsa:MessageID>\
        <wsa:ReplyTo><wsa:Address>http://www.w3.org/2005/08/addressing/anonymous</wsa:Address></wsa:ReplyTo>\
        <wsa:To s:mustUnderstand="1">\(e(endpoint))</wsa:To>\(security)</s:Header>\
        <s:Body><wst:RequestSecurityToken xmlns:wst="\(trust)">\
        <wsp:AppliesTo xmlns:wsp="http://schemas.xmlsoap.org/ws/2004/09/policy"><wsa:EndpointReference>\
        <wsa:Address>\(e(rst.appliesTo))</wsa:Address></wsa:EndpointReference></wsp:AppliesTo>\
        \(rst.tokenType.map { "<wst:TokenType>\(e($0))</wst:TokenType>" } ?? "")\
        <wst:KeyType>\(keyType)</wst:KeyType><wst:RequestType>\(requestType)</wst:RequestType>\
        </wst:RequestSecurityToken></s:Body></s:Envelope>
        """
    }

    /// POSTs `rst` to the 13 (or 2005) usernamemixed endpoint.
    static func post(_ rst: RST, suite: MockSuite, browser: TestBrowser,
                     contentType: String = "application/soap+xml; charset=utf-8") async throws -> TestBrowser.Page {
        let info = suite.readyInfo().adfs
        let endpoint = rst.trust2005 ? info.usernameMixed2005 : info.usernameMixed13
        return try await browser.send("POST", endpoint, headers: [("Content-Type", contentType)],
                                      body: Array(envelope(rst, to: endpoint).utf8))
    }

    /// A fault's code, subcode (as written, `a:Local`) and reason.
    struct Fault {
        var code: String
        var subcode: String
        var reason: String
    }

    /// The subcode value as AD FS writes it: `a:` declared on the Value itself.
    static func subcode(_ local: String, namespace: String) -> String {
        "<s:Value xmlns:a=\"\(namespace)\">a:\(local)</s:Value>"
    }

    static func fault(_ body: String) throws -> Fault? {
        let document = try XMLDocument(parsing: body)
        guard let fault = document.root.firstChild("Body", soap12)?.firstChild("Fault", soap12),
              let code = fault.firstChild("Code", soap12) else { return nil }
        let value = code.firstChild("Subcode", soap12)?.firstChild("Value", soap12)
        return Fault(code: code.firstChild("Value", soap12)?.text ?? "", subcode: value?.text ?? "",
                     reason: fault.firstChild("Reason", soap12)?.firstChild("Text", soap12)?.text ?? "")
    }

    /// The token inside an RSTR (SAML 1.1 or 2.0 Assertion element).
    static func token(in document: XMLDocument) -> XMLElement? {
        (document.root.descendants("Assertion", SAMLNamespace.assertion11)
            + document.root.descendants("Assertion", SAMLNamespace.assertion)).first
    }

    static func verifier(_ suite: MockSuite) -> XMLSignatureVerifier {
        XMLSignatureVerifier(trustedCertificates: [suite.environment.profile.idpCertificate])
    }
}
