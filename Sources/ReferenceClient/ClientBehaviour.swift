import Foundation

/// Every decision where a SAML/HTTP client classically goes wrong, as one switch each.
///
/// ``correct`` is what the reference client does. A test variant flips exactly one field
/// to reproduce one classic bug (the harness's conformance checks must then catch it).
/// Each field names the place in the code that consults it.
public struct ClientBehaviour: Sendable, Equatable {
    /// Percent-encode form bodies (`+` → `%2B`, `=` → `%3D`, `&` → `%26`, `/` → `%2F`,
    /// non-ASCII as UTF-8). Off: values are joined raw. Consulted by `FormEncoding.body`.
    public var percentEncodeFormBodies = true
    /// Post `SAMLResponse` with its base64 `=` padding. Off: padding stripped.
    /// Consulted by `BrowserFlow.autoPost`.
    public var keepBase64Padding = true
    /// Echo `RelayState` back with the `SAMLResponse`. Off: dropped. `BrowserFlow.autoPost`.
    public var echoRelayState = true
    /// Keep cookies across requests of a login. Off: no `Cookie` header is ever sent.
    /// Consulted by `CookieJar`.
    public var keepCookies = true
    /// How many times a password may be submitted before the client gives up
    /// (`nil`: forever). Consulted by `PasswordBudget`. One: a refused password is refused
    /// again (the client has no other); an app asks its user instead, as CFNetwork does with
    /// `previousFailureCount`.
    public var maxPasswordSubmissions: Int? = 1
    /// Send HTTP Basic credentials before any challenge. Consulted by `HTTPAuthFlow` and
    /// `BrowserFlow.open`.
    public var sendCredentialsBeforeChallenge = false
    /// Drop `Authorization` when a redirect leaves the origin that challenged.
    /// Off: credentials follow redirects to another host. Consulted by `HTTPSession.follow`.
    public var credentialsOnlyToChallengingOrigin = true
    /// Refuse a redirect from `https` to `http`. Consulted by `HTTPSession.follow`.
    public var refuseHTTPSDowngrade = true
    /// Log in again (once) on `credentials-invalid` and redo the action. `OPDSFlow`.
    public var reloginOnCredentialsInvalid = true
    /// Use a CAS service ticket once. Off: the ticket is validated a second time.
    /// Consulted by `CASRESTFlow`.
    public var useCASTicketOnce = true
    /// Validate a CAS ticket with exactly the service it was issued for. Off: the service
    /// is sent without its trailing slash (the classic mismatch). `CASRESTFlow`.
    public var validateWithIssuedService = true
    /// XML-escape the WS-Trust `UsernameToken`. Off: written raw. `WSTrustFlow.envelope`.
    public var xmlEscapeWSTrustCredentials = true
    /// Compare the IdP's ECP `AssertionConsumerServiceURL` with the SP's
    /// `responseConsumerURL` before posting. `ECPFlow`.
    public var checkECPConsumerURL = true
    /// Treat a page that is not the resource's origin (an IdP error page) as a failure.
    /// Off: any `200` is success. Consulted by `ReferenceClient.finish`.
    public var detectIdPErrorPages = true
    /// Refuse a SAML Response or WS-Trust token that carries no XML signature.
    /// Consulted by `ECPFlow` and `WSTrustFlow`.
    public var requireSignedToken = true

    /// Check an issued WS-Trust token's validity window (Conditions, Lifetime) before
    /// using it. Off: an expired token is taken. Consulted by `WSTrustFlow.checkValidity`.
    public var checkTokenConditions = true

    /// Which server certificates the client accepts. ``ServerTrust/system``: the platform's
    /// verification (the system store, where `scripts/setup-tls.sh` puts the test CA). The
    /// other two are the field's bugs and need a transport that can skip verification (the
    /// executable's ``UnverifiedTLSTransport``; URLSession on Linux cannot). `HTTPSession.exchange`.
    public var serverTrust: ServerTrust = .system

    /// NTLM: the AUTHENTICATE carries an NTLMv2 response; a server that offers nothing else
    /// (a CHALLENGE without TargetInfo) is refused. The bug: an NTLMv1 response computed by
    /// this function (the NT hash and the server challenge in, 24 bytes out), which the
    /// `samlh-reference-client` executable supplies — the library never computes one.
    public var ntlmV1Response: NTLMv1Computation?
    /// NTLM: the AUTHENTICATE goes on the connection the CHALLENGE came on.
    public var ntlmSameConnection = true
    /// NTLM: the AUTHENTICATE names the domain the client was given (`SAMLH_DOMAIN`).
    public var ntlmSendDomain = true
    /// NTLM: an NTLM or Negotiate token answers one challenge on one connection and is never
    /// carried on a redirect (the bug carries it, to any host, like CVE-2018-1000007's curl).
    public var ntlmTokensOneTime = true

    /// How the client decides to trust a server's certificate.
    public enum ServerTrust: String, Sendable, Equatable {
        /// Verify the chain, the dates, the host name and the algorithms (the platform does).
        case system
        /// Accept every certificate: what seed 000's `canAuthenticateAgainstProtectionSpace`
        /// + `credentialForTrust:` does to get past a self-signed test IdP, and what ships.
        case trustAll = "trust-all"
        /// Verify, but when verification fails and the server's chain is one self-signed
        /// certificate, accept it ("allow self-signed", Apache HttpClient's
        /// `TrustSelfSignedStrategy` style): a certificate anyone can make.
        case trustSelfSigned = "trust-self-signed"
    }

    /// The reference behaviour: every field as the protocols require.
    public static let correct = ClientBehaviour()

    /// Creates the correct behaviour; change fields to make a variant.
    public init() {}

    /// The classic bugs, one switch each, by name (`samlh-reference-client --variant NAME`,
    /// or `SAMLH_REFERENCE_VARIANT`). For the harness's own tests: each must be caught.
    public static let variants: [(name: String, summary: String, behaviour: ClientBehaviour)] = [
        variant("form-not-encoded", "form bodies not percent-encoded (`+` arrives as a space)") { $0.percentEncodeFormBodies = false },
        variant("base64-padding-stripped", "the SAMLResponse posted without its `=` padding") { $0.keepBase64Padding = false },
        variant("relaystate-dropped", "RelayState not posted back with the SAMLResponse") { $0.echoRelayState = false },
        variant("cookies-not-kept", "no cookie ever sent back") { $0.keepCookies = false },
        variant("password-retried-forever", "a refused password submitted again and again") { $0.maxPasswordSubmissions = nil },
        variant("basic-before-challenge", "Basic credentials sent before any challenge") { $0.sendCredentialsBeforeChallenge = true },
        variant("credentials-to-other-host", "credentials kept across a redirect to another host") { $0.credentialsOnlyToChallengingOrigin = false },
        variant("https-downgrade-followed", "an https→http redirect followed") { $0.refuseHTTPSDowngrade = false },
        variant("credentials-invalid-ignored", "no new login on credentials-invalid") { $0.reloginOnCredentialsInvalid = false },
        variant("cas-ticket-reused", "a CAS service ticket validated twice") { $0.useCASTicketOnce = false },
        variant("cas-wrong-service", "a CAS ticket validated with another service URL") { $0.validateWithIssuedService = false },
        variant("wstrust-password-unescaped", "the WS-Trust password written into XML unescaped") { $0.xmlEscapeWSTrustCredentials = false },
        variant("ecp-consumer-url-unchecked", "the ECP consumer URL never compared") { $0.checkECPConsumerURL = false },
        variant("error-page-as-success", "any 200 page taken as success") { $0.detectIdPErrorPages = false },
        variant("unsigned-accepted", "an unsigned Response or token accepted where the client validates") { $0.requireSignedToken = false },
        variant("token-conditions-unchecked", "an expired WS-Trust token used") { $0.checkTokenConditions = false },
        variant("trust-all-certificates", "every server certificate accepted (seed 000's self-signed workaround, shipped)") { $0.serverTrust = .trustAll },
        variant("trust-self-signed", "a self-signed server certificate accepted when verification fails") { $0.serverTrust = .trustSelfSigned },
        variant("ntlm-v1", "an NTLMv1 response sent, and a server's NTLMv1-only CHALLENGE answered (needs the executable's DES)") { _ in },
        variant("ntlm-new-connection", "the NTLM AUTHENTICATE sent on a new connection") { $0.ntlmSameConnection = false },
        variant("ntlm-no-domain", "the NTLM AUTHENTICATE names no domain") { $0.ntlmSendDomain = false },
        variant("ntlm-token-carried", "the NTLM AUTHENTICATE carried on a redirect, to another host too") { $0.ntlmTokensOneTime = false },
    ]

    /// The variant named `name`, or nil.
    public static func variant(named name: String) -> ClientBehaviour? {
        variants.first { $0.name == name }?.behaviour
    }

    private static func variant(_ name: String, _ summary: String,
                                _ change: (inout ClientBehaviour) -> Void) -> (name: String, summary: String, behaviour: ClientBehaviour) {
        var behaviour = ClientBehaviour()
        change(&behaviour)
        return (name, summary, behaviour)
    }
}

/// The `ntlm-v1` bug's response function (NT hash and server challenge in, the 24-byte
/// NTLMv1 response out), supplied from outside the Foundation-only library; compared by name.
public struct NTLMv1Computation: Sendable, Equatable {
    public let name: String
    let compute: @Sendable (_ ntHash: [UInt8], _ serverChallenge: [UInt8]) -> [UInt8]

    public init(name: String, compute: @escaping @Sendable (_ ntHash: [UInt8], _ serverChallenge: [UInt8]) -> [UInt8]) {
        self.name = name
        self.compute = compute
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
}
