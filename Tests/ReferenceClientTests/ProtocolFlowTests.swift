import Foundation
import MockServers
import ReferenceClient
import TestSupport
import Testing

@Suite(.serialized) struct ECPClientTests {
    @Test func ecpObtainsTheSecret() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .ecp)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result.resource.contains(secret))
        }
    }

    @Test func consumerURLMismatchIsRefusedWithoutPostingToTheSP() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.acsOther]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .ecp)).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("consumer URL mismatch"), "\(result.error)")
            #expect(ClientFixture.count(suite, mock: "sp", method: "POST", path: "/Shibboleth.sso/") == 0)
        }
    }
}

@Suite(.serialized) struct HTTPAuthClientTests {
    @Test func basicAfterTheChallenge() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .httpBasic)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let requests = suite.log.entries.filter { $0.mock == "auth" }
            #expect(requests.first?.request.headers.contains { $0.name.lowercased() == "authorization" } == false)
            #expect(requests.count == 2)
            #expect(result.resource.contains(HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic")))
        }
    }

    @Test(arguments: ["md5", "sha256", "any"]) func digest(_ variant: String) async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let info = suite.readyInfo()
            var configuration = try ClientFixture.configuration(suite, flow: .httpDigest)
            let url = variant == "md5" ? info.auth.digestMD5 : variant == "sha256" ? info.auth.digestSHA256 : info.auth.digestAny
            configuration.startURL = try #require(URL(string: url))
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .success, "\(result.error)")
            #expect(suite.log.entries.contains { $0.mock == "auth" && $0.response?.status == 200 })
        }
    }

    @Test func wrongBasicPasswordIsSentOnce() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let configuration = try ClientFixture.configuration(suite, flow: .httpBasic, password: "wrong")
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("password"))
            let withCredentials = suite.log.entries.filter { entry in
                entry.mock == "auth" && entry.request.headers.contains { $0.name.lowercased() == "authorization" }
            }
            #expect(withCredentials.count == 1)
        }
    }
}

@Suite(.serialized) struct CASClientTests {
    @Test func restTicketValidatesOnce() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .casREST, user: "carol")).run()
            #expect(result.outcome == .success, "\(result.error)")
            let user = try #require(ClientFixture.annotation(suite, "cas.user"))
            #expect(result.resource.contains("<cas:user>\(user)</cas:user>"))
            #expect(suite.log.entries.filter { $0.annotations["cas.validate"] != nil }.count == 1)
        }
    }

    @Test func restWithRewrittenServiceFailsNamingInvalidService() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceRewrite(.trailingSlash))]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .casREST, user: "carol")).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("INVALID_SERVICE"), "\(result.error)")
        }
    }

    @Test func browserLoginReachesTheApplication() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .casBrowser, user: "carol")).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "cas.app.secret"))
            #expect(result.resource.contains(secret))
        }
    }

    @Test func browserWithRewrittenServiceFailsNamingInvalidService() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceRewrite(.trailingSlash))]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .casBrowser, user: "carol")).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("INVALID_SERVICE"), "\(result.error)")
        }
    }
}

@Suite(.serialized) struct ADFSClientTests {
    @Test func wsTrustTokenForDanasEscapedPassword() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .adfsWSTrust, user: "dana")).run()
            #expect(result.outcome == .success, "\(result.error)")
            #expect(result.resource.contains("RequestSecurityTokenResponse"))
            #expect(result.resource.contains("SignatureValue"))
            #expect(suite.log.entries.contains { $0.annotations["adfs.user"] == "dana" || $0.annotations["adfs.token"] != nil })
        }
    }

    @Test func failedAuthenticationFaultIsNamed() async throws {
        try await SuiteFixture.with("adfs", knobs: [.adfs(.fault(.failedAuthentication))]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .adfsWSTrust)).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("FailedAuthentication"), "\(result.error)")
        }
    }

    @Test func passiveSignInReachesTheSP() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .adfsPassive)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result.resource.contains(secret))
        }
    }
}

@Suite(.serialized) struct OPDSClientTests {
    @Test func loginBorrowAndFulfilGetTheBook() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .opdsSAML)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let sha = try #require(ClientFixture.annotation(suite, "cm.sha256"))
            #expect(result.resource.contains(sha))
        }
    }

    @Test func expiredTokenGetsExactlyOneRelogin() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.tokenLifetime(2))]) { suite, _ in
            let environment = suite.environment
            let client = ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .opdsSAML)) { event in
                if event == .tokenObtained(count: 1) { environment.advanceClock(by: 10) }
            }
            let result = await client.run()
            #expect(result.outcome == .success, "\(result.error)")
            #expect(result.details["relogins"] == "1")
            #expect(result.details["logins"] == "2")
            let sha = try #require(ClientFixture.annotation(suite, "cm.sha256"))
            #expect(result.resource.contains(sha))
            #expect(suite.log.entries.contains { $0.annotations["cm.token-rejected"] == "token.expired" })
        }
    }

    @Test(arguments: ["redirect", "reverify"]) func fulfilmentChains(_ mode: String) async throws {
        let knob: Knob = mode == "redirect" ? .cm(.fulfil(.redirect)) : .cm(.fulfil(.reverify))
        try await SuiteFixture.with("circulation-manager", knobs: [knob]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .opdsSAML)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let sha = try #require(ClientFixture.annotation(suite, "cm.sha256"))
            #expect(result.resource.contains(sha))
        }
    }
}
