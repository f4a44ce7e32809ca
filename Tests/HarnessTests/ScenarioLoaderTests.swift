import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// Broken scenario files: each names, in its first line (`# expect: LINE: text`), the line
/// and the words of the error the loader must give.
@Suite struct ScenarioLoaderTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    static let broken = ScenarioCatalog.scenarioFiles(under: fixtures.appendingPathComponent("broken"))

    static func loader() -> ScenarioLoader { ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP) }

    @Test func thereIsABrokenFileForEachKindOfMistake() {
        #expect(Self.broken.count >= 20)
    }

    @Test(arguments: broken)
    func brokenFileGivesTheDocumentedError(_ file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first.map(String.init))
        let expectation = try #require(header.firstMatch(of: /^# expect: (\d+): (.+)$/), "no `# expect:` line in \(file.lastPathComponent)")
        let line = Int(expectation.1)!
        let words = String(expectation.2)
        do {
            _ = try Self.loader().load(file: file)
            Issue.record("\(file.lastPathComponent) loaded, but should have failed with: \(words)")
        } catch let error as ScenarioLoadError {
            let match = error.problems.first { $0.message.contains(words) }
            #expect(match != nil, "\(file.lastPathComponent): expected “\(words)”, got:\n\(error)")
            // Line 0: the problem is the whole document, so no line is named.
            #expect(match?.line == (line == 0 ? nil : line),
                    "\(file.lastPathComponent): expected line \(line), got \(match?.line.map(String.init) ?? "none")")
            #expect(match?.file == file.path)
            #expect(error.description.contains(line == 0 ? "\(file.path): " : "\(file.path):\(line): "))
        }
    }

    @Test func everyProblemOfAFileIsReportedAtOnce() throws {
        let text = """
        id: many
        title: Short
        tags: [Bad Tag]
        flow: web_sso
        expect: {outcome: sometimes}
        checks: []
        timeout: -1
        """
        let error = try #require(throws: ScenarioLoadError.self) { try Self.loader().load(text: text, file: "many.yaml") }
        let messages = error.problems.map(\.description)
        #expect(messages.contains { $0.hasPrefix("many.yaml:2: `title`") })
        #expect(messages.contains { $0.contains("the required key `description` is missing") })
        #expect(messages.contains { $0.hasPrefix("many.yaml:3: `tags[0]`") })
        #expect(messages.contains { $0.hasPrefix("many.yaml:4: `flow`") })
        #expect(messages.contains { $0.hasPrefix("many.yaml:5: `expect.outcome`: expected one of: success, failure") })
        #expect(messages.contains { $0.hasPrefix("many.yaml:6: `checks`: the list must not be empty") })
        #expect(messages.contains { $0.hasPrefix("many.yaml:7: `timeout`: expected more than 0") })
        #expect(error.problems.map { $0.line ?? 0 } == error.problems.map { $0.line ?? 0 }.sorted())
    }

    @Test func aValidScenarioLoadsWithItsDefaults() throws {
        let text = """
        id: fine
        title: A valid scenario with shorthand checks
        description: Checks given as strings are required and take no parameters; the seed comes from the id.
        tags: [web-sso, positive]
        flow: web-sso
        profile: shibboleth
        user: {username: bob, password: "not bob's"}
        expect: {outcome: failure, error: password}
        checks:
          - flow.failure-reported
          - id: flow.bad-password-bounded
            level: recommended
            params: {max_attempts: 2}
        """
        let scenario = try Self.loader().load(text: text, file: "fine.yaml", expectedID: "fine")
        #expect(scenario.user == UserSpec(username: "bob", password: "not bob's"))
        #expect(scenario.checks[0] == CheckUse(id: "flow.failure-reported"))
        #expect(scenario.checks[1] == CheckUse(id: "flow.bad-password-bounded", level: .recommended,
                                               params: ["max_attempts": .integer(2)]))
        #expect(scenario.effectiveTimeout == Scenario.defaultTimeout)
        #expect(scenario.seed == nil)
        #expect(scenario.source?.line(of: "checks") == 10)
    }

    @Test func hostileFilesAreRefusedWithoutExpanding() throws {
        let nul = "id: x\u{0}\n"
        #expect(throws: ScenarioLoadError.self) { try Self.loader().load(text: nul, file: "nul.yaml") }
        let huge = String(repeating: "# padding\n", count: ScenarioLoader.maxBytes / 10 + 1)
        let error = try #require(throws: ScenarioLoadError.self) { try Self.loader().load(text: huge, file: "huge.yaml") }
        #expect(error.description.contains("larger than"))
        let laughs = """
        id: laughs
        a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
        b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
        c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
        d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
        e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
        f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
        g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
        h: [*g,*g,*g,*g,*g,*g,*g,*g,*g]
        """
        let clock = ContinuousClock()
        let started = clock.now
        let refused = try #require(throws: ScenarioLoadError.self) { try Self.loader().load(text: laughs, file: "laughs.yaml") }
        #expect(refused.description.contains("aliases"))
        #expect(clock.now - started < .seconds(5), "9^8 nodes must never be walked")
    }

    @Test func decodedScenarioRoundTripsThroughYAML() throws {
        let file = SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso/web-sso.bad-password-loop.yaml")
        let scenario = try Self.loader().load(file: file)
        #expect(scenario.flow == .webSSO)
        #expect(scenario.expect == ScenarioExpectation(outcome: .failure, error: "password",
                                                reason: "the IdP never issues a Response for a wrong password"))
        #expect(scenario.checks.contains(CheckUse(id: "flow.bad-password-bounded", params: ["max_attempts": .integer(3)])))
    }
}
