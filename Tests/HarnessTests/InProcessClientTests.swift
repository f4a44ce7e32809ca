import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// A Swift auth client run in-process through `AuthClient`, as a Swift library would from its
/// own `swift test`.
@Suite struct InProcessClientTests {
    /// Web SSO the way a scripted browser does it.
    struct BrowserClient: AuthClient {
        var name: String { "test-browser" }
        func supports(_ flow: Flow) -> Bool { flow == .webSSO }

        func run(_ target: ScenarioTarget) async throws -> ClientReport {
            let browser = TestBrowser()
            do {
                let user = TestUser(username: target.username ?? "", password: target.password ?? "")
                var last = try await SuiteFixture.completeLogin(browser, from: try await browser.get(target.start), user: user)
                if last.isRedirect { last = try await browser.follow(last) }
                try await browser.shutdown()
                guard last.status == 200 else {
                    return ClientReport(outcome: "failure", error: "HTTP \(last.status) at \(last.url): \(last.body.prefix(500))")
                }
                return ClientReport(outcome: "success", resource: last.body)
            } catch {
                try? await browser.shutdown()
                throw error
            }
        }
    }

    struct HangingClient: AuthClient {
        var name: String { "hangs" }
        func run(_ target: ScenarioTarget) async throws -> ClientReport {
            try await Task.sleep(for: .seconds(300))
            return ClientReport(outcome: "success")
        }
    }

    @Test func theCatalogRunsAgainstASwiftClient() async throws {
        let results = try await Conformance.run(BrowserClient(), filter: ["web-sso.shibboleth-form-login", "web-sso.wrong-audience",
                                                                          "cas-rest.ticket-reuse"])
        #expect(results.map(\.scenario) == ["cas-rest.ticket-reuse", "web-sso.shibboleth-form-login", "web-sso.wrong-audience"])
        #expect(results.map(\.status) == [.skipped, .pass, .pass], "\(results.map { $0.reason ?? "" })")
        #expect(Conformance.harnessDirectory.appendingPathComponent("Scenarios").path
                == SuiteFixture.repository.appendingPathComponent("Scenarios").path)
    }

    @Test func aHangingSwiftClientIsCancelledAtTheTimeout() async throws {
        let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
        let scenario = try loader.load(file: SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso/web-sso.shibboleth-form-login.yaml"))
        let runner = ScenarioRunner(loader: loader, mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        let result = await runner.run(scenario, client: InProcessClient(HangingClient()), timeoutOverride: 1)
        #expect(result.status == .error)
        #expect(result.reason?.contains("did not finish within 1 s") == true)
    }
}
