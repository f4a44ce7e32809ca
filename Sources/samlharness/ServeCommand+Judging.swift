import ArgumentParser
import Foundation
import Harness
import Logging
import MockServers

/// What a `serve` session judges, said plainly (issue 33 §8): nothing without `--scenario`;
/// with one whose mocks the command line changes (`--knob`, `--sp-personality`,
/// `--sp-setting`), the outcome the user states with `--expect`, never the scenario's own
/// expectation kept silently (it was written for the scenario's own mocks).
extension ServeCommand {
    /// The command line's changes to a scenario's mocks, as typed.
    var mockChanges: [String] {
        knobs.map { "--knob \($0)" } + (spPersonality.map { ["--sp-personality \($0)"] } ?? [])
            + spSettings.map { "--sp-setting \($0)" }
    }

    /// The outcome `--expect` states, when it does.
    var statedOutcome: ScenarioExpectation.Outcome? {
        expect.flatMap(ScenarioExpectation.Outcome.init(rawValue:))
    }

    /// Refuses (exit 2) a change to the scenario's mocks without a stated outcome, and what
    /// does not apply to a replayed recording.
    func refuseWhatDoesNotApply(to scenario: Scenario) throws {
        var refused: [String] = []
        if scenario.flow == .replay {
            if publicHost != nil {
                refused.append("--public-host does not apply to a replayed recording (its listeners keep their loopback URLs); leave it out")
            }
            if !mockChanges.isEmpty {
                refused.append("\(mockChanges.joined(separator: " ")) does not apply to a replayed recording (it replays what the "
                    + "real servers answered; there are no mocks to change); leave it out")
            }
        } else if !mockChanges.isEmpty, statedOutcome == nil {
            refused.append(Self.unstatedOutcome(scenario, changes: mockChanges))
        }
        guard refused.isEmpty else {
            for line in refused { FileHandle.standardError.write(Data("error: \(line)\n".utf8)) }
            throw ExitCode(2)
        }
    }

    /// `--time-scale`, except for a scenario marked `real_time`, which keeps the real clock
    /// (as in `run`).
    func timeScale(for scenario: Scenario?, logger: Logger) -> Double {
        guard let scenario, scenario.realTime == true, timeScale != 1 else { return timeScale }
        logger.notice("scenario \(scenario.id) is marked real_time: it keeps the real clock (--time-scale ignored)")
        return 1
    }

    /// The scenario as judged, and the notice saying so: itself, unless `--expect` states an
    /// outcome (``judged(_:knobs:spRules:outcome:)``).
    func judged(_ scenario: Scenario, spRules: SPRules) -> (Scenario, notice: String?) {
        guard let outcome = statedOutcome else { return (scenario, nil) }
        return (Self.judged(scenario, knobs: knobs, spRules: spRules, outcome: outcome),
                Self.statedNotice(scenario, outcome: outcome, changes: mockChanges))
    }

    /// Said on the console page and stderr when serve runs without a scenario.
    static let nothingJudged = "Nothing is judged: serve was started without --scenario, so this session has no checks, "
        + "verdicts or report — only the traffic and the mocks' controls. To judge a session, serve a scenario: "
        + "`samlharness serve --scenario Scenarios/web-sso/web-sso.shibboleth-form-login.yaml` (`samlharness list` names "
        + "them all); to judge one with knobs of your own, add `--knob NAME --expect success|failure`."

    /// The usage error when the command line changes a scenario's mocks without stating the
    /// outcome to judge.
    static func unstatedOutcome(_ scenario: Scenario, changes: [String]) -> String {
        "\(changes.joined(separator: " ")) changes the mocks of scenario \(scenario.id), whose expectation "
            + "(\(describe(scenario.expect.outcome))) was written for its own mocks and may no longer hold: "
            + "say which outcome to judge with --expect success or --expect failure"
    }

    static func describe(_ outcome: ScenarioExpectation.Outcome) -> String {
        outcome == .success ? "the login succeeds" : "the login fails"
    }

    /// `scenario` as this session judges it: the command line's knobs added to its own and
    /// its SP rules as in force (so the refusal they set up is the one looked for), the
    /// stated outcome in place of its own, and the check of the other outcome dropped (a
    /// scenario that lists `flow.resource-obtained` must not demand the resource of a login
    /// stated to fail).
    static func judged(_ scenario: Scenario, knobs: [String], spRules: SPRules,
                       outcome: ScenarioExpectation.Outcome) -> Scenario {
        var judged = scenario
        judged.knobs = (scenario.knobs ?? []) + knobs
        judged.spRules = spRules
        let own = scenario.expect
        let same = outcome == own.outcome
        judged.expect = ScenarioExpectation(
            outcome: outcome, error: same ? own.error : nil,
            reason: "stated with --expect \(outcome.rawValue) (the scenario's own expectation: \(own.outcome.rawValue))",
            refusal: same && knobs.isEmpty ? own.refusal : nil)
        let other = outcome == .success ? "flow.failure-reported" : "flow.resource-obtained"
        judged.checks.removeAll { $0.id == other }
        judged.exercises?.removeAll { $0 == other }
        return judged
    }

    /// Said with the verdicts when the knobs or the profile were switched during the session
    /// (the console's controls, the control API): the expectation judged was written for the
    /// mocks as they started.
    static func changedAtRunTime(_ scenario: Scenario, knobs: [String]) -> String {
        "The knobs or the profile were changed during the session (knobs now: "
            + (knobs.isEmpty ? "none" : knobs.map { "`\($0)`" }.joined(separator: " ")) + "); the verdicts still judge "
            + "the expectation (\(describe(scenario.expect.outcome))) for the mocks as they started. To judge a login under "
            + "other knobs, serve the scenario with them: `--knob NAME --expect success|failure`."
    }

    /// The console's and stderr's notice for a scenario judged against `--expect`.
    static func statedNotice(_ scenario: Scenario, outcome: ScenarioExpectation.Outcome, changes: [String]) -> String {
        let changed = changes.isEmpty ? "" : "`\(changes.joined(separator: " "))` changed the mocks of this scenario; "
        let own = scenario.expect.outcome
        return changed + "judged against `--expect \(outcome.rawValue)` (\(describe(outcome)))"
            + (own == outcome ? ", as the scenario expects." : ", not the scenario's own expectation (\(describe(own))).")
    }
}
