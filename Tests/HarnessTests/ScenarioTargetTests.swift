import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// Where each flow starts and what its client is told, resolved against running mocks.
@Suite struct ScenarioTargetTests {
    static func scenario(_ flow: Flow, user: UserSpec = UserSpec(username: "alice"), options: FlowOptions? = nil,
                         startPath: String? = nil) -> Scenario {
        Scenario(id: "t.\(flow.rawValue)", title: "a test scenario", description: "d", tags: ["t"], flow: flow,
                 profile: "shibboleth", user: user, startPath: startPath, options: options,
                 expect: .init(outcome: .success), checks: [.init(id: "flow.resource-obtained")])
    }

    @Test func everyFlowStartsWhereItsClientMust() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let ready = suite.readyInfo()
            func start(_ s: Scenario) -> ScenarioTarget { ScenarioTarget.resolve(s, ready: ready) }
            #expect(start(Self.scenario(.webSSO)).start == ready.sp.secure)
            #expect(start(Self.scenario(.ecp)).parameters["IDP_ECP_URL"] == ready.idp.ecp)
            let unsolicited = start(Self.scenario(.webSSOIdPInitiated)).start
            #expect(unsolicited.hasPrefix(ready.idp.unsolicited + "?providerId=http%3A%2F%2F127.0.0.1%3A"))
            #expect(start(Self.scenario(.httpBasic)).start == ready.auth.basic)
            var digest = FlowOptions()
            digest.digestAlgorithm = "sha256"
            #expect(start(Self.scenario(.httpDigest, options: digest)).start == ready.auth.digestSHA256)
            #expect(start(Self.scenario(.httpDigest)).start == ready.auth.digestMD5)
            let proxy = start(Self.scenario(.proxy))
            #expect(proxy.parameters["PROXY_URL"] == ready.proxy.url)
            #expect(proxy.parameters["PROXY_PASSWORD"] == ready.proxy.password)
            let cas = start(Self.scenario(.casREST))
            #expect(cas.start == ready.cas.tickets)
            #expect(cas.parameters["CAS_SERVICE"] == ready.cas.service)
            var service = FlowOptions()
            service.service = "http://127.0.0.1:1/app/a b+c"
            #expect(start(Self.scenario(.casBrowser, options: service)).start
                    == ready.cas.login + "?service=http%3A%2F%2F127.0.0.1%3A1%2Fapp%2Fa%20b%2Bc")
            var wstrust = FlowOptions()
            wstrust.wstrustVersion = "2005"
            let adfs = start(Self.scenario(.adfsWSTrust, options: wstrust))
            #expect(adfs.start == ready.adfs.usernameMixed2005)
            #expect(adfs.parameters["ADFS_APPLIES_TO"] == ready.sp.entityID)
            #expect(start(Self.scenario(.adfsPassive)).start == ready.adfs.idpInitiatedSignOn)
            let opds = start(Self.scenario(.opdsSAML))
            #expect(opds.parameters["OPDS_AUTH_DOCUMENT"] == ready.cm.authenticationDocument)
            #expect(opds.parameters["OPDS_IDP_ENTITY_ID"] == ready.idp.entityID)
        }
    }

    @Test func credentialsStartPathAndDefaults() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let ready = suite.readyInfo()
            let real = ScenarioTarget.resolve(Self.scenario(.webSSO), ready: ready)
            #expect(real.username == "alice")
            #expect(real.password == ready.users.first { $0.username == "alice" }?.password)
            #expect(real.secondFactorCode == "246810")
            #expect(real.timeout == Scenario.defaultTimeout)
            let wrong = ScenarioTarget.resolve(Self.scenario(.webSSO, user: UserSpec(username: "alice", password: "nope"),
                                                             startPath: "/secure/page?q=a%2Bb"), ready: ready)
            #expect(wrong.password == "nope")
            #expect(wrong.start == ready.sp.base + "/secure/page?q=a%2Bb")
        }
    }
}
