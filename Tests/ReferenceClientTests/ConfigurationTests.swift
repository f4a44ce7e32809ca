import Foundation
import ReferenceClient
import Testing

/// The runner's environment contract as the reference client reads it.
@Suite struct ConfigurationTests {
    static let base = ["SAMLH_FLOW": "web-sso", "SAMLH_START_URL": "http://127.0.0.1:1/secure"]

    @Test func theRequestTimeoutIsReadAndNotTakenForAFlowParameter() throws {
        var environment = Self.base
        environment["SAMLH_REQUEST_TIMEOUT"] = "0.5"
        environment["SAMLH_TIMEOUT"] = "10"
        let configuration = try ClientConfiguration.fromEnvironment(environment)
        #expect(configuration.requestTimeout == 0.5)
        #expect(configuration.timeout == 10)
        #expect(configuration.parameters["REQUEST_TIMEOUT"] == nil)
        #expect(try ClientConfiguration.fromEnvironment(Self.base).requestTimeout == nil)
    }

    @Test(arguments: ["0", "-1", "soon", ""])
    func aRequestTimeoutThatIsNotAPositiveNumberIsAUsageError(_ value: String) {
        var environment = Self.base
        environment["SAMLH_REQUEST_TIMEOUT"] = value
        #expect { try ClientConfiguration.fromEnvironment(environment) } throws: { error in
            "\(error)".contains("SAMLH_REQUEST_TIMEOUT") && "\(error)".contains("'\(value)'")
        }
    }
}
