/// The mock CAS server's settings, a profile's `cas:` section.
public struct CASSettings: Codable, Sendable {
    /// Seconds a service (or proxy) ticket stays valid (Apereo CAS: 10).
    public var serviceTicketLifetime: Double = 10
    /// Seconds a ticket-granting ticket stays valid (Apereo CAS: 8 hours).
    public var ticketGrantingTicketLifetime: Double = 28_800

    enum CodingKeys: String, CodingKey, CaseIterable {
        case serviceTicketLifetime = "service_ticket_lifetime"
        case ticketGrantingTicketLifetime = "tgt_lifetime"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        serviceTicketLifetime = try c.value(.serviceTicketLifetime, or: serviceTicketLifetime)
        ticketGrantingTicketLifetime = try c.value(.ticketGrantingTicketLifetime, or: ticketGrantingTicketLifetime)
    }

    /// Throws a message naming the key when a value is out of range.
    func validate() throws(SettingsError) {
        guard (0...86400).contains(serviceTicketLifetime) else { throw SettingsError("cas.service_ticket_lifetime", "must be 0…86400 seconds") }
        guard ticketGrantingTicketLifetime > 0 else { throw SettingsError("cas.tgt_lifetime", "must be positive") }
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
