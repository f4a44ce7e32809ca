import Foundation
import MockServers
import ReferenceClient
import TestSupport
import Testing

@Suite(.serialized) struct WebSSOClientTests {
    @Test func formLoginConsentAndAutoPostObtainTheSecret() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .webSSO)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result.resource.contains(secret))
            #expect(result.details["password_submissions"] == "1")
            #expect(suite.log.entries.contains { $0.annotations["idp.consent"] == "accepted" })
        }
    }

    @Test func httpBasicAtTheIdP() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .webSSO)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result.resource.contains(secret))
        }
    }

    @Test func secondLoginReusesTheIdPSession() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let configuration = try ClientFixture.configuration(suite, flow: .webSSO, parameters: ["SECOND_LOGIN": "1"])
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secrets = suite.log.entries.compactMap { $0.annotations["sp.secret"] }
            let last = try #require(secrets.last)
            #expect(result.resource.contains(last))
            #expect(result.details["second_login_password_submissions"] == "0")
            #expect(suite.log.entries.contains { $0.annotations["idp.session"] == "reused" })
        }
    }

    @Test func idpInitiatedLoginReachesTheSP() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .webSSOIdPInitiated)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result.resource.contains(secret))
        }
    }

    @Test func wrongPasswordIsSubmittedOnce() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let configuration = try ClientFixture.configuration(suite, flow: .webSSO, password: "not the password")
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("password"))
            let posts = suite.log.entries.filter { $0.mock == "idp" && $0.request.method == "POST" }.count
            #expect(posts == 1)
        }
    }

    @Test func wrongAudienceIsAFailureNamingAudience() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.wrongAudience]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .webSSO)).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("audience"), "\(result.error)")
            #expect(result.error.contains("403"))
        }
    }

    @Test func declinedConsentIsAFailure() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let configuration = try ClientFixture.configuration(suite, flow: .webSSO, parameters: ["CONSENT": "decline"])
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .failure)
            #expect(suite.log.entries.contains { $0.annotations["idp.consent"] == "rejected" || $0.annotations["idp.consent"] == "declined" })
        }
    }

    @Test func theTimeoutIsKept() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.noAnswer(30)]) { suite, _ in
            let configuration = try ClientFixture.configuration(suite, flow: .webSSO, timeout: 3)
            let started = Date()
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("timed out"), "\(result.error)")
            #expect(Date().timeIntervalSince(started) < 6)
        }
    }
}
