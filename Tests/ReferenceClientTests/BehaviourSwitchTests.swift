import Foundation
import MockServers
import ReferenceClient
import TestSupport
import Testing

/// Each `ClientBehaviour` field is a real decision point: flipping it changes what the
/// mocks see. (The bug variants themselves are built elsewhere.)
@Suite(.serialized) struct BehaviourSwitchTests {
    @Test func strippedPaddingLeavesNoEqualsSign() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            var behaviour = ClientBehaviour.correct
            behaviour.keepBase64Padding = false
            _ = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .webSSO), behaviour: behaviour).run()
            let acs = try #require(suite.log.entries.last { $0.mock == "sp" && $0.request.method == "POST" })
            let pairs = String(decoding: acs.request.body, as: UTF8.self).split(separator: "&")
            let response = try #require(pairs.first { $0.hasPrefix("SAMLResponse=") })
            #expect(!response.hasSuffix("%3D"))
        }
    }

    @Test func unescapedWSTrustPasswordGetsInvalidRequest() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            var behaviour = ClientBehaviour.correct
            behaviour.xmlEscapeWSTrustCredentials = false
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .adfsWSTrust, user: "dana"),
                                               behaviour: behaviour).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("InvalidRequest"), "\(result.error)")
        }
    }

    @Test func skippingTheConsumerURLCheckPostsToTheSP() async throws {
        try await SuiteFixture.with("shibboleth", knobs: [.acsOther]) { suite, _ in
            var behaviour = ClientBehaviour.correct
            behaviour.checkECPConsumerURL = false
            _ = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .ecp), behaviour: behaviour).run()
            #expect(ClientFixture.count(suite, mock: "sp", method: "POST", path: "/Shibboleth.sso/") == 1)
        }
    }

    @Test func ignoringCredentialsInvalidFails() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.expireAfterBorrow)]) { suite, _ in
            var behaviour = ClientBehaviour.correct
            behaviour.reloginOnCredentialsInvalid = false
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .opdsSAML), behaviour: behaviour).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("credentials-invalid"), "\(result.error)")
        }
    }

    @Test func theCorrectClientSurvivesATokenRevokedAfterTheBorrow() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.expireAfterBorrow)]) { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .opdsSAML)).run()
            #expect(result.outcome == .success, "\(result.error)")
            #expect(result.details["relogins"] == "1")
            let sha = try #require(ClientFixture.annotation(suite, "cm.sha256"))
            #expect(result.resource.contains(sha))
        }
    }

    @Test func reusingACASTicketIsRefused() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            var behaviour = ClientBehaviour.correct
            behaviour.useCASTicketOnce = false
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .casREST, user: "carol"),
                                               behaviour: behaviour).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("INVALID_TICKET"), "\(result.error)")
        }
    }

    @Test func credentialsBeforeTheChallengeAreSeenByTheServer() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            var behaviour = ClientBehaviour.correct
            behaviour.sendCredentialsBeforeChallenge = true
            _ = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .httpBasic), behaviour: behaviour).run()
            let first = suite.log.entries.first { $0.mock == "auth" }
            #expect(first?.request.headers.contains { $0.name.lowercased() == "authorization" } == true)
        }
    }
}

@Suite(.serialized) struct WSTrustVariantTests {
    @Test func saml20TokenFromThe2005Endpoint() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            let info = suite.readyInfo()
            var configuration = try ClientFixture.configuration(suite, flow: .adfsWSTrust,
                                                                parameters: ["ADFS_TOKEN_TYPE": "urn:oasis:names:tc:SAML:2.0:assertion"])
            configuration.parameters["ADFS_ENDPOINT"] = info.adfs.usernameMixed2005
            configuration.startURL = try #require(URL(string: info.adfs.usernameMixed2005))
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .success, "\(result.error)")
            #expect(result.resource.contains("urn:oasis:names:tc:SAML:2.0:assertion"))
        }
    }

    @Test func wrongCASPasswordIsNamed() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .casREST, user: "carol", password: "nope")).run()
            #expect(result.outcome == .failure)
            #expect(result.error.contains("password"), "\(result.error)")
        }
    }
}
