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

    public init(sequence: Int, mock: String, run: String?, request: MockRequest, started: Date,
                receiveDuration: TimeInterval, waitDuration: TimeInterval, response: MockResponse?) {
        self.sequence = sequence
        self.mock = mock
        self.run = run
        self.request = request
        self.started = started
        self.receiveDuration = receiveDuration
        self.waitDuration = waitDuration
        self.response = response
    }

    /// Notes the mock attached (e.g. `sp.rejected: audience.mismatch`).
    public var annotations: [String: String] { response?.annotations ?? [:] }
}
