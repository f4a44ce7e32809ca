import Foundation

/// One check's verdict on one scenario run, with the evidence behind it.
public struct Verdict: Codable, Sendable, Equatable {
    /// The checks that judge only how the login ended; a failure of another check is the more
    /// precise diagnosis (``ScenarioResult/failedRequired``).
    public static let outcomeChecks: Set<String> = ["flow.resource-obtained", "flow.failure-reported", "flow.no-false-success"]

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
        /// The client crashed: it was ended by a signal, or died of an unhandled exception
        /// without writing a result. Crashing is not reporting a failure; like `fail`, it fails
        /// the run.
        case crashed
        /// The client does not support the scenario's flow.
        case skipped
        /// The client does not support an optional feature the scenario offers (its
        /// `optional:`, e.g. Kerberos beside NTLM, WS-Trust 2005 beside 1.3): the checks that
        /// show it failed, nothing else did. Not doing an optional thing is not doing it wrong;
        /// like `skipped`, it does not fail the run (report format 1.2).
        case unsupported
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
    /// What the scenario is and what it expects, so a report reads without the YAML (report
    /// format 1.1; nil in results written before it).
    public var about: About?

    /// A scenario's title, description and expected outcome with its reason.
    public struct About: Codable, Sendable, Equatable {
        public var title: String
        public var description: String
        /// `success` or `failure`.
        public var expected: String
        /// For `failure`: what the client's error must name.
        public var expectedError: String?
        /// Why that outcome is right.
        public var reason: String?

        public init(title: String, description: String, expected: String, expectedError: String? = nil, reason: String? = nil) {
            self.title = title
            self.description = description
            self.expected = expected
            self.expectedError = expectedError
            self.reason = reason
        }

        public init(_ scenario: Scenario) {
            self.init(title: scenario.title, description: scenario.description.trimmingCharacters(in: .whitespacesAndNewlines),
                      expected: scenario.expect.outcome.rawValue, expectedError: scenario.expect.error,
                      reason: scenario.expect.reason?.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        /// `success`, or `failure naming "audience"`, with the reason.
        public var expectation: String {
            var text = expected
            if let expectedError, !expectedError.isEmpty { text += " naming `\(expectedError)`" }
            if let reason, !reason.isEmpty { text += ": " + reason }
            return text
        }

        enum CodingKeys: String, CodingKey {
            case title, description, expected
            case expectedError = "expected_error"
            case reason
        }
    }

    /// The checks that were required and failed, the root cause first: a precise check (an
    /// encoding, a message, a security rule) before the outcome checks that only say the login
    /// did not end as expected (`flow.resource-obtained`, `flow.failure-reported`,
    /// `flow.no-false-success`), each group in the scenario's order.
    public var failedRequired: [Verdict] {
        let failed = verdicts.filter { $0.level == .required && $0.status == .fail }
        return failed.filter { !Verdict.outcomeChecks.contains($0.check) } + failed.filter { Verdict.outcomeChecks.contains($0.check) }
    }

    /// The headline of a failed result: its root-cause check and reason.
    public static func headline(_ verdicts: [Verdict]) -> String? {
        let failed = verdicts.filter { $0.level == .required && $0.status == .fail }
        let first = failed.first { !Verdict.outcomeChecks.contains($0.check) } ?? failed.first
        return first.map { "\($0.check): \($0.reason)" }
    }

    /// What the client did, for the report.
    public struct ClientSummary: Codable, Sendable, Equatable {
        public var status: Int32?
        public var timedOut: Bool
        public var outcome: String?
        public var error: String?
        public var reportProblem: String?
        public var stderrTail: String?
        /// The signal that ended the client, when one did (report format 1.1).
        public var signal: Int32?
        /// Why the client could not start: a setup mistake (a command not found, not
        /// executable, a missing directory), not a conformance verdict (report format 1.1).
        public var startFailure: String?
        /// The `details` of the client's result file, as it wrote them (report format 1.2):
        /// checks read them, so a reader sees them too.
        public var details: [String: String]?

        public init(status: Int32?, timedOut: Bool, outcome: String? = nil, error: String? = nil, reportProblem: String? = nil,
                    stderrTail: String? = nil, signal: Int32? = nil, startFailure: String? = nil, details: [String: String]? = nil) {
            self.status = status
            self.timedOut = timedOut
            self.outcome = outcome
            self.error = error
            self.reportProblem = reportProblem
            self.stderrTail = stderrTail
            self.signal = signal
            self.startFailure = startFailure
            self.details = details
        }

        enum CodingKeys: String, CodingKey {
            case status
            case timedOut = "timed_out"
            case outcome, error
            case reportProblem = "report_problem"
            case stderrTail = "stderr_tail"
            case signal
            case startFailure = "start_failure"
            case details
        }
    }

    enum CodingKeys: String, CodingKey {
        case scenario, flow, status, reason, verdicts, seconds, exchanges, client, trace, about
    }
}
