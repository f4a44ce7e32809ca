import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// The whole catalog under Scenarios/: every file loads and validates, and together they
/// cover every flow, every knob and every check, with a healthy share of negative cases.
@Suite struct CatalogTests {
    static let catalog = ScenarioCatalog.load(
        paths: [SuiteFixture.repository.appendingPathComponent("Scenarios")],
        loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP))

    @Test func everyScenarioLoadsAndValidates() {
        #expect(Self.catalog.problems.isEmpty, "\(Self.catalog.problems.map(\.description).joined(separator: "\n"))")
        let files = ScenarioCatalog.scenarioFiles(under: SuiteFixture.repository.appendingPathComponent("Scenarios"))
        #expect(Self.catalog.scenarios.count == files.count)
    }

    @Test func theCatalogHasAtLeast120Scenarios() {
        #expect(Self.catalog.scenarios.count >= 120)
    }

    @Test func everyFlowIsCovered() {
        let flows = Set(Self.catalog.scenarios.map(\.flow))
        #expect(Set(Flow.allCases).subtracting(flows).isEmpty, "no scenario for: \(Set(Flow.allCases).subtracting(flows))")
    }

    @Test func everyKnobIsUsed() throws {
        var used: Set<String> = []
        for scenario in Self.catalog.scenarios {
            for text in scenario.knobs ?? [] {
                used.insert(String(text.split(separator: "=", maxSplits: 1)[0]))
            }
        }
        let missing = Set(Knob.names).subtracting(used)
        #expect(missing.isEmpty, "knobs no scenario uses: \(missing.sorted())")
    }

    @Test func everyCheckIsUsed() {
        let used = Set(Self.catalog.scenarios.flatMap { $0.checks.map(\.id) })
        let missing = Set(CheckCatalog.ids).subtracting(used)
        #expect(missing.isEmpty, "checks no scenario names: \(missing.sorted())")
    }

    @Test func aHealthyShareIsNegative() {
        let negative = Self.catalog.scenarios.filter { $0.expect.outcome == .failure }.count
        let share = Double(negative) / Double(max(1, Self.catalog.scenarios.count))
        #expect(share >= 0.35, "negative share \(share)")
        #expect(Self.catalog.scenarios.filter { $0.tags.contains("negative") }.count == negative)
    }

    @Test func seedsAreDistinct() {
        let seeds = Self.catalog.scenarios.map(\.effectiveSeed)
        #expect(Set(seeds).count == seeds.count)
    }
}
