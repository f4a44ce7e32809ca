import Foundation
import MockServers
import ReferenceClient
import TestSupport
import Testing

/// The standalone `samlh-reference-client` executable, driven through the runner's
/// environment contract — the only way to test the proxy flow on Linux, where the proxy
/// must be set for the process (`http_proxy`).
@Suite(.serialized) struct ExecutableTests {
    static var binary: String {
        HarnessBinary.url.deletingLastPathComponent().appendingPathComponent("samlh-reference-client").path
    }

    static func run(_ configuration: ClientConfiguration) async throws -> (ClientProcess.Outcome, ClientResult?) {
        let resultFile = FileManager.default.temporaryDirectory.appendingPathComponent("rc-\(UUID().uuidString).json").path
        var environment = ["SAMLH_FLOW": configuration.flow.rawValue, "SAMLH_START_URL": configuration.startURL.absoluteString,
                           "SAMLH_RESULT_FILE": resultFile, "SAMLH_TIMEOUT": "60"]
        if let username = configuration.username { environment["SAMLH_USERNAME"] = username }
        if let password = configuration.password { environment["SAMLH_PASSWORD"] = password }
        for (key, value) in configuration.parameters { environment["SAMLH_" + key] = value }
        let arguments = ["-i"] + environment.map { "\($0.key)=\($0.value)" } + [binary]
        let outcome = try await ClientProcess.run("/usr/bin/env", arguments, timeout: 90)
        defer { try? FileManager.default.removeItem(atPath: resultFile) }
        let result = (try? Data(contentsOf: URL(fileURLWithPath: resultFile))).flatMap { try? JSONDecoder().decode(ClientResult.self, from: $0) }
        return (outcome, result)
    }

    @Test func proxyWithItsCredentialsThenTheOriginsChallenge() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let (outcome, result) = try await Self.run(try ClientFixture.configuration(suite, flow: .proxy))
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let answer = try #require(result)
            #expect(answer.outcome == .success, "\(answer.error)")
            let proxied = suite.log.entries.filter { $0.mock == "proxy" }
            #expect(proxied.first?.response?.status == 407)
            #expect(proxied.contains { $0.response?.status == 200 })
            #expect(answer.resource.contains(HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic")))
        }
    }

    @Test func webSSOThroughTheProxy() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            var configuration = try ClientFixture.configuration(suite, flow: .proxy)
            configuration.startURL = try #require(URL(string: suite.readyInfo().sp.secure))
            let (outcome, result) = try await Self.run(configuration)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result?.resource.contains(secret) == true)
            #expect(suite.log.entries.contains { $0.mock == "proxy" && $0.request.path.contains("/Shibboleth.sso/SAML2/POST") })
        }
    }

    @Test func webSSOThroughTheExecutable() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let (outcome, result) = try await Self.run(try ClientFixture.configuration(suite, flow: .webSSO))
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result?.resource.contains(secret) == true)
        }
    }

    @Test func usageErrorExitsTwo() async throws {
        let outcome = try await ClientProcess.run("/usr/bin/env", ["-i", "SAMLH_FLOW=nonsense", Self.binary], timeout: 10)
        #expect(outcome.status == 2)
    }

    @Test func inProcessProxyRefusesToBypassTheProxy() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            guard ProcessInfo.processInfo.environment["http_proxy"] == nil else { return }
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .proxy)).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("http_proxy"))
            #expect(!suite.log.entries.contains { $0.mock == "auth" })
        }
    }
}
