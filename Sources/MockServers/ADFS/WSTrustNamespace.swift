/// The namespaces and URIs of AD FS's active (WS-*) endpoints, as its messages use them.
enum WSTrustNamespace {
    /// SOAP 1.2 envelope (W3C SOAP 1.2 Part 1 §5): the usernamemixed bindings are SOAP 1.2.
    static let soap12 = "http://www.w3.org/2003/05/soap-envelope"
    /// WS-Addressing 1.0 (`a:`/`wsa:`).
    static let addressing = "http://www.w3.org/2005/08/addressing"
    /// The older WS-Addressing (August 2004), accepted inside `AppliesTo`.
    static let addressing2004 = "http://schemas.xmlsoap.org/ws/2004/08/addressing"
    /// WS-Security 1.0 secext (`o:`/`wsse:`).
    static let wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
    /// WS-Security 1.1 secext (`b:`), for `wsse11:TokenType` on references.
    static let wsse11 = "http://docs.oasis-open.org/wss/oasis-wss-wssecurity-secext-1.1.xsd"
    /// WS-Security utility (`u:`/`wsu:`).
    static let wsu = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
    /// WS-Policy 2004/09 (`wsp:`), which carries `AppliesTo` in both trust versions.
    static let policy = "http://schemas.xmlsoap.org/ws/2004/09/policy"
    /// WS-Trust 1.3 (`trust:`).
    static let trust13 = "http://docs.oasis-open.org/ws-sx/ws-trust/200512"
    /// WS-Trust February 2005 (`t:`).
    static let trust2005 = "http://schemas.xmlsoap.org/ws/2005/02/trust"
    /// WS-SecurityPolicy 1.2 and the 2005/07 draft (for mex).
    static let securityPolicy12 = "http://docs.oasis-open.org/ws-sx/ws-securitypolicy/200702"
    static let securityPolicy2005 = "http://schemas.xmlsoap.org/ws/2005/07/securitypolicy"
    /// WS-Federation 1.2 metadata (`fed:`).
    static let federation = "http://docs.oasis-open.org/wsfed/federation/200706"
    static let wsdl = "http://schemas.xmlsoap.org/wsdl/"
    static let wsdlSOAP12 = "http://schemas.xmlsoap.org/wsdl/soap12/"
    static let wsdlSOAP = "http://schemas.xmlsoap.org/wsdl/soap/"
    static let mex = "http://schemas.xmlsoap.org/ws/2004/09/mex"
    /// The anonymous reply address (WS-Addressing 1.0 §3.2.1).
    static let anonymous = "http://www.w3.org/2005/08/addressing/anonymous"
    /// The fault action (WS-Addressing 1.0 SOAP binding §6).
    static let faultAction = "http://www.w3.org/2005/08/addressing/soap/fault"

    /// `PasswordText`, the only password type usernamemixed takes (WSS UsernameToken Profile 1.0 §4).
    static let passwordText = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"

    /// Token types (WS-Trust TokenType values, WSS SAML Token Profile 1.1 §3.6).
    static let saml11TokenType = "urn:oasis:names:tc:SAML:1.0:assertion"
    static let saml20TokenType = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let saml11ProfileTokenType = "http://docs.oasis-open.org/wss/oasis-wss-saml-token-profile-1.1#SAMLV1.1"
    static let saml20ProfileTokenType = "http://docs.oasis-open.org/wss/oasis-wss-saml-token-profile-1.1#SAMLV2.0"
    /// KeyIdentifier ValueTypes of the attached/unattached references.
    static let saml11AssertionID = "http://docs.oasis-open.org/wss/oasis-wss-saml-token-profile-1.0#SAMLAssertionID"
    static let saml20ID = "http://docs.oasis-open.org/wss/oasis-wss-saml-token-profile-1.1#SAMLID"
}

/// The two WS-Trust versions AD FS serves on usernamemixed, with what differs between them.
enum WSTrustVersion: String, Sendable {
    case trust13 = "13"
    case trust2005 = "2005"

    var namespace: String { self == .trust13 ? WSTrustNamespace.trust13 : WSTrustNamespace.trust2005 }
    /// The prefix AD FS writes (`trust:` for 1.3, `t:` for February 2005).
    var prefix: String { self == .trust13 ? "trust" : "t" }

    /// The request's `wsa:Action`.
    var requestAction: String {
        self == .trust13 ? "http://docs.oasis-open.org/ws-sx/ws-trust/200512/RST/Issue"
            : "http://schemas.xmlsoap.org/ws/2005/02/trust/RST/Issue"
    }

    /// The response's `wsa:Action` (WS-Trust 1.3 §4.3: the final RSTR of a collection).
    var responseAction: String {
        self == .trust13 ? "http://docs.oasis-open.org/ws-sx/ws-trust/200512/RSTRC/IssueFinal"
            : "http://schemas.xmlsoap.org/ws/2005/02/trust/RSTR/Issue"
    }

    var issueRequestType: String {
        self == .trust13 ? "http://docs.oasis-open.org/ws-sx/ws-trust/200512/Issue"
            : "http://schemas.xmlsoap.org/ws/2005/02/trust/Issue"
    }

    /// The bearer key type AD FS echoes.
    var bearerKeyType: String {
        self == .trust13 ? "http://docs.oasis-open.org/ws-sx/ws-trust/200512/Bearer"
            : "http://schemas.xmlsoap.org/ws/2005/05/identity/NoProofKey"
    }

    var path: String { self == .trust13 ? ADFSServer.Path.usernameMixed13 : ADFSServer.Path.usernameMixed2005 }
}
