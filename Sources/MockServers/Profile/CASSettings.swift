/// The mock CAS server's settings, a profile's `cas:` section.
public struct CASSettings: Codable, Sendable {
    /// Seconds a service (or proxy) ticket stays valid (Apereo CAS `cas.ticket.st.time-to-kill-in-seconds`: 10).
    public var serviceTicketLifetime: Double = 10
    /// Seconds a ticket-granting ticket stays valid (Apereo CAS `cas.ticket.tgt.primary.max-time-to-live-in-seconds`: 8 hours).
    public var ticketGrantingTicketLifetime: Double = 28_800
    /// How validation compares the `service` it is given with the ticket's, unless a
    /// `cas-service-match` knob says otherwise. Apereo CAS 6.1+ `DefaultServiceMatchingStrategy`
    /// percent-decodes both, drops the fragment and ignores case: `decoded`.
    public var serviceMatch: CASKnob.ServiceMatch = .decoded
    /// `/cas/logout?service=…` redirects to the service (Apereo CAS
    /// `cas.logout.follow-service-redirects`, false out of the box, true in most deployments).
    public var logoutFollowsServiceRedirects: Bool = true
    /// Seconds a SAML 1.1 assertion from `/cas/samlValidate` is valid (Apereo CAS
    /// `cas.saml-core.issue-length`: 30).
    public var samlIssueLength: Double = 30
    /// The SAML 1.1 assertion's `Issuer` (Apereo CAS `cas.saml-core.issuer`: `localhost`).
    public var samlIssuer: String = "localhost"
    /// Origins (`http://HOST:PORT` on loopback) a `pgtUrl` may name besides the suite's own
    /// mock listeners (Apereo CAS: the service's proxy policy, `RegexMatchingRegisteredServiceProxyPolicy`).
    /// Any other pgtUrl is refused without being called: `INVALID_PROXY_CALLBACK`.
    public var proxyCallbackAllow: [String] = []

    enum CodingKeys: String, CodingKey, CaseIterable {
        case serviceTicketLifetime = "service_ticket_lifetime"
        case ticketGrantingTicketLifetime = "tgt_lifetime"
        case serviceMatch = "service_match"
        case logoutFollowsServiceRedirects = "logout_follow_service_redirects"
        case samlIssueLength = "saml_issue_length"
        case samlIssuer = "saml_issuer"
        case proxyCallbackAllow = "proxy_callback_allow"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        serviceTicketLifetime = try c.value(.serviceTicketLifetime, or: serviceTicketLifetime)
        ticketGrantingTicketLifetime = try c.value(.ticketGrantingTicketLifetime, or: ticketGrantingTicketLifetime)
        if let match = try c.decodeIfPresent(String.self, forKey: .serviceMatch) {
            guard let parsed = CASKnob.ServiceMatch(rawValue: match) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .serviceMatch, in: c,
                    debugDescription: "`\(match)` is not one of \(CASKnob.ServiceMatch.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            serviceMatch = parsed
        }
        logoutFollowsServiceRedirects = try c.value(.logoutFollowsServiceRedirects, or: logoutFollowsServiceRedirects)
        samlIssueLength = try c.value(.samlIssueLength, or: samlIssueLength)
        samlIssuer = try c.value(.samlIssuer, or: samlIssuer)
        proxyCallbackAllow = try c.value(.proxyCallbackAllow, or: proxyCallbackAllow)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(serviceTicketLifetime, forKey: .serviceTicketLifetime)
        try c.encode(ticketGrantingTicketLifetime, forKey: .ticketGrantingTicketLifetime)
        try c.encode(serviceMatch.rawValue, forKey: .serviceMatch)
        try c.encode(logoutFollowsServiceRedirects, forKey: .logoutFollowsServiceRedirects)
        try c.encode(samlIssueLength, forKey: .samlIssueLength)
        try c.encode(samlIssuer, forKey: .samlIssuer)
        try c.encode(proxyCallbackAllow, forKey: .proxyCallbackAllow)
    }

    /// Throws a message naming the key when a value is out of range.
    func validate() throws(SettingsError) {
        guard (0...86400).contains(serviceTicketLifetime) else { throw SettingsError("cas.service_ticket_lifetime", "must be 0…86400 seconds") }
        guard ticketGrantingTicketLifetime > 0 else { throw SettingsError("cas.tgt_lifetime", "must be positive") }
        guard (1...86400).contains(samlIssueLength) else { throw SettingsError("cas.saml_issue_length", "must be 1…86400 seconds") }
        guard !samlIssuer.isEmpty else { throw SettingsError("cas.saml_issuer", "must not be empty") }
        for entry in proxyCallbackAllow where CASProxyCallback.allowListOrigin(entry) == nil {
            throw SettingsError("cas.proxy_callback_allow", "`\(entry)` is not an http origin on loopback, such as "
                + "http://127.0.0.1:9000 (scheme, host and port only; the mock CAS calls plain http on 127.0.0.0/8, ::1 "
                + "or localhost, never another host)")
        }
    }
}

/// A profile setting out of range: the key and what it must be.
struct SettingsError: Error {
    let key: String
    let message: String
    init(_ key: String, _ message: String) {
        self.key = key
        self.message = message
    }
}
