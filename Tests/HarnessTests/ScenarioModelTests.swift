import Foundation
import Testing
@testable import Harness

@Suite struct ScenarioModelTests {
    @Test func seedIsDerivedFromTheIdWhenAbsent() {
        let a = Scenario(id: "web-sso.basic", title: "t", description: "d", tags: ["x"], flow: .webSSO,
                         expect: .init(outcome: .success), checks: [.init(id: "flow.resource-obtained")])
        var b = a
        b.id = "web-sso.other"
        #expect(a.effectiveSeed == a.effectiveSeed)
        #expect(a.effectiveSeed != b.effectiveSeed)
        b.seed = 7
        #expect(b.effectiveSeed == 7)
    }
}
