import Foundation
import SAMLCore

/// A WS-Trust `RequestSecurityToken` as it arrived on a usernamemixed endpoint: the SOAP 1.2
/// envelope read with the hardened parser, its WS-Addressing headers, its WS-Security header
/// (`wsu:Timestamp`, `wsse:UsernameToken`) and the RST body. Reading never judges the
/// credentials or the relying party; ``ADFSServer`` does that, in WCF's order.
struct WSTrustRequest {
    var messageID: String?
    var action: String?
    /// Present when the envelope has a `wsse:Security` header.
    var hasSecurityHeader: Bool
    var created: Date?
    var expires: Date?
    /// Why the timestamp could not be read, if it was there but unreadable.
    var timestampProblem: String?
    var username: String?
    var password: String?
    /// The `wsse:Password` `Type`, when given.
    var passwordType: String?
    /// Present when the Body holds an RST in this endpoint's WS-Trust namespace.
    var hasRST: Bool
    var bodyElement: String?
    var appliesTo: String?
    var tokenType: String?
    var requestType: String?
    var keyType: String?

    /// Reads the envelope. Throws a fault for what cannot be read at all: XML that is not
    /// well-formed (an unescaped `<`, `&` or `]]>` in a password does that) or a root that is
    /// not a SOAP 1.2 Envelope.
    init(body: [UInt8], version: WSTrustVersion) throws(WSTrustFault) {
        let document: XMLDocument
        do {
            document = try XMLDocument(parsing: body)
        } catch {
            throw WSTrustFault.malformed(version, "the envelope is not well-formed XML: \(error)")
        }
        let root = document.root
        guard root.is("Envelope", WSTrustNamespace.soap12) else {
            let soap11 = root.is("Envelope", SAMLNamespace.soap11)
            throw WSTrustFault.malformed(version, soap11
                ? "a SOAP 1.1 Envelope; usernamemixed is a SOAP 1.2 binding"
                : "the root is <\(root.localName)> in \(root.namespaceURI ?? "no namespace"), not a SOAP 1.2 Envelope")
        }
        let header = root.firstChild("Header", WSTrustNamespace.soap12)
        messageID = header?.firstChild("MessageID", WSTrustNamespace.addressing)?.text.trimmed
        action = header?.firstChild("Action", WSTrustNamespace.addressing)?.text.trimmed
        let security = header?.firstChild("Security", WSTrustNamespace.wsse)
        hasSecurityHeader = security != nil
        if let timestamp = security?.firstChild("Timestamp", WSTrustNamespace.wsu) {
            do {
                created = try timestamp.firstChild("Created", WSTrustNamespace.wsu).map { try SAMLDateTime.date(from: $0.text.trimmed) }
                expires = try timestamp.firstChild("Expires", WSTrustNamespace.wsu).map { try SAMLDateTime.date(from: $0.text.trimmed) }
                if created == nil { timestampProblem = "wsu:Timestamp has no wsu:Created" }
            } catch {
                timestampProblem = "wsu:Timestamp is unreadable: \(error)"
            }
        }
        if let token = security?.firstChild("UsernameToken", WSTrustNamespace.wsse) {
            // The text as the client sent it, entities and CDATA resolved by the parser.
            username = token.firstChild("Username", WSTrustNamespace.wsse)?.text
            let passwordElement = token.firstChild("Password", WSTrustNamespace.wsse)
            password = passwordElement?.text
            passwordType = passwordElement?.attribute("Type")
        }
        let body = root.firstChild("Body", WSTrustNamespace.soap12)
        bodyElement = body?.children.first.map { "\($0.namespaceURI ?? ""):\($0.localName)" }
        let rst = body?.firstChild("RequestSecurityToken", version.namespace)
        hasRST = rst != nil
        if let rst {
            // WS-Trust 1.3 §3.1 / Feb 2005 §6.1: AppliesTo is a wsp:AppliesTo holding an
            // EndpointReference (either WS-Addressing version).
            let reference = rst.firstChild("AppliesTo", WSTrustNamespace.policy).flatMap {
                $0.firstChild("EndpointReference", WSTrustNamespace.addressing)
                    ?? $0.firstChild("EndpointReference", WSTrustNamespace.addressing2004)
            }
            appliesTo = reference.flatMap {
                $0.firstChild("Address", WSTrustNamespace.addressing) ?? $0.firstChild("Address", WSTrustNamespace.addressing2004)
            }?.text.trimmed
            tokenType = rst.firstChild("TokenType", version.namespace)?.text.trimmed
            requestType = rst.firstChild("RequestType", version.namespace)?.text.trimmed
            keyType = rst.firstChild("KeyType", version.namespace)?.text.trimmed
        }
    }

    /// The token type asked for; nil when the request names one AD FS does not issue.
    var requestedKind: ADFSIssuedToken.Kind?? {
        switch tokenType {
        case nil, "": .some(nil)
        case WSTrustNamespace.saml11TokenType, WSTrustNamespace.saml11ProfileTokenType: .some(.saml11)
        case WSTrustNamespace.saml20TokenType, WSTrustNamespace.saml20ProfileTokenType: .some(.saml20)
        default: nil
        }
    }
}

fileprivate extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
