import SAMLCore

/// `/adfs/services/trust/mex`: the WS-MetadataExchange document (a WSDL 1.1 with WS-Policy)
/// AD FS serves, reduced to the usernamemixed endpoints. Clients (ADAL, MSAL) find the
/// username/password endpoint the same way: a `wsdl:binding` whose `wsp:PolicyReference`
/// names a policy holding `sp:TransportBinding` and a `sp:UsernameToken`/`sp:WssUsernameToken10`
/// (under `sp:SignedEncryptedSupportingTokens` in WS-SecurityPolicy 1.2 for WS-Trust 1.3,
/// under `sp:SignedSupportingTokens` in the 2005/07 draft for WS-Trust 2005), whose
/// `soap12:binding` transport is HTTP, and a `wsdl:port` with that binding whose
/// `wsa10:EndpointReference/wsa10:Address` is the endpoint.
enum ADFSMex {
    struct Flavour {
        let version: WSTrustVersion
        let binding: String
        let portType: String
        let operation: String
        var policy: String { binding + "_policy" }
        var securityPolicy: String {
            version == .trust13 ? WSTrustNamespace.securityPolicy12 : WSTrustNamespace.securityPolicy2005
        }
    }

    static let flavours = [
        Flavour(version: .trust2005, binding: "UserNameWSTrustBinding_IWSTrustFeb2005Async",
                portType: "IWSTrustFeb2005Async", operation: "TrustFeb2005IssueAsync"),
        Flavour(version: .trust13, binding: "UserNameWSTrustBinding_IWSTrust13Async",
                portType: "IWSTrust13Async", operation: "Trust13IssueAsync"),
    ]

    static func document(base: String) -> String {
        var w = XMLWriter()
        w.open("wsdl:definitions", [
            "name": "SecurityTokenService", "targetNamespace": "http://tempuri.org/",
            "xmlns:wsdl": WSTrustNamespace.wsdl, "xmlns:soap12": WSTrustNamespace.wsdlSOAP12,
            "xmlns:wsu": WSTrustNamespace.wsu, "xmlns:wsp": WSTrustNamespace.policy,
            "xmlns:wsa10": WSTrustNamespace.addressing, "xmlns:wsaw": "http://www.w3.org/2006/05/addressing/wsdl",
            "xmlns:tns": "http://tempuri.org/", "xmlns:xsd": SAMLNamespace.xs,
        ])
        for flavour in flavours { policy(&w, flavour) }
        for flavour in flavours {
            w.open("wsdl:message", ["name": flavour.portType + "_" + flavour.operation + "_InputMessage"])
            w.empty("wsdl:part", ["name": "request", "element": "tns:RequestSecurityToken"])
            w.close("wsdl:message")
            w.open("wsdl:message", ["name": flavour.portType + "_" + flavour.operation + "_OutputMessage"])
            w.empty("wsdl:part", ["name": flavour.operation + "Result", "element": "tns:RequestSecurityTokenResponse"])
            w.close("wsdl:message")
        }
        for flavour in flavours {
            w.open("wsdl:portType", ["name": flavour.portType])
            w.open("wsdl:operation", ["name": flavour.operation])
            w.empty("wsdl:input", ["wsaw:Action": flavour.version.requestAction,
                                   "message": "tns:\(flavour.portType)_\(flavour.operation)_InputMessage"])
            w.empty("wsdl:output", ["wsaw:Action": flavour.version.responseAction,
                                    "message": "tns:\(flavour.portType)_\(flavour.operation)_OutputMessage"])
            w.close("wsdl:operation")
            w.close("wsdl:portType")
        }
        for flavour in flavours {
            w.open("wsdl:binding", ["name": flavour.binding, "type": "tns:" + flavour.portType])
            w.empty("wsp:PolicyReference", ["URI": "#" + flavour.policy])
            w.empty("soap12:binding", ["transport": "http://schemas.xmlsoap.org/soap/http"])
            w.open("wsdl:operation", ["name": flavour.operation])
            w.empty("soap12:operation", ["soapAction": flavour.version.requestAction, "style": "document"])
            w.open("wsdl:input")
            w.empty("soap12:body", ["use": "literal"])
            w.close("wsdl:input")
            w.open("wsdl:output")
            w.empty("soap12:body", ["use": "literal"])
            w.close("wsdl:output")
            w.close("wsdl:operation")
            w.close("wsdl:binding")
        }
        w.open("wsdl:service", ["name": "SecurityTokenService"])
        for flavour in flavours {
            let address = base + flavour.version.path
            w.open("wsdl:port", ["name": flavour.binding, "binding": "tns:" + flavour.binding])
            w.empty("soap12:address", ["location": address])
            w.open("wsa10:EndpointReference")
            w.element("wsa10:Address", text: address)
            w.close("wsa10:EndpointReference")
            w.close("wsdl:port")
        }
        w.close("wsdl:service")
        w.close("wsdl:definitions")
        return w.output
    }

    /// A usernamemixed policy: TLS transport security with a timestamp, and a UsernameToken
    /// (WSS UsernameToken Profile 1.0) as a supporting token.
    private static func policy(_ w: inout XMLWriter, _ flavour: Flavour) {
        let sp = flavour.securityPolicy
        let thirteen = flavour.version == .trust13
        w.open("wsp:Policy", ["wsu:Id": flavour.policy])
        w.open("wsp:ExactlyOne")
        w.open("wsp:All")
        w.open("sp:TransportBinding", ["xmlns:sp": sp])
        w.open("wsp:Policy")
        w.open("sp:TransportToken")
        w.open("wsp:Policy")
        w.empty("sp:HttpsToken", thirteen ? [:] : ["RequireClientCertificate": "false"])
        w.close("wsp:Policy")
        w.close("sp:TransportToken")
        w.open("sp:AlgorithmSuite")
        w.open("wsp:Policy")
        w.empty("sp:Basic256")
        w.close("wsp:Policy")
        w.close("sp:AlgorithmSuite")
        w.open("sp:Layout")
        w.open("wsp:Policy")
        w.empty("sp:Strict")
        w.close("wsp:Policy")
        w.close("sp:Layout")
        w.empty("sp:IncludeTimestamp")
        w.close("wsp:Policy")
        w.close("sp:TransportBinding")
        let supporting = thirteen ? "sp:SignedEncryptedSupportingTokens" : "sp:SignedSupportingTokens"
        w.open(supporting, ["xmlns:sp": sp])
        w.open("wsp:Policy")
        w.open("sp:UsernameToken", ["sp:IncludeToken": sp + "/IncludeToken/AlwaysToRecipient"])
        w.open("wsp:Policy")
        w.empty("sp:WssUsernameToken10")
        w.close("wsp:Policy")
        w.close("sp:UsernameToken")
        w.close("wsp:Policy")
        w.close(supporting)
        w.open(thirteen ? "sp:Trust13" : "sp:Trust10", ["xmlns:sp": sp])
        w.open("wsp:Policy")
        w.empty("sp:MustSupportIssuedTokens")
        w.empty("sp:RequireClientEntropy")
        w.empty("sp:RequireServerEntropy")
        w.close("wsp:Policy")
        w.close(thirteen ? "sp:Trust13" : "sp:Trust10")
        w.empty("wsaw:UsingAddressing")
        w.close("wsp:All")
        w.close("wsp:ExactlyOne")
        w.close("wsp:Policy")
    }
}
