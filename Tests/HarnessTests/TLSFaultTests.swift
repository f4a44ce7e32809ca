import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// The certificate-fault listeners with a real OpenSSL client (curl, verifying against the
/// test CA): what the mocks record of each refused handshake, and what the TLS checks
/// conclude from it — a refusal named by the client passes, a request sent anyway fails with
/// what it carried.
@Suite(.serialized) struct TLSFaultTests {
    static var caFile: String { MockTLS.defaultDirectory().appendingPathComponent("ca.pem").path }

    /// Starts the mocks with `knobs` (TLS material required: scripts/setup-tls.sh).
    static func suite(_ knobs: [String], profile: String = "shibboleth") async throws -> MockSuite {
        try #require(MockTLS.isSetUp(), "no TLS material: run bash scripts/setup-tls.sh")
        var loaded = try SuiteFixture.profile(profile)
        loaded.knobs += try knobs.map(Knob.init(parsing:))
        return try await MockSuite.start(profile: loaded, seed: 7, mockIdPDirectory: SuiteFixture.mockIdP)
    }

    /// curl, as a client that verifies against the test CA; returns its status and stderr.
    static func curl(_ arguments: [String]) async throws -> ClientProcess.Outcome {
        try await ClientProcess.run("curl", ["-sS", "-o", "/dev/null", "--max-time", "10"] + arguments)
    }

    /// Waits (polling, bounded) until the log holds a handshake record: it is written when
    /// the server side sees the connection close, which may come after curl has exited.
    static func handshakes(_ suite: MockSuite, atLeast count: Int = 1) async throws -> [TrafficEntry] {
        for _ in 0..<200 {
            let records = suite.log.entries.filter { $0.handshake != nil }
            if records.count >= count { return records }
            try await Task.sleep(for: .milliseconds(25))
        }
        return suite.log.entries.filter { $0.handshake != nil }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let fault: String
        /// What OpenSSL 3.0's client (curl) does, as the mocks record it.
        let outcome: TLSHandshakeRecord.Outcome
        var testDescription: String { fault }
    }

    static let cases: [Case] = [
        .init(fault: "expired", outcome: .alert("certificate_expired")),
        .init(fault: "self-signed", outcome: .alert("unknown_ca")),
        .init(fault: "unknown-ca", outcome: .alert("unknown_ca")),
        .init(fault: "missing-intermediate", outcome: .alert("unknown_ca")),
        .init(fault: "not-yet-valid", outcome: .alert("bad_certificate")),
        .init(fault: "weak-key", outcome: .alert("bad_certificate")),
        .init(fault: "sha1", outcome: .alert("bad_certificate")),
        // curl checks the host name after the handshake, then closes without a request.
        .init(fault: "wrong-host", outcome: .closedAfterHandshake),
    ]

    @Test(arguments: cases)
    func eachFaultIsRefusedAndTheRefusalRecorded(_ testCase: Case) async throws {
        let suite = try await Self.suite(["tls-\(testCase.fault)=auth"])
        defer { Task { await suite.stop() } }
        let url = suite.readyInfo().auth.basic
        #expect(url.hasPrefix("https://"))
        let outcome = try await Self.curl(["--cacert", Self.caFile, url])
        #expect(outcome.status == 60, "curl: \(outcome.stderr)")
        let records = try await Self.handshakes(suite)
        let record = try #require(records.first?.handshake)
        #expect(record.outcome == testCase.outcome, "\(record.summary) (\(record.detail ?? ""))")
        #expect(record.fault?.rawValue == testCase.fault)
        #expect(records.first?.mock == "auth")
        #expect(!suite.log.entries.contains { $0.isHTTP }, "no HTTP request may have arrived")
    }

    @Test func theGoodCertificateIsTrustedAndARefusalOfItIsRecordedToo() async throws {
        let suite = try await Self.suite(["tls=auth"])
        defer { Task { await suite.stop() } }
        let url = suite.readyInfo().auth.basic
        let trusted = try await Self.curl(["--cacert", Self.caFile, "-w", "%{http_code}", "-o", "/dev/null", url])
        #expect(trusted.status == 0 && trusted.stdout.contains("401"), "curl: \(trusted.stderr)")
        // A client told about another CA (and nothing else: Debian's curl also reads the
        // system's CA directory, where setup-tls.sh put the test CA) refuses the good
        // certificate: recorded, with no fault.
        let other = MockTLS.defaultDirectory().appendingPathComponent("faults/unknown-ca/ca.pem").path
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-cas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let refused = try await Self.curl(["--cacert", other, "--capath", empty.path, url])
        #expect(refused.status == 60, "curl: \(refused.stderr)")
        let record = try #require(try await Self.handshakes(suite).first?.handshake)
        #expect(record.outcome == .alert("unknown_ca"))
        #expect(record.fault == nil)
    }

    @Test func theReadyLineNamesWhatEachHTTPSMockPresents() async throws {
        let suite = try await Self.suite(["tls", "tls-expired=idp", "tls=cas"])
        defer { Task { await suite.stop() } }
        let info = suite.readyInfo()
        let tls = try #require(info.tls)
        #expect(tls.listeners == ["idp": "expired", "sp": "good", "cas": "good"])
        #expect(tls.spPlain?.hasPrefix("http://") == true)
        #expect(info.idp.base.hasPrefix("https://") && info.cas.base.hasPrefix("https://") && info.auth.base.hasPrefix("http://"))
        let casOnly = try await Self.suite(["tls=cas"], profile: "cas")
        defer { Task { await casOnly.stop() } }
        #expect(casOnly.readyInfo().tls?.spPlain == nil, "no https SP, no plain twin")
    }

    @Test func legacyProtocolsAreRefusedByAModernClient() async throws {
        let suite = try await Self.suite(["tls-legacy=auth"])
        defer { Task { await suite.stop() } }
        let outcome = try await Self.curl(["--cacert", Self.caFile, suite.readyInfo().auth.basic])
        #expect(outcome.status != 0)
        let record = try #require(try await Self.handshakes(suite).first?.handshake)
        #expect(record.fault == .legacyProtocol)
        #expect(!suite.log.entries.contains { $0.isHTTP })
    }

    // MARK: - The checks on real traffic

    static func scenario(_ knob: String, flow: Flow = .httpBasic, check: String = "security.tls-certificate-validated") -> Scenario {
        CheckTestSupport.scenario(flow, check: check, knobs: [knob], outcome: .failure, error: "certificate")
    }

    @Test func aRefusalTheClientNamesPasses() async throws {
        let suite = try await Self.suite(["tls-expired=auth"])
        defer { Task { await suite.stop() } }
        let curl = try await Self.curl(["--cacert", Self.caFile, suite.readyInfo().auth.basic])
        _ = try await Self.handshakes(suite)
        let scenario = Self.scenario("tls-expired=auth")
        let named = try CheckTestSupport.evaluate(scenario, suite: suite, report: ClientReport(outcome: "failure", error: curl.stderr), status: 1)
        #expect(named.passed, "\(named)")
        #expect(named.reason.contains("alert certificate_expired"))
        // The same refusal, reported in words that name no certificate problem, fails.
        let vague = try CheckTestSupport.evaluate(scenario, suite: suite, report: ClientReport(outcome: "failure", error: "it did not work"), status: 1)
        #expect(vague.failed)
        #expect(vague.reason.contains("does not name a certificate problem"))
        // Claiming success after refusing is no pass either.
        let claimed = try CheckTestSupport.evaluate(scenario, suite: suite, report: ClientReport(outcome: "success"), status: 0)
        #expect(claimed.failed)
    }

    @Test func aRequestSentOverTheFaultyConnectionFailsWithWhatItCarried() async throws {
        let suite = try await Self.suite(["tls-self-signed=auth"])
        defer { Task { await suite.stop() } }
        // curl -k: verification off, Basic credentials sent.
        _ = try await Self.curl(["-k", "-u", "alice:secret", suite.readyInfo().auth.basic])
        let outcome = try CheckTestSupport.evaluate(Self.scenario("tls-self-signed=auth"), suite: suite,
                                                    report: ClientReport(outcome: "success"), status: 0)
        #expect(outcome.failed, "\(outcome)")
        #expect(outcome.reason.contains("its certificate was self-signed"))
        #expect(outcome.reason.contains("Authorization: Basic credentials"))
    }

    @Test func withoutAFaultOrAConnectionThereIsNothingToJudge() async throws {
        let suite = try await Self.suite(["tls=auth"])
        defer { Task { await suite.stop() } }
        let noFault = try CheckTestSupport.evaluate(Self.scenario("tls=auth"), suite: suite)
        #expect(!noFault.passed && !noFault.failed)
        let faulty = try await Self.suite(["tls-expired=cas"], profile: "cas")
        defer { Task { await faulty.stop() } }
        let never = try CheckTestSupport.evaluate(Self.scenario("tls-expired=cas", flow: .casREST), suite: faulty)
        #expect(never.reason.contains("never connected"))
    }

    @Test func theLegacyCheckJudgesOnlyTheLegacyFault() async throws {
        let suite = try await Self.suite(["tls-legacy=auth"])
        defer { Task { await suite.stop() } }
        let curl = try await Self.curl(["--cacert", Self.caFile, suite.readyInfo().auth.basic])
        _ = try await Self.handshakes(suite)
        let legacy = try CheckTestSupport.evaluate(Self.scenario("tls-legacy=auth", check: "security.tls-legacy-refused"), suite: suite,
                                                   report: ClientReport(outcome: "failure", error: curl.stderr), status: 1)
        #expect(legacy.passed, "\(legacy)")
        let certificate = try CheckTestSupport.evaluate(Self.scenario("tls-legacy=auth"), suite: suite,
                                                        report: ClientReport(outcome: "failure", error: curl.stderr), status: 1)
        #expect(!certificate.passed && !certificate.failed, "the certificate check has no fault to judge here")
    }
}
