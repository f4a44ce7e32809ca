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

    /// The reference behaviour: every field as the protocols require.
    public static let correct = ClientBehaviour()

    /// Creates the correct behaviour; change fields to make a variant.
    public init() {}
}
