/// Knobs of the mocks' NTLM and Negotiate side (the HTTP-auth resources `/ntlm/` and
/// `/negotiate/`, the proxy's NTLM, AD FS's Windows Integrated Authentication): the troubles
/// Windows authentication meets in the field.
public enum NTLMKnob: KnobFamily {
    /// The CHALLENGE of an old or misconfigured server: no TargetInfo, no extended session
    /// security, and only NTLMv1/LM responses accepted (NTLMv2 is refused as wrong). A client
    /// that gives in sends a response crackable offline; it must refuse the downgrade.
    case v1Only
    /// The CHALLENGE's TargetInfo names no domain (no MsvAvNbDomainName, MsvAvDnsDomainName) and
    /// its TargetName is empty: the client must use the domain it was configured with.
    case noDomain
    /// Every AUTHENTICATE, right or wrong, is answered with 401 and a fresh challenge — what
    /// IIS answers when Windows' loopback check or a channel-binding mismatch rejects the
    /// handshake. A client must stop after a bounded number of tries and report it.
    case alwaysRechallenge
    /// The CHALLENGE goes out with `Connection: close` (a load balancer that does not keep the
    /// connection's handshake): the AUTHENTICATE arrives on a new connection, where the server
    /// knows no challenge, and is answered with a fresh challenge. A client must fail, bounded.
    case newConnection
    /// The forward proxy asks for NTLM (`407 Proxy-Authenticate: NTLM`) instead of Basic, as
    /// the everyday enterprise proxy does: the proxy user is `EXAMPLE\proxyuser`.
    case proxy
    /// A domain that blocks incoming NTLM ("Network security: Restrict NTLM"): Negotiate is
    /// offered alone and only Kerberos is taken in it. Needs a realm (`SAMLH_KERBEROS`); a
    /// client without a ticket cannot log in.
    case kerberosOnly

    public static let names = ["ntlm-v1-only", "ntlm-no-domain", "ntlm-always-rechallenge", "ntlm-new-connection", "ntlm-proxy",
                               "negotiate-kerberos-only"]
    public static let examples: [NTLMKnob] = [.v1Only, .noDomain, .alwaysRechallenge, .newConnection, .proxy, .kerberosOnly]

    public init?(name: String, value: String?) throws {
        switch name {
        case "ntlm-v1-only": self = .v1Only
        case "ntlm-no-domain": self = .noDomain
        case "ntlm-always-rechallenge": self = .alwaysRechallenge
        case "ntlm-new-connection": self = .newConnection
        case "ntlm-proxy": self = .proxy
        case "negotiate-kerberos-only": self = .kerberosOnly
        default: return nil
        }
        try Self.noValue(name, value)
    }

    public var text: String {
        switch self {
        case .v1Only: "ntlm-v1-only"
        case .noDomain: "ntlm-no-domain"
        case .alwaysRechallenge: "ntlm-always-rechallenge"
        case .newConnection: "ntlm-new-connection"
        case .proxy: "ntlm-proxy"
        case .kerberosOnly: "negotiate-kerberos-only"
        }
    }

    public var summary: String {
        switch self {
        case .v1Only:
            "NTLM challenges with no TargetInfo and no extended session security, and only NTLMv1/LM responses accepted: a downgrade a client must refuse"
        case .noDomain: "the NTLM CHALLENGE names no domain (empty TargetName, no domain AV pairs): the client must send the domain it was given"
        case .alwaysRechallenge:
            "every NTLM AUTHENTICATE, right or wrong, is answered with 401 and a fresh challenge (IIS's loopback check): the client must stop, bounded"
        case .newConnection:
            "the NTLM CHALLENGE is sent with Connection: close, so the AUTHENTICATE arrives on a new connection, which knows no challenge"
        case .proxy:
            "the forward proxy answers 407 Proxy-Authenticate: NTLM (not Basic): EXAMPLE\\proxyuser, connection-bound, as enterprise proxies do"
        case .kerberosOnly:
            "Negotiate alone is offered and only Kerberos is taken in it (a domain that blocks NTLM); needs a realm (SAMLH_KERBEROS)"
        }
    }
}
