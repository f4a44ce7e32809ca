/// The login a scenario has the client perform (DESIGN.md, "The flows it must reproduce").
public enum Flow: String, Codable, Sendable, CaseIterable, Comparable {
    case webSSO = "web-sso"
    case webSSOIdPInitiated = "web-sso-idp-initiated"
    case ecp
    case httpBasic = "http-basic"
    case httpDigest = "http-digest"
    /// Windows authentication: NTLM, bare or inside Negotiate (SPNEGO).
    case httpNTLM = "http-ntlm"
    case proxy
    case casREST = "cas-rest"
    case casBrowser = "cas-browser"
    case adfsWSTrust = "adfs-wstrust"
    case adfsPassive = "adfs-passive"
    case opdsSAML = "opds-saml"
    /// A recorded chain (HAR or SAML-tracer import) played back live.
    case replay

    public static func < (lhs: Flow, rhs: Flow) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// One line on what the client does.
    public var summary: String {
        switch self {
        case .webSSO: "SP-initiated Web SSO: SP redirect, IdP login (form or Basic, consent, MFA), auto-posted Response, SP session"
        case .webSSOIdPInitiated: "IdP-initiated (unsolicited) Web SSO: IdP login, then an auto-posted Response the SP never asked for"
        case .ecp: "SAML 2.0 ECP: PAOS request from the SP, SOAP with HTTP Basic to the IdP, consumer URL check, Response to the SP"
        case .httpBasic: "HTTP Basic challenges (RFC 7617): 401, credentials for the protection space only"
        case .httpDigest: "HTTP Digest challenges (RFC 7616): nonce, qop, nc, stale nonces, MD5 and SHA-256"
        case .httpNTLM: "Windows authentication (MS-NLMP, RFC 4559): NTLM or Negotiate, NEGOTIATE → CHALLENGE → AUTHENTICATE on one connection, NTLMv2, a domain"
        case .proxy: "A resource fetched through a proxy that answers 407 (Proxy-Authenticate / Proxy-Authorization)"
        case .casREST: "CAS REST: TGT, service ticket for a service, validation by the service"
        case .casBrowser: "CAS browser login: /cas/login form, TGC cookie, service ticket back to the application"
        case .adfsWSTrust: "AD FS active federation: WS-Trust RST with a UsernameToken, signed token in the RSTR"
        case .adfsPassive: "AD FS passive sign-in: IdpInitiatedSignOn forms login, auto-posted SAML 2.0 Response"
        case .opdsSAML: "OPDS / Library Simplified SAML login: auth document, IdP login, bearer token, borrow, fulfil"
        case .replay: "A recorded redirect chain (browser HAR or SAML-tracer export) replayed live"
        }
    }
}
