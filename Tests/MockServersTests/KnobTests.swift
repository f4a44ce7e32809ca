import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Every knob that breaks the Response is refused by the mock SP with the reason code the
/// knob documents; the transport faults do what they say on the wire.
@Suite(.serialized) struct KnobTests {
    /// The SP under which a knob's damage is refusable: the hardened personality, with
    /// the setting that refuses what hardened leaves alone (e.g. `assertion-unsigned`
    /// matters to an SP that requires signed assertions).
    static func settings(for knob: Knob) -> (inout IdPProfile) -> Void {
        { profile in
            profile.sp.personality = "hardened"
            switch knob {
            case .assertionUnsigned:
                profile.idp.sign = "both"
                profile.sp.settings["requireSignedAssertions"] = .text("true")
            case .base64Wrapped:
                profile.sp.settings["strictBase64"] = .text("true")
            case .attributeMissing:
                profile.sp.settings["AttributeChecker"] = .list(["mail"])
            default:
                break
            }
        }
    }

    /// Logs in through the Basic profile and posts the IdP's answer to the SP.
    static func loginThrough(_ suite: MockSuite, _ browser: TestBrowser) async throws -> TestBrowser.Page {
        let user = SuiteFixture.user(suite)
        let start = try await browser.get(suite.readyInfo().sp.secure)
        let answer = try await browser.get(start.location!, headers: [
            ("Authorization", BasicCredentials(username: user.username, password: user.password).headerValue),
        ])
        #expect(answer.status == 200, "the IdP answered \(answer.status): \(answer.body.prefix(300))")
        return try await browser.submit(answer)
    }

    @Test(arguments: Knob.examples.filter { $0.expectedSPReason != nil })
    func theMockSPRefusesWithTheKnobsReason(_ knob: Knob) async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [knob], modify: Self.settings(for: knob)) { suite, browser in
            let acs = try await Self.loginThrough(suite, browser)
            #expect([400, 403, 413].contains(acs.status), "\(knob.text): the SP answered \(acs.status)")
            #expect(SuiteFixture.spVerdict(suite).rejected == knob.expectedSPReason, "\(knob.text)")
            #expect(acs.body.contains(knob.expectedSPReason!), "the error page names the reason")
        }
    }

    /// A stock Shibboleth SP (the default personality) answers each knob as
    /// ``Knob/expectedSPReason(under:)`` says: it accepts SHA-1, a lost RelayState, a second
    /// assertion, an uncorrelated InResponseTo… and refuses the rest with the same codes.
    @Test(arguments: Knob.examples.filter { $0.expectedSPReason != nil })
    func aStockShibbolethSPAnswersAsItsRulesSay(_ knob: Knob) async throws {
        let modify: (inout IdPProfile) -> Void = { profile in
            if knob == .assertionUnsigned { profile.idp.sign = "both" }
        }
        try await SuiteFixture.with("shibboleth-basic", knobs: [knob], modify: modify) { suite, browser in
            let rules = SPRules()
            #expect(suite.environment.profile.spPersonality == "shibboleth" && suite.environment.profile.spRules == rules)
            let acs = try await Self.loginThrough(suite, browser)
            let verdict = SuiteFixture.spVerdict(suite)
            if let reason = knob.expectedSPReason(under: rules) {
                #expect(verdict.rejected == reason, "\(knob.text): \(acs.status)")
            } else {
                #expect(acs.status == 302 && verdict.rejected == nil, "\(knob.text): refused \(verdict.rejected ?? "?")")
                #expect(verdict.accepted == "alice@example.org", "\(knob.text): the first assertion's subject is logged in")
            }
        }
    }

    @Test func withoutTheKnobTheSameLoginIsAccepted() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let acs = try await Self.loginThrough(suite, browser)
            #expect(acs.status == 302)
            #expect(SuiteFixture.spVerdict(suite).accepted == "alice@example.org")
        }
    }

    @Test func aSkewInsideTheSPsToleranceIsAccepted() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.clockSkew(90)]) { suite, browser in
            let acs = try await Self.loginThrough(suite, browser)
            #expect(acs.status == 302)
        }
    }

    @Test func lineWrappedBase64IsAcceptedByDefaultAndNoted() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.base64Wrapped(76)]) { suite, browser in
            let acs = try await Self.loginThrough(suite, browser)
            #expect(acs.status == 302)
            let entry = suite.log.entries.last { $0.annotations["sp.accepted"] != nil }
            #expect(entry?.annotations["sp.encoding-deviations"]?.contains("base64.line-wrapped") == true)
            // The client carried the CRLFs: they arrive percent-encoded in the form body.
            #expect(entry?.request.bodyText.contains("%0D%0A") == true)
        }
    }

    @Test func aCommentInTheNameIDIsReadWhole() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.nameIDComment]) { suite, browser in
            let acs = try await Self.loginThrough(suite, browser)
            let posted = try #require(suite.log.entries.last { $0.annotations["sp.accepted"] != nil })
            let xml = try PostBinding.decode(formBody: posted.request.bodyText).xmlString
            #expect(xml.contains("alice<!--x-->@example.org</saml:NameID>"))
            #expect(acs.status == 302)
            #expect(SuiteFixture.spVerdict(suite).accepted == "alice@example.org")
        }
    }

    @Test func error500AnswersAnErrorPage() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.error500]) { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let answer = try await browser.get(start.location!)
            #expect(answer.status == 500)
            #expect(suite.log.entries.last?.annotations["idp.knob"] == "error-500")
        }
    }

    @Test func redirectLoopNeverEnds() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.redirectLoop]) { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            var page = try await browser.get(start.location!)
            for hop in 1...5 {
                #expect(page.status == 302)
                #expect(page.location?.hasSuffix("loop=\(hop)") == true)
                page = try await browser.get(page.location!)
            }
            #expect(page.location?.contains("SAMLRequest=") == true, "the request is carried along")
        }
    }

    @Test func slowAnswersLate() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.slow(1)]) { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let answer = try await browser.get(start.location!)
            #expect(answer.status == 401)
            let entry = try #require(suite.log.entries.last)
            #expect(entry.waitDuration >= 1.0)
        }
    }

    @Test func noAnswerClosesTheConnectionWithoutAResponse() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.noAnswer(0.5)]) { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            await #expect(throws: (any Error).self) { _ = try await browser.get(start.location!) }
            let entry = try #require(suite.log.entries.last)
            #expect(entry.mock == "idp")
            #expect(entry.response == nil)
        }
    }

    @Test func everyKnobHasADocumentedLineInTheMockIdPReadme() throws {
        let readme = try String(contentsOf: SuiteFixture.mockIdP.appendingPathComponent("README.md"), encoding: .utf8)
        for name in Knob.names {
            #expect(readme.contains("`\(name)"), "MockIdP/README.md does not document \(name)")
        }
    }
}
