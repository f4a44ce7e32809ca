import Foundation
import MockServers
import Testing
import TestSupport

/// Where the mock CAS may send a `pgtUrl` callback (issue 36): the suite's own mock listeners
/// and the profile's `cas.proxy_callback_allow` origins, never another loopback port — not the
/// control API, not another service of the machine. A refused pgtUrl is what Apereo CAS answers
/// for a callback its proxy policy does not allow: `INVALID_PROXY_CALLBACK`, no call, the
/// ticket untouched.
@Suite struct CASProxyCallbackScopeTests {
    /// The validation's CAS traffic entry (the last at `/cas/serviceValidate`).
    static func validation(_ suite: MockSuite) throws -> TrafficEntry {
        try #require(suite.log.entries.last { $0.mock == "cas" && $0.request.path == "/cas/serviceValidate" })
    }

    @Test func anotherLoopbackServiceIsNeverCalled() async throws {
        // Another service on this machine that would answer 200: a second suite's IdP.
        let other = try await MockSuite.start(profile: try SuiteFixture.profile("generic"), mockIdPDirectory: SuiteFixture.mockIdP)
        defer { Task { await other.stop() } }
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            for pgtUrl in [other.readyInfo().idp.metadata + "?cb=1", suite.readyInfo().control.state] {
                let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(
                    browser, info.serviceValidate, ticket: ticket, service: info.service, extra: "&pgtUrl=" + CASFixture.enc(pgtUrl)))
                #expect(answer.failureCode == "INVALID_PROXY_CALLBACK", "\(pgtUrl)")
                #expect(answer.proxyGrantingTicket == nil)
                let entry = try Self.validation(suite)
                #expect(entry.annotations["cas.proxy-callback"] == "refused")
                let reason = try #require(entry.annotations["cas.failure"])
                #expect(reason.hasPrefix("not-allowed: the pgtUrl's origin http://127.0.0.1:"), "\(reason)")
                #expect(reason.contains("cas.proxy_callback_allow") && reason.contains("idp :"), "\(reason)")
                #expect(!reason.contains("control :"), "the control API is no callback: \(reason)")
            }
            #expect(other.log.entries.isEmpty, "the other service was called: \(other.log.entries.map(\.request.target))")
            // Refused before the ticket was used: it still validates.
            let again = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service))
            #expect(again.user == "alice")
        }
    }

    @Test func theSuitesOwnListenersAndTheAllowListAreCalled() async throws {
        let other = try await MockSuite.start(profile: try SuiteFixture.profile("generic"), mockIdPDirectory: SuiteFixture.mockIdP)
        defer { Task { await other.stop() } }
        let otherOrigin = other.readyInfo().idp.base
        try await SuiteFixture.with("cas", modify: { $0.cas.proxyCallbackAllow = [otherOrigin + "/"] }) { suite, browser in
            let info = suite.readyInfo().cas
            // The allow-listed origin (another listener of this machine the profile names).
            let allowed = other.readyInfo().idp.metadata + "?cb=allowed"
            let ticket = try await CASFixture.restTicket(suite, browser)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(
                browser, info.serviceValidate, ticket: ticket, service: info.service, extra: "&pgtUrl=" + CASFixture.enc(allowed)))
            #expect(answer.user == "alice")
            #expect(answer.proxyGrantingTicket?.hasPrefix("PGTIOU-") == true)
            #expect(other.log.entries.filter { $0.request.queryValue("cb") == "allowed" }.count == 2, "bare, then pgtIou and pgtId")
            // One of this suite's own mock listeners, not in the list: its IdP.
            let own = suite.readyInfo().idp.metadata + "?cb=own"
            let second = try await CASFixture.restTicket(suite, browser)
            let ownAnswer = try CASFixture.ServiceResponse(try await CASFixture.validate(
                browser, info.serviceValidate, ticket: second, service: info.service, extra: "&pgtUrl=" + CASFixture.enc(own)))
            #expect(ownAnswer.proxyGrantingTicket?.hasPrefix("PGTIOU-") == true, "\(ownAnswer.failureCode ?? "")")
            #expect(try Self.validation(suite).annotations["cas.proxy-callback"] == "delivered")
        }
    }

    @Test func theAllowListIsLoadedStrictly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cas-allow-\(UUID().uuidString)/bad")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.copyItem(at: SuiteFixture.mockIdP.appendingPathComponent("keys"),
                                         to: directory.deletingLastPathComponent().appendingPathComponent("keys"))
        func load(_ allow: String) throws -> LoadedProfile {
            let file = directory.appendingPathComponent("profile.yaml")
            try "name: bad\ncas:\n  proxy_callback_allow: \(allow)\nusers: [{username: u, password: p}]\n"
                .write(to: file, atomically: true, encoding: .utf8)
            return try LoadedProfile.load(file: file)
        }
        let loaded = try load(#"["http://127.0.0.1:9000", "http://[::1]:9001/", "http://localhost:9002"]"#)
        #expect(loaded.profile.cas.proxyCallbackAllow.count == 3)
        for bad in ["https://127.0.0.1:9443", "http://example.org:9000", "http://10.0.0.2:9000", "http://127.0.0.1:9000/cb",
                    "http://127.0.0.1:9000/?a=1", "http://u:p@127.0.0.1:9000", "127.0.0.1:9000"] {
            do {
                _ = try load("[\"\(bad)\"]")
                Issue.record("\(bad) was accepted")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("cas.proxy_callback_allow") && error.message.contains("`\(bad)`"), "\(error.message)")
            }
        }
        do {
            _ = try load("http://127.0.0.1:9000")
            Issue.record("a single string was accepted for a list")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("proxy_callback_allow"), "\(error.message)")
        }
    }
}
