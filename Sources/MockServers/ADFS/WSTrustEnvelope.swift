import Foundation
import SAMLCore

/// Writes the SOAP 1.2 envelopes the usernamemixed endpoints answer with, in AD FS's shape:
/// `s:`, `a:` (WS-Addressing) and `u:` (wsu) declared on the Envelope, an `a:Action`, an
/// `a:RelatesTo` naming the request's MessageID, and an `o:Security` header carrying only a
/// five-minute `u:Timestamp`.
enum WSTrustEnvelope {
    static let contentType = "application/soap+xml; charset=utf-8"

    static func header(_ w: inout XMLWriter, action: String, relatesTo: String?, now: Date) {
        let time = { (date: Date) in SAMLDateTime.string(from: date, precision: .milliseconds) }
        w.open("s:Header")
        w.element("a:Action", ["s:mustUnderstand": "1"], text: action)
        if let relatesTo { w.element("a:RelatesTo", text: relatesTo) }
        w.open("o:Security", ["s:mustUnderstand": "1", "xmlns:o": WSTrustNamespace.wsse])
        w.open("u:Timestamp", ["u:Id": "_0"])
        w.element("u:Created", text: time(now))
        w.element("u:Expires", text: time(now.addingTimeInterval(300)))
        w.close("u:Timestamp")
        w.close("o:Security")
        w.close("s:Header")
    }

    static func openEnvelope(_ w: inout XMLWriter) {
        w.open("s:Envelope", ["xmlns:s": WSTrustNamespace.soap12, "xmlns:a": WSTrustNamespace.addressing,
                              "xmlns:u": WSTrustNamespace.wsu])
    }

    /// A fault envelope (SOAP 1.2 Part 1 §5.4).
    static func fault(_ fault: WSTrustFault, relatesTo: String?, now: Date) -> String {
        var w = XMLWriter()
        openEnvelope(&w)
        header(&w, action: WSTrustNamespace.faultAction, relatesTo: relatesTo, now: now)
        w.open("s:Body")
        w.open("s:Fault")
        w.open("s:Code")
        w.element("s:Value", text: fault.code.rawValue)
        w.open("s:Subcode")
        w.element("s:Value", ["xmlns:a": fault.subcodeNamespace], text: "a:" + fault.subcode)
        w.close("s:Subcode")
        w.close("s:Code")
        w.open("s:Reason")
        w.element("s:Text", ["xml:lang": "en-US"], text: fault.reason)
        w.close("s:Reason")
        if let detail = fault.clientDetail {
            // SOAP 1.2 §5.4.5: application-specific detail, here why the message was unreadable.
            w.open("s:Detail")
            w.element("e:Malformed", ["xmlns:e": "urn:samlharness:mock:adfs"], text: detail)
            w.close("s:Detail")
        }
        w.close("s:Fault")
        w.close("s:Body")
        w.close("s:Envelope")
        return w.output
    }

    /// The issued token's RSTR: WS-Trust 1.3 wraps it in a `RequestSecurityTokenResponseCollection`
    /// (WS-Trust 1.3 §4.3), February 2005 sends the RSTR alone.
    static func response(_ token: ADFSIssuedToken, appliesTo: String, version: WSTrustVersion, relatesTo: String?,
                         now: Date) -> String {
        let t = version.prefix
        let time = { (date: Date) in SAMLDateTime.string(from: date, precision: .milliseconds) }
        var w = XMLWriter()
        openEnvelope(&w)
        header(&w, action: version.responseAction, relatesTo: relatesTo, now: now)
        w.open("s:Body")
        if version == .trust13 {
            w.open("trust:RequestSecurityTokenResponseCollection", ["xmlns:trust": version.namespace])
            w.open("trust:RequestSecurityTokenResponse")
        } else {
            w.open("t:RequestSecurityTokenResponse", ["xmlns:t": version.namespace])
        }
        w.open("\(t):Lifetime")
        w.element("wsu:Created", ["xmlns:wsu": WSTrustNamespace.wsu], text: time(token.created))
        w.element("wsu:Expires", ["xmlns:wsu": WSTrustNamespace.wsu], text: time(token.expires))
        w.close("\(t):Lifetime")
        w.open("wsp:AppliesTo", ["xmlns:wsp": WSTrustNamespace.policy])
        w.open("wsa:EndpointReference", ["xmlns:wsa": WSTrustNamespace.addressing])
        w.element("wsa:Address", text: appliesTo)
        w.close("wsa:EndpointReference")
        w.close("wsp:AppliesTo")
        w.open("\(t):RequestedSecurityToken")
        w.raw(token.xml)
        w.close("\(t):RequestedSecurityToken")
        for reference in ["RequestedAttachedReference", "RequestedUnattachedReference"] {
            w.open("\(t):\(reference)")
            securityTokenReference(&w, token)
            w.close("\(t):\(reference)")
        }
        let tokenType = token.kind == .saml11 ? WSTrustNamespace.saml11TokenType : WSTrustNamespace.saml20TokenType
        w.element("\(t):TokenType", text: tokenType)
        w.element("\(t):RequestType", text: version.issueRequestType)
        w.element("\(t):KeyType", text: version.bearerKeyType)
        w.close("\(t):RequestSecurityTokenResponse")
        if version == .trust13 { w.close("trust:RequestSecurityTokenResponseCollection") }
        w.close("s:Body")
        w.close("s:Envelope")
        return w.output
    }

    /// WSS SAML Token Profile 1.1 §3.4.2/§3.4.3: a reference by assertion ID.
    static func securityTokenReference(_ w: inout XMLWriter, _ token: ADFSIssuedToken) {
        let saml11 = token.kind == .saml11
        w.open("SecurityTokenReference", [
            "b:TokenType": saml11 ? WSTrustNamespace.saml11ProfileTokenType : WSTrustNamespace.saml20ProfileTokenType,
            "xmlns": WSTrustNamespace.wsse, "xmlns:b": WSTrustNamespace.wsse11,
        ])
        w.element("KeyIdentifier", ["ValueType": saml11 ? WSTrustNamespace.saml11AssertionID : WSTrustNamespace.saml20ID],
                  text: token.id)
        w.close("SecurityTokenReference")
    }
}
