import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Harness
import ReferenceClient
import Testing

/// `Conformance.session` as an app team uses it: one scenario's mocks, the test's own client
/// driven against them (here the ReferenceClient library, configured from the session's
/// `SAMLH_*` values as from a runner's environment), then the judgement. Public API only.
@Suite struct ConformanceSessionTests {
    static let formLogin = "web-sso.shibboleth-form-login"

    /// Logs in with the reference client as the session says; `behaviour` flips one classic bug.
    static func logIn(_ session: ConformanceSession, behaviour: ClientBehaviour = .correct) async throws -> ClientReport {
        let configuration = try ClientConfiguration.fromEnvironment(session.environment)
        let result = await ReferenceClient(configuration: configuration, behaviour: behaviour).run()
        return ClientReport(outcome: result.outcome.rawValue, error: result.error, resource: result.resource,
                            details: result.details)
    }

    static func failedChecks(_ result: ScenarioResult) -> [String] {
        result.verdicts.filter { $0.level == .required && $0.status == .fail }.map(\.check)
    }

    @Test func aLoginDrivenByTheTestIsJudgedAndTheMocksStop() async throws {
        let session = try await Conformance.session(scenario: Self.formLogin)
        #expect(session.target.id == Self.formLogin)
        #expect(session.target.start.hasPrefix("http://127.0.0.1:"))
        #expect(session.target.username == "alice")
        #expect(session.environment["SAMLH_START_URL"] == session.target.start)
        #expect(session.environment["SAMLH_PASSWORD"] == session.target.password)
        #expect(session.environment["SAMLH_REQUEST_TIMEOUT"] == "10")
        #expect(session.target.parameters["SP_URL"].map(session.target.start.hasPrefix) == true)

        let report = try await Self.logIn(session)
        #expect(report.outcome == "success", "\(report.error ?? "")")
        #expect(session.traffic.count >= 6)
        let result = await session.judge(report: report)
        #expect(result.status == .pass, "\(result.reason ?? "")")
        #expect(result.verdicts.contains { $0.check == "flow.relaystate-preserved" && $0.status == .pass })
        #expect(result.exchanges == session.traffic.count)
        #expect(result.client?.outcome == "success", "judged with the client's report")

        // Judged once: the mocks are gone, and a second ending returns the first result.
        let again = await session.finish()
        #expect(again == result)
        await #expect(throws: URLError.self) {
            _ = try await URLSession(configuration: .ephemeral).data(from: URL(string: session.target.start)!)
        }
    }

    @Test func aClientThatDropsTheRelayStateIsCaught() async throws {
        let session = try await Conformance.session(scenario: Self.formLogin)
        var dropsRelayState = ClientBehaviour.correct
        dropsRelayState.echoRelayState = false
        let report = try await Self.logIn(session, behaviour: dropsRelayState)
        let result = await session.judge(report: report)
        #expect(result.status == .fail)
        #expect(Self.failedChecks(result).contains("flow.relaystate-preserved"), "\(Self.failedChecks(result))")
        #expect(result.reason?.contains("flow.relaystate-preserved") == true, "\(result.reason ?? "")")
    }

    @Test func withoutAReportTheSessionIsJudgedFromWhatTheMocksServed() async throws {
        // A UI test drives the app; the app reports nothing: the mocks served the SP's page.
        let loggedIn = try await Conformance.session(scenario: Self.formLogin)
        _ = try await Self.logIn(loggedIn)
        let served = await loggedIn.finish()
        #expect(served.status == .pass, "\(served.reason ?? "")")
        #expect(served.client == nil)

        // Nothing drove it: the resource was never served.
        let idle = try await Conformance.session(scenario: Self.formLogin)
        let nothing = await idle.finish()
        #expect(nothing.status == .fail)
        #expect(Self.failedChecks(nothing).contains("flow.resource-obtained"), "\(Self.failedChecks(nothing))")
    }

    @Test func aSessionStoppedUnjudgedSaysSo() async throws {
        let session = try await Conformance.session(scenario: "http-basic.bad-password")
        await session.stop()
        let result = await session.judge(report: ClientReport(outcome: "failure", error: "HTTP 401"))
        #expect(result.status == .error)
        #expect(result.reason == "the session was stopped without a judgement")
    }

    @Test func anUnknownScenarioNamesTheNearestOne() async throws {
        let error = await #expect(throws: Conformance.UsageError.self) {
            _ = try await Conformance.session(scenario: "web-sso.shibolleth-form-login")
        }
        #expect(error?.description.contains("did you mean `web-sso.shibboleth-form-login`?") == true, "\(String(describing: error))")
    }
}
