import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

@Suite(.serialized) struct ControlAPITests {
    func json(_ page: TestBrowser.Page) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any])
    }

    @Test func knobsSwitchedAtRunTimeChangeTheNextLogin() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let control = suite.readyInfo().control
            let set = try await browser.send("PUT", control.knobs, headers: [("Content-Type", "application/json")],
                                             body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
            #expect(set.status == 200)
            #expect(try json(set)["knobs"] as? [String] == ["wrong-audience"])
            _ = try await KnobTests.loginThrough(suite, browser)
            #expect(SuiteFixture.spVerdict(suite).rejected == "audience.mismatch")
            let cleared = try await browser.send("DELETE", control.knobs, headers: [("Content-Type", "application/json")], body: nil)
            #expect(try json(cleared)["knobs"] as? [String] == [])
            let acs = try await KnobTests.loginThrough(suite, browser)
            #expect(acs.status == 302)
        }
    }

    @Test func theClockCanBeMovedForwardForEveryMock() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let control = suite.readyInfo().control
            let moved = try await browser.send("POST", control.clock, headers: [("Content-Type", "application/json")],
                                               body: Array(#"{"advance": 7200}"#.utf8))
            #expect(moved.status == 200)
            let state = try json(moved)
            #expect(state["clockOffset"] as? Double == 7200)
            let now = try SAMLDateTime.date(from: try #require(state["now"] as? String))
            #expect(abs(now.timeIntervalSinceNow - 7200) < 120)
            #expect(abs(suite.environment.clock.now().timeIntervalSinceNow - 7200) < 120)
            // Every mock reads the same clock, so a login still succeeds two hours ahead.
            let acs = try await KnobTests.loginThrough(suite, browser)
            #expect(acs.status == 302)
            let bad = try await browser.send("POST", control.clock, headers: [("Content-Type", "application/json")], body: Array(#"{"advance": "soon"}"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.body.contains("advance"))
        }
    }

    @Test func resetForgetsCASTicketsToo() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo()
            let user = SuiteFixture.user(suite)
            let form = "username=\(PercentEncoding.formEncode(user.username))&password=\(PercentEncoding.formEncode(user.password))"
            let created = try await browser.send("POST", info.cas.tickets,
                                                 headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "text/plain")],
                                                 body: Array(form.utf8))
            #expect(created.status == 201)
            let tgt = try #require(created.header("Location"))
            #expect(try await browser.send("GET", tgt, headers: [], body: nil).status == 200)
            let reset = try await browser.send("POST", info.control.reset, headers: [("Content-Type", "application/json")], body: nil)
            #expect(reset.status == 200)
            #expect(try await browser.send("GET", tgt, headers: [], body: nil).status == 404, "the TGT is forgotten")
        }
    }

    @Test func aBadKnobIsRefusedWithTheReason() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let answer = try await browser.send("PUT", suite.readyInfo().control.knobs, headers: [("Content-Type", "application/json")],
                                                body: Array(#"{"knobs": ["clock-skew=soon"]}"#.utf8))
            #expect(answer.status == 400)
            #expect(answer.body.contains("not a number"))
            let notJSON = try await browser.send("PUT", suite.readyInfo().control.knobs, headers: [("Content-Type", "application/json")], body: Array("wrong-audience".utf8))
            #expect(notJSON.status == 400)
            // A knob that sets up listeners acts only when the mocks start.
            let listener = try await browser.send("PUT", suite.readyInfo().control.knobs, headers: [("Content-Type", "application/json")],
                                                  body: Array(#"{"knobs": ["tls-expired=idp"]}"#.utf8))
            #expect(listener.status == 409)
            #expect(listener.body.contains("samlharness serve --knob"))
            #expect(suite.environment.knobs.isEmpty)
        }
    }

    @Test func theProfileCanBeSwitchedAndTheTrafficExported() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let control = suite.readyInfo().control
            _ = try await browser.send("PUT", control.base + "/run", headers: [("Content-Type", "application/json")], body: Array(#"{"run": "by-hand-1"}"#.utf8))
            let switched = try await browser.send("PUT", control.profile, headers: [("Content-Type", "application/json")], body: Array(#"{"profile": "shibboleth-basic"}"#.utf8))
            #expect(try json(switched)["profile"] as? String == "shibboleth-basic")
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let challenge = try await browser.get(start.location!)
            #expect(challenge.status == 401, "the new profile logs in by HTTP Basic")
            let har = try await browser.get(control.traffic + "?run=by-hand-1")
            let log = try #require(try json(har)["log"] as? [String: Any])
            let entries = try #require(log["entries"] as? [[String: Any]])
            // The profile switch (control), the SP's redirect and the IdP's challenge.
            #expect(entries.compactMap { $0["_mock"] as? String } == ["control", "sp", "idp"])
            #expect(entries.allSatisfy { $0["_run"] as? String == "by-hand-1" })
            let unknown = try await browser.send("PUT", control.profile, headers: [("Content-Type", "application/json")], body: Array(#"{"profile": "nope"}"#.utf8))
            #expect(unknown.status == 400)
            #expect(unknown.body.contains("known profiles"))
            let reset = try await browser.send("POST", control.reset, headers: [("Content-Type", "application/json")], body: nil)
            #expect(try json(reset)["trafficEntries"] as? Int == 0)
            #expect(try json(reset)["trafficDropped"] as? Int == 0)
        }
    }
}

@Suite(.serialized) struct IdPMetadataTrustTests {
    @Test func encryptedProfileEncryptsToTheSPsMetadataKey() async throws {
        try await SuiteFixture.with("shibboleth-encrypted") { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let acs = try await SuiteFixture.completeLogin(browser, from: start, user: SuiteFixture.user(suite))
            let posted = try #require(suite.log.entries.last { $0.request.path == "/Shibboleth.sso/SAML2/POST" })
            let xml = try PostBinding.decode(formBody: posted.request.bodyText).xmlString
            #expect(xml.contains("EncryptedAssertion"))
            #expect(!xml.contains("alice@example.org"), "nothing of the assertion in clear")
            #expect(acs.status == 302)
            #expect(SuiteFixture.spVerdict(suite).accepted == "alice@example.org")
        }
    }

    @Test func withSPMetadataAnUnknownSPIsRefused() async throws {
        let other = EntityDescriptor(entityID: "https://registered.example.org/sp", spSSODescriptor: SPSSODescriptor(
            assertionConsumerServices: [IndexedEndpoint(binding: SAMLBindingURI.httpPost,
                                                        location: "https://registered.example.org/acs", index: 1)]))
        var loaded = try SuiteFixture.profile("shibboleth-basic")
        loaded.spMetadata = [other]
        try await SuiteFixture.with(loaded: loaded) { suite, browser in
            let request = AuthnRequest.make(issuer: "https://stranger.example.org/sp", destination: nil,
                                            assertionConsumerServiceURL: "https://stranger.example.org/acs",
                                            clock: SystemClock(), ids: RandomIDGenerator())
            let url = try RedirectBinding.url(destination: suite.readyInfo().idp.ssoRedirect, message: Array(request.xml().utf8), kind: .request)
            let page = try await browser.get(url)
            #expect(page.status == 400)
            #expect(page.body.contains("not registered"))
            #expect(suite.log.entries.last?.annotations["idp.error"] == "sp.unknown")
            // The mock SP itself is always known.
            let own = try await browser.get(suite.readyInfo().sp.secure)
            let challenge = try await browser.get(own.location!)
            #expect(challenge.status == 401)
        }
    }

    @Test func withoutMetadataAnySPIsAnsweredAndNoted() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let request = AuthnRequest.make(issuer: "https://stranger.example.org/sp", destination: nil,
                                            assertionConsumerServiceURL: "https://stranger.example.org/acs",
                                            clock: SystemClock(), ids: RandomIDGenerator())
            let url = try RedirectBinding.url(destination: suite.readyInfo().idp.ssoRedirect, message: Array(request.xml().utf8), kind: .request)
            let user = SuiteFixture.user(suite)
            let page = try await browser.get(url, headers: [("Authorization", BasicCredentials(username: user.username, password: user.password).headerValue)])
            #expect(page.status == 200)
            #expect(page.forms.first?.action == "https://stranger.example.org/acs")
            #expect(suite.log.entries.last?.annotations["idp.sp-unverified"]?.contains("stranger.example.org") == true)
        }
    }
}
