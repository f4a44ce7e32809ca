import Foundation

/// One exchange through a mock: the request and the answer exactly as they crossed the
/// wire, with timings, the connection, the mock, and the scenario run it belongs to.
public struct TrafficEntry: Sendable {
    /// Position in the log (0-based, in order of arrival).
    public let sequence: Int
    /// Which mock answered (`idp`, `sp`, `auth`, `proxy`…).
    public let mock: String
    /// The scenario run this exchange belongs to, when the runner set one.
    public let run: String?
    public let request: MockRequest
    /// When the request's head arrived.
    public let started: Date
    /// Time spent reading the request body, in seconds.
    public let receiveDuration: TimeInterval
    /// Time from the full request to the answer being ready (includes deliberate delays).
    public let waitDuration: TimeInterval
    /// nil when the mock never answered (a `noAnswer` fault).
    public let response: MockResponse?
    /// Set when this "exchange" is a TLS connection that carried no request (a refused
    /// certificate, a failed handshake); ``request`` is then a placeholder (method `TLS`,
    /// target `*`) with the connection's details, and there is no response.
    public let handshake: TLSHandshakeRecord?

    public init(sequence: Int, mock: String, run: String?, request: MockRequest, started: Date,
                receiveDuration: TimeInterval, waitDuration: TimeInterval, response: MockResponse?,
                handshake: TLSHandshakeRecord? = nil) {
        self.sequence = sequence
        self.mock = mock
        self.run = run
        self.request = request
        self.started = started
        self.receiveDuration = receiveDuration
        self.waitDuration = waitDuration
        self.response = response
        self.handshake = handshake
    }

    /// True for an HTTP exchange (every entry but a ``handshake`` record).
    public var isHTTP: Bool { handshake == nil }

    /// Notes the mock attached (e.g. `sp.rejected: audience.mismatch`); for a ``handshake``
    /// record, `tls.outcome` (`alert:unknown_ca`…), `tls.summary`, and `tls.fault`/`tls.version`
    /// when known.
    public var annotations: [String: String] {
        guard let handshake else { return response?.annotations ?? [:] }
        var notes = ["tls.outcome": handshake.outcomeName, "tls.summary": handshake.summary]
        notes["tls.fault"] = handshake.fault?.rawValue
        notes["tls.version"] = handshake.protocolVersion
        notes["tls.detail"] = handshake.detail
        return notes
    }
}
