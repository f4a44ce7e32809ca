import Foundation

/// One check's verdict on one scenario run, with the evidence behind it.
public struct Verdict: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case pass, fail
        /// The run never reached what the check judges; nothing to pass or fail.
        case notApplicable = "not-applicable"
        /// The check has no implementation in this build; nothing was judged.
        case notEvaluated = "not-evaluated"
    }

    public var check: String
    public var level: CheckUse.Level
    public var status: Status
    public var reason: String
    public var evidence: [Evidence]

    public init(check: String, level: CheckUse.Level, status: Status, reason: String, evidence: [Evidence] = []) {
        self.check = check
        self.level = level
        self.status = status
        self.reason = reason
        self.evidence = evidence
    }
}

/// Where a verdict comes from: an exchange of the traffic log (its sequence number and mock),
/// or the client's own output, with the bytes that matter.
public struct Evidence: Codable, Sendable, Equatable {
    public var exchange: Int?
    public var mock: String?
    public var detail: String
    public var excerpt: String?

    public init(exchange: Int? = nil, mock: String? = nil, detail: String, excerpt: String? = nil) {
        self.exchange = exchange
        self.mock = mock
        self.detail = detail
        self.excerpt = excerpt
    }
}

/// The result of one scenario: its verdicts, and the status they add up to.
public struct ScenarioResult: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Every required check that was evaluated passed.
        case pass
        /// A required check failed.
        case fail
        /// The scenario could not be judged: the client could not start or timed out, or the
        /// mocks could not start.
        case error
        /// The client does not support the scenario's flow.
        case skipped
    }

    public var scenario: String
    public var flow: String
    public var status: Status
    public var reason: String?
    public var verdicts: [Verdict]
    public var seconds: Double
    public var exchanges: Int
    public var client: ClientSummary?
    /// The scenario's exchanges for the report (issue 7: Sources/Harness/Report/); omitted
    /// from JSON when nil.
    public var trace: ScenarioTrace?

    /// What the client did, for the report.
    public struct ClientSummary: Codable, Sendable, Equatable {
        public var status: Int32?
        public var timedOut: Bool
        public var outcome: String?
        public var error: String?
        public var reportProblem: String?
        public var stderrTail: String?

        enum CodingKeys: String, CodingKey {
            case status
            case timedOut = "timed_out"
            case outcome, error
            case reportProblem = "report_problem"
            case stderrTail = "stderr_tail"
        }
    }

    enum CodingKeys: String, CodingKey {
        case scenario, flow, status, reason, verdicts, seconds, exchanges, client, trace
    }
}
