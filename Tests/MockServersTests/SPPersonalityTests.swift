import Foundation
import MockServers
import SAMLCore
import TestSupport
import Testing

/// The SP personalities (MockIdP/sp/): Shibboleth SP 3's stock rules by default, settings by
/// their real names, and the behaviours a stock Shibboleth SP shows that a strict SP does
/// not (lands on homeURL, merges a second assertion, the MessageFlow age rule). The
/// comparison with a real Shibboleth SP is scripts/sp-oracle.py (docs/sp-personalities.md).
@Suite struct SPPersonalityTests {
    @Test func theShibbolethFileStatesTheStockDefaults() throws {
        let shibboleth = try SPPersonality.load(named: "shibboleth", from: SuiteFixture.mockIdP)
        #expect(shibboleth.rules == SPRules())
        #expect(shibboleth.product.hasPrefix("Shibboleth SP 3"))
        // Every setting is written out in the file, so it documents them all.
        let text = try String(contentsOf: SuiteFixture.mockIdP.appendingPathComponent("sp/shibboleth.yaml"), encoding: .utf8)
        for setting in SPRules.settings {
            #expect(text.contains("  \(setting.name):"), "shibboleth.yaml leaves out \(setting.name)")
        }
        #expect(SPPersonality.names(in: SuiteFixture.mockIdP).contains("hardened"))
        // docs/sp-personalities.md documents every setting.
        let docs = try String(contentsOf: SuiteFixture.mockIdP.deletingLastPathComponent().appendingPathComponent("docs/sp-personalities.md"), encoding: .utf8)
        for setting in SPRules.settings {
            #expect(docs.contains("| `\(setting.name)` |"), "docs/sp-personalities.md leaves out \(setting.name)")
        }
    }

    @Test func hardenedTurnsTheRefusalsOn() throws {
        let hardened = try SPPersonality.load(named: "hardened", from: SuiteFixture.mockIdP).rules
        #expect(hardened.differences(from: SPRules()) == [
            "ExcludedAlgorithms=http://www.w3.org/2000/09/xmldsig#rsa-sha1 http://www.w3.org/2000/09/xmldsig#sha1",
            "checkCorrelation=true", "LimitRequestBody=1048576", "requireRelayState=true", "requireRequestedACS=true",
            "requireRequestedNameIDFormat=true", "singleAssertion=true", "checkCertificateValidity=true",
        ])
    }

    @Test func badSettingsAreNamed() throws {
        var rules = SPRules()
        #expect(throws: SPRules.SettingError.self) { try rules.apply("checkCorelation=true") }
        do { try rules.apply("checkCorelation=true") } catch let error as SPRules.SettingError {
            #expect(error.description.contains("unknown SP setting `checkCorelation`") && error.description.contains("checkCorrelation"))
        }
        do { try rules.apply("blockUnsolicited=maybe") } catch let error as SPRules.SettingError {
            #expect(error.description == "SP setting `blockUnsolicited`: `maybe` is not true or false")
        }
        #expect(throws: SPRules.SettingError.self) { try rules.apply("clockSkew=-5") }
        #expect(throws: SPRules.SettingError.self) { try rules.apply("ExcludedAlgorithms=md4") }
        #expect(throws: SPRules.SettingError.self) { try rules.apply("homeURL") }
        try rules.apply("ExcludedAlgorithms=rsa-sha1,sha1")
        #expect(rules.excludesSHA1)
        #expect(throws: ConfigurationError.self) { try SPPersonality.load(named: "shibbolth", from: SuiteFixture.mockIdP) }
        do { _ = try SPPersonality.load(named: "../users", from: SuiteFixture.mockIdP) } catch let error as ConfigurationError {
            #expect(error.message.contains("is not an SP personality name"))
        }
    }

    /// Logs in (Basic profile) and posts the IdP's answer to the SP.
    static func login(_ suite: MockSuite, _ browser: TestBrowser) async throws -> TestBrowser.Page {
        try await KnobTests.loginThrough(suite, browser)
    }

    @Test func aLostRelayStateLandsOnHomeURLWithTheSession() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.relayStateDropped]) { suite, browser in
            let acs = try await Self.login(suite, browser)
            let base = suite.readyInfo().sp.base
            #expect(acs.status == 302 && acs.location == base + "/", "\(acs.status) \(acs.location ?? "")")
            let entry = try #require(suite.log.entries.last { $0.annotations["sp.accepted"] != nil })
            #expect(entry.annotations["sp.landing"] == "homeURL")
            #expect(entry.annotations["sp.personality"] == "shibboleth")
            let home = try await browser.get(acs.location!)
            #expect(home.status == 200 && home.body.contains("id=\"home\"") && home.body.contains("id=\"secret\""))
        }
        // homeURL by its real name.
        try await SuiteFixture.with("shibboleth-basic", knobs: [.relayStateAltered], modify: { $0.sp.settings["homeURL"] = .text("/welcome") }) { suite, browser in
            let acs = try await Self.login(suite, browser)
            #expect(acs.location == suite.readyInfo().sp.base + "/welcome")
            let entry = try #require(suite.log.entries.last { $0.annotations["sp.accepted"] != nil })
            #expect(entry.annotations["sp.personality"] == "shibboleth homeURL=/welcome")
        }
        // Without a session the home page offers the login; it never redirects.
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let home = try await browser.get(suite.readyInfo().sp.base + "/")
            #expect(home.status == 200 && home.body.contains("You are not logged in") && !home.body.contains("secret"))
        }
    }

    @Test func aSecondAssertionIsMergedAsShibbolethDoes() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.secondAssertion]) { suite, browser in
            let acs = try await Self.login(suite, browser)
            #expect(acs.status == 302)
            let entry = try #require(suite.log.entries.last { $0.annotations["sp.accepted"] != nil })
            #expect(entry.annotations["sp.accepted"] == "alice@example.org" && entry.annotations["sp.assertions"] == "2")
            let session = try await browser.get(suite.readyInfo().sp.session, headers: [("Accept", "application/json")])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(session.body.utf8)) as? [String: Any])
            let attributes = try #require(json["attributes"] as? [String: [String]])
            #expect(attributes["uid"] == ["alice", "mallory"], "\(attributes)")
        }
        // requireSignedAssertions skips an assertion not signed itself: with both signed by
        // the profile except mallory's, only alice's is used.
        try await SuiteFixture.with("shibboleth-basic", knobs: [.secondAssertion], modify: {
            $0.idp.sign = "both"; $0.sp.settings["requireSignedAssertions"] = .text("true")
        }) { suite, browser in
            let acs = try await Self.login(suite, browser)
            #expect(acs.status == 302)
            let entry = try #require(suite.log.entries.last { $0.annotations["sp.accepted"] != nil })
            #expect(entry.annotations["sp.skipped-assertions"] == "1" && entry.annotations["sp.assertions"] == nil)
        }
    }

    @Test(arguments: [(-300, "message.expired"), (-241 - 5, "message.expired"), (-120, nil), (120, nil), (300, "message.not-yet-valid")] as [(Int, String?)])
    func theMessageFlowRuleJudgesIssueInstant(_ skew: Int, _ reason: String?) async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.clockSkew(skew)]) { suite, browser in
            let acs = try await Self.login(suite, browser)
            #expect(SuiteFixture.spVerdict(suite).rejected == reason, "clock-skew=\(skew): \(acs.status)")
            #expect(Knob.clockSkew(skew).expectedSPReason(under: SPRules()) == reason)
        }
        // MessageFlow.expires by its real name: 600 s of age accepted.
        if skew == -300 {
            try await SuiteFixture.with("shibboleth-basic", knobs: [.clockSkew(skew)], modify: { $0.sp.settings["MessageFlow.expires"] = .text("600") }) { suite, browser in
                let acs = try await Self.login(suite, browser)
                #expect(acs.status == 302, "\(SuiteFixture.spVerdict(suite))")
            }
        }
    }

    @Test func theReadyLineNamesThePersonalityAndItsSettings() async throws {
        try await SuiteFixture.with("shibboleth-basic", modify: { $0.sp.personality = "hardened" }) { suite, _ in
            let sp = suite.readyInfo().sp
            #expect(sp.personality == "hardened" && sp.settings?.contains("checkCorrelation=true") == true)
        }
    }
}
