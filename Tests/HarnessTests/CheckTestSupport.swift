import Foundation
import MockServers
import TestSupport
@testable import Harness

/// Builds what a check reads from a real run: the suite's traffic, the scenario, what the
/// client reported.
enum CheckTestSupport {
    /// A scenario of `flow` naming `check` (required, with `params`).
    static func scenario(_ flow: Flow, check: String, params: [String: ParamValue] = [:], profile: String = "shibboleth",
                         knobs: [String] = [], outcome: ScenarioExpectation.Outcome = .success,
                         error: String? = nil) -> Scenario {
        Scenario(id: "check-test.\(check)", title: "a check test", description: "d", tags: ["t"], flow: flow,
                 profile: profile, knobs: knobs, user: UserSpec(username: "alice"),
                 expect: .init(outcome: outcome, error: error ?? (outcome == .failure ? "x" : nil)),
                 checks: [CheckUse(id: check, params: params)])
    }

    /// The context of a run through `suite`, with the client's report.
    static func context(_ scenario: Scenario, suite: MockSuite, report: ClientReport = ClientReport(),
                        status: Int32 = 0) -> CheckContext {
        let entries = suite.log.entries
        let execution = ClientExecution(status: status, timedOut: false, report: report, seconds: 1)
        return CheckContext(scenario: scenario, target: ScenarioTarget.resolve(scenario, ready: suite.readyInfo()),
                            entries: entries, execution: execution, truth: Truth.from(entries),
                            params: scenario.checks.first?.params ?? [:])
    }

    /// Evaluates the scenario's first check on the run.
    static func evaluate(_ scenario: Scenario, suite: MockSuite, report: ClientReport = ClientReport(),
                         status: Int32 = 0) throws -> CheckOutcome {
        let id = scenario.checks[0].id
        guard let check = CheckRegistry.implementations[id] else { throw BrowserError("no implementation of \(id)") }
        return check.evaluate(context(scenario, suite: suite, report: report, status: status))
    }
}

extension CheckOutcome {
    var passed: Bool { if case .pass = self { true } else { false } }
    var failed: Bool { if case .fail = self { true } else { false } }
    var reason: String {
        switch self {
        case .pass(let reason, _), .fail(let reason, _), .notApplicable(let reason): reason
        }
    }
}
