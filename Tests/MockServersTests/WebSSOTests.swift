import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

@Suite(.serialized) struct WebSSOTests {
    @Test func shibbolethFormConsentAndAutoPostReachTheSecret() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let start = try await browser.get(info.sp.secure)
            #expect(start.status == 302)
            #expect(start.location?.hasPrefix(info.idp.ssoRedirect + "?SAMLRequest=") == true)
            let first = try await browser.get(start.location!)
            #expect(first.status == 302)
            #expect(first.location == "/idp/profile/SAML2/Redirect/SSO?execution=e1s1")
            #expect(browser.cookie("_idp_authn_lc_key") != nil)
            let login = try await browser.follow(first)
            let form = try #require(login.forms.first)
            #expect(form.value("lt")?.hasPrefix("LT-") == true)
            #expect(form.value("csrf_token") != nil)
            let final = try await browser.follow(try await SuiteFixture.completeLogin(browser, from: login, user: SuiteFixture.user(suite)))
            #expect(final.status == 200)
            #expect(final.url == info.sp.secure)
            let secret = try #require(suite.log.entries.compactMap { $0.annotations["sp.secret"] }.last)
            #expect(final.body.contains(secret))
            #expect(final.body.contains("alice@example.org"))
            #expect(browser.cookies.contains { $0.name.hasPrefix("_shibsession_") })
            #expect(browser.cookie("_idp_session") != nil)
            // The consent page was shown and accepted.
            #expect(suite.log.entries.contains { $0.annotations["idp.consent"] == "accepted" })
        }
    }

    @Test func theIdPSessionIsReusedAndConsentRemembered() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await SuiteFixture.webSSO(suite, browser)
            let before = suite.log.entries.count
            // A second login at the SP: the IdP answers with the auto-post at once.
            let start = try await browser.get(suite.readyInfo().sp.login + "?target=/secure/again")
            let idpAnswer = try await browser.get(start.location!)
            #expect(idpAnswer.status == 200)
            #expect(idpAnswer.forms.first?.value("SAMLResponse") != nil)
            #expect(suite.log.entries.dropFirst(before).contains { $0.annotations["idp.session"] == "reused" })
            let final = try await browser.follow(try await browser.submit(idpAnswer))
            #expect(final.url.hasSuffix("/secure/again"))
            #expect(final.status == 200)
        }
    }

    @Test func forceAuthnAsksForThePasswordAgain() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await SuiteFixture.webSSO(suite, browser)
            let start = try await browser.get(suite.readyInfo().sp.login + "?forceAuthn=1")
            let page = try await browser.follow(start)
            #expect(page.forms.first?.fields.contains { $0.name == "j_password" } == true)
        }
    }

    @Test func isPassiveWithoutSessionGetsNoPassive() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.login + "?isPassive=1")
            let answer = try await browser.get(start.location!)
            let response = try #require(answer.forms.first?.value("SAMLResponse"))
            let xml = String(decoding: try PostBinding.decode(response).xml, as: UTF8.self)
            #expect(xml.contains(StatusCode.noPassive))
            let acs = try await browser.submit(answer)
            #expect(acs.status == 403)
            #expect(SuiteFixture.spVerdict(suite).rejected == "status.not-success")
        }
    }

    @Test func withoutTheFlowCookieTheLoginIsAStaleRequest() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let first = try await browser.get(start.location!)
            browser.forgetCookies()
            let page = try await browser.get(browser.resolve(first.location!, against: first.url))
            #expect(page.status == 400)
            #expect(page.body.contains("Stale Request"))
            #expect(suite.log.entries.last?.annotations["idp.error"] == "flow.cookie-missing")
        }
    }

    @Test func aReplayedLoginTicketIsRefused() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let login = try await browser.follow(try await browser.get(start.location!))
            let user = SuiteFixture.user(suite)
            _ = try await browser.submit(login, values: ["j_username": user.username, "j_password": "wrong"],
                                         button: ("_eventId_proceed", ""))
            // The same (now used) page posted again: its execution is stale.
            let replay = try await browser.submit(login, values: ["j_username": user.username, "j_password": user.password],
                                                  button: ("_eventId_proceed", ""))
            #expect(replay.status == 400)
            #expect(suite.log.entries.last?.annotations["idp.error"] == "flow.stale-execution")
        }
    }

    @Test func aWrongPasswordShowsTheFormWithAnError() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let login = try await browser.follow(try await browser.get(suite.readyInfo().sp.secure))
            let acs = try await browser.submit(login, values: ["j_username": "alice", "j_password": "nope"],
                                               button: ("_eventId_proceed", ""))
            #expect(acs.status == 200)
            #expect(acs.body.contains("The password you entered was incorrect."))
            #expect(acs.forms.first?.fields.contains { $0.name == "j_password" } == true)
            #expect(suite.log.entries.last?.annotations["idp.login"] == "bad-password")
        }
    }

    @Test func lockoutAfterThreeFailuresEvenForTheRightPassword() async throws {
        try await SuiteFixture.with("shibboleth-lockout") { suite, browser in
            let user = SuiteFixture.user(suite, "dave")
            var page = try await browser.follow(try await browser.get(suite.readyInfo().sp.secure))
            for attempt in 1...3 {
                page = try await browser.submit(page, values: ["j_username": user.username, "j_password": "wrong\(attempt)"],
                                                button: ("_eventId_proceed", ""))
            }
            #expect(page.status == 403)
            #expect(page.body.contains("Account Locked"))
            let again = try await browser.follow(try await browser.get(suite.readyInfo().sp.secure))
            let locked = try await browser.submit(again, values: ["j_username": user.username, "j_password": user.password],
                                                  button: ("_eventId_proceed", ""))
            #expect(locked.status == 403)
            #expect(suite.log.entries.last?.annotations["idp.login"] == "locked")
        }
    }

    @Test func httpBasicProfileChallengesThenAnswers() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let user = SuiteFixture.user(suite, "bob")
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let challenge = try await browser.get(start.location!)
            #expect(challenge.status == 401)
            #expect(challenge.header("WWW-Authenticate")?.hasPrefix("Basic realm=\"Shibboleth IdP\"") == true)
            let wrong = try await browser.get(start.location!, headers: [("Authorization", BasicCredentials(username: user.username, password: "x").headerValue)])
            #expect(wrong.status == 401)
            let answer = try await browser.get(start.location!, headers: [("Authorization", BasicCredentials(username: user.username, password: user.password).headerValue)])
            #expect(answer.status == 200)
            let final = try await browser.follow(try await browser.submit(answer))
            #expect(final.status == 200)
            #expect(final.body.contains("bob@example.org"))
        }
    }

    @Test func secondFactorIsAskedAndChecked() async throws {
        try await SuiteFixture.with("shibboleth-mfa") { suite, browser in
            let user = SuiteFixture.user(suite)
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let login = try await browser.follow(start)
            let mfa = try await browser.follow(try await browser.submit(
                login, values: ["j_username": user.username, "j_password": user.password], button: ("_eventId_proceed", "")))
            #expect(mfa.body.contains("j_tokenNumber"))
            let wrong = try await browser.submit(mfa, values: ["j_tokenNumber": "000000"], button: ("_eventId_proceed", ""))
            #expect(wrong.body.contains("The code you entered is not valid."))
            let acs = try await SuiteFixture.completeLogin(browser, from: wrong, user: user)
            let final = try await browser.follow(acs)
            #expect(final.status == 200)
            #expect(SuiteFixture.spVerdict(suite).accepted == "alice@example.org")
        }
    }

    @Test func rejectingConsentSendsRequestDenied() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let acs = try await SuiteFixture.completeLogin(browser, from: start, user: SuiteFixture.user(suite), consent: false)
            #expect(acs.status == 403)
            #expect(SuiteFixture.spVerdict(suite).rejected == "status.not-success")
            #expect(suite.log.entries.contains { $0.annotations["idp.consent"] == "rejected" })
        }
    }

    @Test func simpleSAMLphpPersonalityUsesItsPathsAndCookies() async throws {
        try await SuiteFixture.with("simplesamlphp") { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            #expect(start.location?.contains("/simplesaml/saml2/idp/SSOService.php?SAMLRequest=") == true)
            let toLogin = try await browser.get(start.location!)
            #expect(toLogin.location?.hasPrefix("/simplesaml/module.php/core/loginuserpass.php?AuthState=") == true)
            #expect(browser.cookie("SimpleSAMLSessionID") != nil)
            let final = try await browser.follow(try await SuiteFixture.completeLogin(browser, from: toLogin, user: SuiteFixture.user(suite, "carol")))
            #expect(final.status == 200)
            #expect(browser.cookie("SimpleSAMLAuthToken") != nil)
            #expect(final.body.contains("carol@example.org"))
        }
    }

    @Test func idpInitiatedSSOLandsOnTheTarget() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let info = suite.readyInfo()
            let user = SuiteFixture.user(suite)
            let url = info.idp.unsolicited + "?providerId=" + PercentEncoding.queryComponentEncode(info.sp.entityID)
                + "&target=" + PercentEncoding.queryComponentEncode("/secure/deep")
            let answer = try await browser.get(url, headers: [("Authorization", BasicCredentials(username: user.username, password: user.password).headerValue)])
            let response = try #require(answer.forms.first?.value("SAMLResponse"))
            #expect(!String(decoding: try PostBinding.decode(response).xml, as: UTF8.self).contains("InResponseTo"))
            let final = try await browser.follow(try await browser.submit(answer))
            #expect(final.url == info.sp.base + "/secure/deep")
            #expect(final.status == 200)
        }
    }

    @Test func logoutEndsBothSessionsThroughSLO() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            _ = try await SuiteFixture.webSSO(suite, browser)
            let info = suite.readyInfo()
            let logout = try await browser.get(info.sp.logout + "?return=/Shibboleth.sso/Session")
            #expect(logout.location?.hasPrefix(info.idp.slo + "?SAMLRequest=") == true)
            let back = try await browser.get(logout.location!)
            #expect(back.location?.contains("/Shibboleth.sso/SLO/Redirect?SAMLResponse=") == true)
            let session = try await browser.follow(back)
            #expect(session.body.contains("A valid session was not found."))
            #expect(browser.cookie("_idp_session") == nil)
            let again = try await browser.get(info.sp.secure)
            #expect(again.status == 302)
        }
    }

    @Test func bothMetadataDocumentsParseAndNameTheEndpoints() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let idp = try LoadedProfile.parseMetadata(Array(try await browser.get(info.idp.metadata).body.utf8), source: "idp")[0]
            #expect(idp.entityID == info.idp.entityID)
            #expect(idp.idpSSODescriptor?.singleSignOnService(binding: SAMLBindingURI.soap)?.location == info.idp.ecp)
            let sp = try LoadedProfile.parseMetadata(Array(try await browser.get(info.sp.metadata).body.utf8), source: "sp")[0]
            #expect(sp.entityID == info.sp.entityID)
            #expect(sp.spSSODescriptor?.assertionConsumerServices.map(\.location).contains(info.sp.ecpACS) == true)
        }
    }
}
