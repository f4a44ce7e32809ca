import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// Real third-party clients (the interop venv) pass the protocol checks that judge them.
@Suite(.serialized, .enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
struct ProtocolCheckTestsInterop {
    static let ecpChecks = ["ecp.paos-headers", "ecp.consumer-url-matched", "ecp.header-blocks-handled", "ecp.soap-to-idp"]

    func samlECPDemo(_ suite: MockSuite) async throws -> ClientProcess.Outcome {
        let info = suite.readyInfo()
        let user = SuiteFixture.user(suite)
        return try await ClientProcess.run(ClientProcess.venvBin + "/saml_ecp_demo", [
            "-s", info.sp.secure, "-i", info.idp.ecp, "-u", user.username, "-p", user.password,
            "-l", "!saml-message,!http-request-response",
        ])
    }

    @Test func samlECPDemoPassesTheECPChecks() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, _ in
            let run = try await samlECPDemo(suite)
            #expect(run.status == 0)
            for check in Self.ecpChecks {
                let outcome = try ProtocolCheckRun.evaluate(check, .ecp, suite)
                #expect(outcome.passed, "\(check): \(outcome)")
            }
        }
    }

    @Test func samlECPDemoStopsOnAConsumerURLMismatch() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.acsOther]) { suite, _ in
            let run = try await samlECPDemo(suite)
            let outcome = try ProtocolCheckRun.evaluate("ecp.consumer-url-matched", .ecp, suite, status: run.status)
            #expect(outcome.passed, "\(outcome)")
        }
    }

    @Test func pythonCASPassesTheServiceChecks() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            let info = suite.readyInfo().cas
            let user = SuiteFixture.user(suite)
            let run = try await ClientProcess.run(ClientProcess.venvPython, [
                ClientProcess.script("cas_python_cas.py"), "--cas", info.base + "/cas/", "--service", info.service,
                "--username", user.username, "--password", user.password, "--versions", "1,2,3,CAS_2_SAML_1_0",
            ])
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            for check in ["cas.service-url-exact", "cas.service-encoded", "cas.ticket-validated-promptly"] {
                let outcome = try ProtocolCheckRun.evaluate(check, .casREST, suite)
                #expect(outcome.passed, "\(check): \(outcome)")
            }
            // The script validates each ticket a second time on purpose, to see the refusal.
            #expect(try ProtocolCheckRun.evaluate("cas.service-ticket-single-use", .casREST, suite).failed)
        }
    }

    func msal(_ suite: MockSuite, password: String) async throws -> ClientProcess.Outcome {
        let info = suite.readyInfo()
        return try await ClientProcess.run(ClientProcess.venvPython, [
            ClientProcess.script("adfs_msal_wstrust.py"), "--mex", info.adfs.mex, "--endpoint", info.adfs.usernameMixed13,
            "--username", "alice", "--password", password, "--applies-to", info.sp.entityID,
        ])
    }

    @Test func msalPassesTheWSTrustChecks() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let run = try await msal(suite, password: SuiteFixture.user(suite).password)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            for check in ["wstrust.credentials-xml-escaped", "wstrust.envelope-well-formed", "wstrust.applies-to-set"] {
                let outcome = try ProtocolCheckRun.evaluate(check, .adfsWSTrust, suite)
                #expect(outcome.passed, "\(check): \(outcome)")
            }
        }
    }

    @Test func msalReportsTheFaultCode() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let run = try await msal(suite, password: "wrong")
            let report = ClientReport(outcome: "failure", error: run.stdout)
            let outcome = try ProtocolCheckRun.evaluate("wstrust.fault-reported", .adfsWSTrust, suite, report: report, status: run.status)
            #expect(outcome.passed, "\(outcome)")
        }
    }
}
