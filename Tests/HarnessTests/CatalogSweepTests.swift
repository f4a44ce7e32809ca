import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// Issue 35: every scenario names the checks that define its situation (`exercises`), so a run
/// that never met it is an error rather than a blind pass; and every HTTP-auth flow has a
/// plain-ASCII baseline login, so an encoding bug does not hide the protocol's own bugs.
@Suite struct CatalogSweepTests {
    static var scenarios: [Scenario] { CatalogTests.catalog.scenarios }

    @Test func everyScenarioNamesWhatItExercises() {
        let without = Self.scenarios.filter { ($0.exercises ?? []).isEmpty }.map(\.id)
        #expect(without.isEmpty, "scenarios without `exercises`: \(without.sorted())")
    }

    @Test func everyExercisedCheckIsJudged() {
        for scenario in Self.scenarios {
            let judged = Set(scenario.checks.map(\.id))
            for id in scenario.exercises ?? [] {
                #expect(judged.contains(id), "\(scenario.id): exercises `\(id)`, which is not among its checks")
            }
        }
    }

    /// The checks that are never not-applicable say nothing about whether the situation arose.
    @Test func noScenarioExercisesAnOutcomeCheck() {
        for scenario in Self.scenarios {
            let outcome = Set(scenario.exercises ?? []).intersection(["flow.resource-obtained", "flow.failure-reported", "flow.no-false-success"])
            #expect(outcome.isEmpty, "\(scenario.id): exercises \(outcome.sorted()), which is judged in every run")
        }
    }

    @Test(arguments: [Flow.httpBasic, .httpDigest, .httpNTLM])
    func everyHTTPAuthFlowHasAPlainASCIIBaseline(_ flow: Flow) throws {
        let plain = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var baselines: [String] = []
        for scenario in Self.scenarios where scenario.flow == flow && scenario.tags.contains("baseline") {
            guard scenario.expect.outcome == .success, scenario.tags.contains("positive"),
                  let user = scenario.user, let profileName = scenario.profile else { continue }
            let loaded = try SuiteFixture.profile(profileName)
            let password = try #require(user.password ?? loaded.profile.user(named: user.username)?.password,
                                        "\(scenario.id): no password for \(user.username) in profile \(profileName)")
            #expect(!password.isEmpty && password.unicodeScalars.allSatisfy { plain.contains($0) },
                    "\(scenario.id) is tagged baseline, but \(user.username)'s password is not ASCII letters and digits only")
            baselines.append(scenario.id)
        }
        #expect(!baselines.isEmpty, "no positive `baseline` scenario for \(flow.rawValue)")
    }
}
