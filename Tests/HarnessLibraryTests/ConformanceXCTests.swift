import Foundation
import Harness
import ReferenceClient
import XCTest

/// The same session from XCTest: an async test method, a teardown that stops the mocks.
final class ConformanceXCTests: XCTestCase {
    func testASessionJudgesAnXCTestLogin() async throws {
        let session = try await Conformance.session(scenario: "web-sso.shibboleth-form-login")
        addTeardownBlock { await session.stop() }
        let configuration = try ClientConfiguration.fromEnvironment(session.environment)
        let login = await ReferenceClient(configuration: configuration).run()
        let result = await session.judge(report: ClientReport(outcome: login.outcome.rawValue, error: login.error,
                                                              resource: login.resource, details: login.details))
        XCTAssertEqual(result.status, .pass, result.reason ?? "")
    }
}
