import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The NTLM checks over real traffic: curl's `--ntlm` (a correct NTLMv2 client), and requests
/// shaped by hand on raw sockets where a client would be wrong.
@Suite struct ProtocolCheckTestsNTLM {
    static func curl(_ arguments: [String]) async throws -> ClientProcess.Outcome {
        try await ClientProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}"] + arguments)
    }

    static func evaluate(_ check: String, _ suite: MockSuite) throws -> CheckOutcome {
        try ProtocolCheckRun.evaluate(check, .httpNTLM, suite)
    }

    @Test func curlsNTLMv2HandshakePassesEveryNTLMCheck() async throws {
        try await SuiteFixture.with("windows") { suite, _ in
            let user = SuiteFixture.user(suite)
            let outcome = try await Self.curl(["--ntlm", "-u", "EXAMPLE\\\(user.username):\(user.password)", suite.readyInfo().auth.ntlm])
            #expect(outcome.stdout == "200", "\(outcome.stdout) \(outcome.stderr)")
            for check in ["ntlm.v2-only", "ntlm.handshake-correct", "ntlm.credentials-scoped", "ntlm.bad-credentials-bounded"] {
                let verdict = try Self.evaluate(check, suite)
                #expect(verdict.passed, "\(check): \(verdict.reason)")
            }
        }
    }

    /// The client's AUTHENTICATE (NTLMv2, EXAMPLE\\user) for the CHALLENGE in `answer`'s
    /// `WWW-Authenticate`.
    static func authenticate(_ answer: RawHTTPExchange, user: TestUser) throws -> String {
        let field = try #require(answer.header("WWW-Authenticate").first { $0.hasPrefix("NTLM ") })
        guard case .challenge(let challenge) = try NTLMMessage.parse(base64: String(field.dropFirst(5))) else {
            throw NTLMMessage.Failure("no CHALLENGE")
        }
        let nt = NTLMCrypto.ntlmV2Response(responseKeyNT: NTLMCrypto.ntowfV2(password: user.password, user: user.username, domain: "EXAMPLE"),
                                           serverChallenge: challenge.serverChallenge, clientChallenge: [9, 8, 7, 6, 5, 4, 3, 2],
                                           timestamp: NTLMCrypto.fileTime(Date()), targetInfo: AVPair.serialize(challenge.targetInfo ?? []))
        let message = NTLMMessage.Authenticate(flags: [.unicode, .ntlm], lmResponse: [UInt8](repeating: 0, count: 24), ntResponse: nt,
                                               domain: "EXAMPLE", user: user.username, workstation: "")
        return "NTLM " + Data(message.serialized()).base64EncodedString()
    }

    static let negotiate = "NTLM " + Data(NTLMMessage.Negotiate(flags: [.unicode, .ntlm]).serialized()).base64EncodedString()

    static func get(_ port: Int, _ path: String, authorization: String?) async throws -> RawHTTPExchange {
        try await RawHTTPExchange.send(port: port, head: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + (authorization.map { "Authorization: \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n")
    }

    /// Under `ntlm-new-connection` the server closed the CHALLENGE's connection: an
    /// AUTHENTICATE on a new one is not held against the client; refused ones are counted.
    @Test func aConnectionTheServerClosedExcusesTheNewOneAndRefusalsAreCounted() async throws {
        try await SuiteFixture.with("windows", knobs: [.ntlm(.newConnection)]) { suite, _ in
            let port = try #require(URLComponents(string: suite.readyInfo().auth.base)?.port)
            let challenged = try await Self.get(port, "/ntlm/", authorization: Self.negotiate)
            #expect(challenged.header("Connection") == ["close"])
            let refused = try await Self.get(port, "/ntlm/", authorization: try Self.authenticate(challenged, user: SuiteFixture.user(suite)))
            #expect(refused.statusLine.hasPrefix("HTTP/1.1 401"))
            #expect(try Self.evaluate("ntlm.handshake-correct", suite).passed)
            let bounded = try ProtocolCheckRun.evaluate("ntlm.bad-credentials-bounded", .httpNTLM, suite, params: ["max_attempts": .integer(0)])
            #expect(bounded.failed && bounded.reason.contains("1 refused AUTHENTICATE"), "\(bounded.reason)")
        }
    }

    @Test func anNTLMv1ResponseAndAMissingDomainAreCaughtFromTheBytes() async throws {
        try await SuiteFixture.with("windows", knobs: [.ntlm(.v1Only)]) { suite, _ in
            let user = SuiteFixture.user(suite)
            // curl answers a CHALLENGE without TargetInfo with NTLMv1 (and LM).
            let outcome = try await Self.curl(["--ntlm", "-u", "\(user.username):\(user.password)", suite.readyInfo().auth.ntlm])
            #expect(outcome.stdout == "200", "the v1-only server accepts curl's downgrade: \(outcome.stdout)")
            let v2 = try Self.evaluate("ntlm.v2-only", suite)
            #expect(v2.failed && v2.evidenceText.contains("NTLMv1"), "\(v2.reason) \(v2.evidenceText)")
            let handshake = try Self.evaluate("ntlm.handshake-correct", suite)
            #expect(handshake.failed && handshake.evidenceText.contains("no domain"), "\(handshake.evidenceText)")
        }
    }

    @Test func ntlmSentWhereWindowsAuthenticationWasNeverAskedFails() async throws {
        try await SuiteFixture.with("windows") { suite, _ in
            let port = try #require(URLComponents(string: suite.readyInfo().auth.base)?.port)
            // A NEGOTIATE to a Basic page: this origin never asks for Windows authentication here.
            let basic = try await Self.get(port, "/basic/", authorization: Self.negotiate)
            #expect(basic.statusLine.hasPrefix("HTTP/1.1 401"))
            let verdict = try Self.evaluate("ntlm.credentials-scoped", suite)
            #expect(verdict.failed && verdict.evidenceText.contains("never asks for Windows authentication"), "\(verdict.evidenceText)")
        }
        try await SuiteFixture.with("windows") { suite, _ in
            let port = try #require(URLComponents(string: suite.readyInfo().auth.base)?.port)
            // A NEGOTIATE ahead of /ntlm/'s own challenge carries nothing and passes; an
            // AUTHENTICATE before any challenge is credentials where none was asked.
            let challenged = try await Self.get(port, "/ntlm/", authorization: Self.negotiate)
            #expect(try Self.evaluate("ntlm.credentials-scoped", suite).passed)
            let early = try await Self.get(port + 0, "/basic/", authorization: try Self.authenticate(challenged, user: SuiteFixture.user(suite)))
            #expect(early.statusLine.hasPrefix("HTTP/1.1 401"))
            // The same origin asked already (at /ntlm/): an AUTHENTICATE there is in scope.
            #expect(try Self.evaluate("ntlm.credentials-scoped", suite).passed)
        }
    }
}
