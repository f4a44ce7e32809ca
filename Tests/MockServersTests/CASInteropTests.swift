import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// python-cas 1.7.2 (PyPI `python-cas`), an unmodified third-party CAS client, validates
/// tickets the mock CAS server issued through REST: CAS 1, 2, 3 (attributes read) and SAML
/// 1.1. Each test fails if a mock misbehaves: the user python-cas reports must be the one
/// the traffic log says the server validated, and a ticket must not validate twice.
@Suite(.serialized, .enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
struct CASInteropTests {
    static func run(_ suite: MockSuite, versions: String, validateService: String? = nil) async throws -> (ClientProcess.Outcome, [String: Any]) {
        let info = suite.readyInfo().cas
        let user = SuiteFixture.user(suite)
        var arguments = [ClientProcess.script("cas_python_cas.py"), "--cas", info.base + "/cas/", "--service", info.service,
                         "--username", user.username, "--password", user.password, "--versions", versions]
        if let validateService { arguments += ["--validate-service", validateService] }
        let outcome = try await ClientProcess.run(ClientProcess.venvPython, arguments)
        let json = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any] ?? [:]
        return (outcome, json)
    }

    @Test func pythonCASValidatesRESTTicketsWithEveryProtocolVersion() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            let (outcome, json) = try await Self.run(suite, versions: "1,2,3,CAS_2_SAML_1_0")
            #expect(outcome.status == 0, "\(outcome.stdout.suffix(800))\(outcome.stderr.suffix(1500))")
            let results = try #require(json["results"] as? [String: [String: Any]])
            for version in ["1", "2", "3", "CAS_2_SAML_1_0"] {
                let result = try #require(results[version], "version \(version)")
                #expect(result["user"] as? String == "alice", "version \(version)")
                #expect(result["second_user"] is NSNull, "version \(version): a ticket validates once")
                let ticket = try #require(result["ticket"] as? String)
                let validations = suite.log.entries.filter { $0.annotations["cas.ticket"] == ticket && $0.annotations["cas.validate"] != nil }
                #expect(validations.map { $0.annotations["cas.validate"] } == ["success", "INVALID_TICKET"], "version \(version)")
            }
            // CAS 3: python-cas reads the attributes (single values as strings, several as a list).
            let cas3 = try #require(results["3"]?["attributes"] as? [String: Any])
            #expect(cas3["mail"] as? String == "alice@example.org")
            #expect(cas3["displayName"] as? String == "Alice Ångström")
            #expect(cas3["eduPersonAffiliation"] as? [String] == ["member", "student"])
            // CAS 2 (/serviceValidate) releases no attributes: python-cas reports None.
            #expect(results["2"]?["attributes"] is NSNull)
            // SAML 1.1: attributes from the AttributeStatement.
            let saml = try #require(results["CAS_2_SAML_1_0"]?["attributes"] as? [String: Any])
            #expect(saml["mail"] as? String == "alice@example.org")
            #expect(json["logout_status"] as? Int == 200)
            #expect(suite.log.entries.contains { $0.annotations["cas.rest"] == "tgt-destroyed" })
        }
    }

    @Test func pythonCASGetsNoUserForAServiceMismatch() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            let wrong = String(suite.readyInfo().cas.service.dropLast())  // no trailing slash
            let (outcome, json) = try await Self.run(suite, versions: "2,3", validateService: wrong)
            #expect(outcome.status == 1)
            let results = try #require(json["results"] as? [String: [String: Any]])
            #expect(results["2"]?["user"] is NSNull)
            #expect(results["3"]?["user"] is NSNull)
            #expect(suite.log.entries.filter { $0.annotations["cas.validate"] == "INVALID_SERVICE" }.count == 2)
        }
    }
}
