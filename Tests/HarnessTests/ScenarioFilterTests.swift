import Testing
@testable import Harness

@Suite struct ScenarioFilterTests {
    static func scenario(_ id: String, _ flow: Flow, tags: [String], outcome: ScenarioExpectation.Outcome = .success,
                         checks: [String] = ["flow.resource-obtained"]) -> Scenario {
        Scenario(id: id, title: "title of \(id)", description: "d", tags: tags, flow: flow, profile: "shibboleth",
                 expect: .init(outcome: outcome, error: outcome == .failure ? "x" : nil), checks: checks.map { CheckUse(id: $0) })
    }

    static let catalog = ScenarioCatalog(scenarios: [
        scenario("web-sso.form-login", .webSSO, tags: ["web-sso", "positive"]),
        scenario("web-sso.xsw3", .webSSO, tags: ["web-sso", "xsw", "negative"], outcome: .failure, checks: ["flow.failure-reported"]),
        scenario("ecp.basic", .ecp, tags: ["ecp", "positive"], checks: ["flow.resource-obtained", "ecp.consumer-url-matched"]),
        scenario("cas-rest.reuse", .casREST, tags: ["cas", "negative"], outcome: .failure, checks: ["flow.failure-reported"]),
    ], problems: [])

    func ids(_ expressions: [String]) throws -> [String] {
        try Self.catalog.selecting(ScenarioFilter(expressions)).map(\.id)
    }

    @Test func noFilterSelectsAll() throws {
        #expect(try ids([]).count == 4)
    }

    @Test func idGlobs() throws {
        #expect(try ids(["web-sso.*"]) == ["web-sso.form-login", "web-sso.xsw3"])
        #expect(try ids(["*xsw?"]) == ["web-sso.xsw3"])
        #expect(try ids(["*.[ab]*"]) == ["ecp.basic"])
        #expect(try ids(["*.[!ab]*"]) == ["web-sso.form-login", "web-sso.xsw3", "cas-rest.reuse"])
        #expect(try ids(["ecp.basic"]) == ["ecp.basic"])
        #expect(try ids(["ecp"]).isEmpty)
    }

    @Test func tagsFlowsChecksOutcomesAndNegation() throws {
        #expect(try ids(["tag:negative"]) == ["web-sso.xsw3", "cas-rest.reuse"])
        #expect(try ids(["tag:web-sso -tag:negative"]) == ["web-sso.form-login"])
        #expect(try ids(["flow:ecp"]) == ["ecp.basic"])
        #expect(try ids(["check:ecp.consumer-url-matched"]) == ["ecp.basic"])
        #expect(try ids(["check:flow.*"]).count == 4)
        #expect(try ids(["outcome:failure flow:cas-rest"]) == ["cas-rest.reuse"])
        #expect(try ids(["tag:ecp", "tag:cas"]) == ["ecp.basic", "cas-rest.reuse"])
    }

    @Test func badFiltersAreNamed() {
        #expect(throws: ScenarioFilter.ParseError.self) { try ScenarioFilter(["flow:web_sso"]) }
        #expect(throws: ScenarioFilter.ParseError.self) { try ScenarioFilter(["colour:red"]) }
        #expect(throws: ScenarioFilter.ParseError.self) { try ScenarioFilter(["tag:"]) }
        #expect(throws: ScenarioFilter.ParseError.self) { try ScenarioFilter(["-"]) }
        #expect(throws: ScenarioFilter.ParseError.self) { try ScenarioFilter(["check:no.such-check"]) }
    }

    @Test func globEdgeCases() {
        #expect(Glob.matches("abc", pattern: "a*c"))
        #expect(Glob.matches("a", pattern: "*"))
        #expect(Glob.matches("", pattern: "*"))
        #expect(!Glob.matches("abc", pattern: "a*d"))
        #expect(Glob.matches("a[b", pattern: "a[b"))
        #expect(Glob.matches("aXbXc", pattern: "a*b*c"))
        #expect(!Glob.matches("ab", pattern: "a?b"))
    }
}
