import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// The browser side of CAS: `/cas/login` (form, TGC, SSO, renew, gateway), `/cas/logout`, and
/// the CAS-protected application at `/app/`.
@Suite struct CASBrowserTests {
    /// From the application to the login form, through it, back to the application's page.
    static func logIn(_ suite: MockSuite, _ browser: TestBrowser, user: String = "alice") async throws -> TestBrowser.Page {
        let info = suite.readyInfo().cas
        let start = try await browser.get(info.service)
        #expect(start.status == 302)
        #expect(start.location == info.login + "?service=" + CASFixture.enc(info.service))
        let form = try await browser.follow(start)
        #expect(form.status == 200)
        let fields = try #require(form.forms.first)
        #expect(fields.value("execution")?.isEmpty == false)
        #expect(fields.value("lt")?.hasPrefix("LT-") == true)
        #expect(fields.value("_eventId") == "submit")
        let account = SuiteFixture.user(suite, user)
        return try await browser.submit(form, values: ["username": account.username, "password": account.password])
    }

    @Test func theApplicationSendsTheUserThroughCASAndShowsItsSecret() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let posted = try await Self.logIn(suite, browser)
            #expect(posted.status == 302)
            let back = try #require(posted.location)
            #expect(back.hasPrefix(info.service + "?ticket=ST-"))
            #expect(browser.cookie("TGC")?.hasPrefix("TGT-") == true)
            let landing = try await browser.get(back)
            #expect(landing.status == 302)
            #expect(landing.location == info.service, "the application drops the ticket from its URL")
            let page = try await browser.follow(landing)
            #expect(page.status == 200)
            let accepted = try #require(suite.log.entries.last { $0.annotations["cas.app.accepted"] != nil })
            #expect(accepted.annotations["cas.app.accepted"] == "alice")
            #expect(accepted.annotations["cas.validate"] == "success")
            let secret = try #require(accepted.annotations["cas.app.secret"])
            #expect(secret.hasPrefix("SECRET-"))
            #expect(page.body.contains(secret))
            #expect(page.body.contains("<strong id=\"user\">alice</strong>"))
            #expect(suite.log.entries.contains { $0.request.path == "/cas/login" && $0.annotations["cas.login"] == "ok" })
        }
    }

    @Test func aWrongPasswordShowsTheFormAgainWith401() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let form = try await browser.follow(try await browser.get(suite.readyInfo().cas.service))
            let again = try await browser.submit(form, values: ["username": "alice", "password": "wrong"])
            #expect(again.status == 401)
            #expect(again.body.contains("Authentication attempt has failed, likely due to invalid credentials. Please verify and try again."))
            #expect(again.forms.first?.value("execution") != form.forms.first?.value("execution"))
            #expect(browser.cookie("TGC") == nil)
            // Replaying the first form: its execution was used up.
            let replay = try await browser.submit(form, values: ["username": "alice", "password": SuiteFixture.user(suite).password])
            #expect(replay.status == 200)
            #expect(suite.log.entries.last?.annotations["cas.login"] == "stale-execution")
        }
    }

    @Test func singleSignOnRenewAndGateway() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let other = info.base + "/other/?x=1"
            // gateway=true without a TGC: back to the service, no ticket.
            let gateway = try await browser.get(info.login + "?gateway=true&service=" + CASFixture.enc(other))
            #expect(gateway.status == 302)
            #expect(gateway.location == other)
            _ = try await Self.logIn(suite, browser)
            // With the TGC: straight back with a ticket, `&` since the service has a query.
            let sso = try await browser.get(info.login + "?service=" + CASFixture.enc(other))
            #expect(sso.status == 302)
            let ssoTicket = try #require(sso.location.flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "ticket" }?.value })
            #expect(sso.location == other + "&ticket=" + ssoTicket)
            #expect(suite.log.entries.last?.annotations["cas.login"] == "sso")
            // renew=true at validation: an SSO ticket is not from a new login.
            let renewed = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ssoTicket, service: other, extra: "&renew=true"))
            #expect(renewed.failureCode == "INVALID_TICKET")
            #expect(suite.log.entries.last?.annotations["cas.failure"] == "renew-not-satisfied")
            // renew=true at login: the form again, despite the TGC.
            let form = try await browser.get(info.login + "?renew=true&service=" + CASFixture.enc(other))
            #expect(form.status == 200)
            #expect(form.forms.first?.value("execution") != nil)
            let fresh = try await browser.submit(form, values: ["username": "alice", "password": SuiteFixture.user(suite).password])
            let freshTicket = try #require(fresh.location.flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "ticket" }?.value })
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.p3ServiceValidate, ticket: freshTicket, service: other, extra: "&renew=true"))
            #expect(answer.user == "alice")
            #expect(answer.values("isFromNewLogin") == ["true"])
        }
    }

    @Test func logoutEndsSingleSignOnAndFollowsTheService() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            _ = try await Self.logIn(suite, browser)
            let tgt = try #require(browser.cookie("TGC"))
            let out = try await browser.get(info.logout + "?service=" + CASFixture.enc(info.service))
            #expect(out.status == 302)
            #expect(out.location == info.service)
            #expect(out.headers.contains { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("TGC=;") && $0.1.contains("Max-Age=0") })
            #expect(browser.cookie("TGC") == nil)
            // The TGT is gone at the REST resource too.
            #expect(try await browser.get(info.tickets + "/" + tgt).status == 404)
            let login = try await browser.get(info.login + "?service=" + CASFixture.enc(info.service))
            #expect(login.status == 200, "no SSO after logout: the form")
            let page = try await browser.get(info.logout + "?url=" + CASFixture.enc(info.service))
            #expect(page.status == 200)
            #expect(page.body.contains("Logout successful"))
            #expect(page.body.contains("href=\"\(info.service)\""))
        }
    }

    @Test func aServiceWithCRLFIsRefusedAndNeverEchoedIntoLocation() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let evil = "http://127.0.0.1/app/\r\nSet-Cookie: x=1"
            let page = try await browser.get(info.login + "?gateway=true&service=" + CASFixture.enc(evil))
            #expect(page.status == 403)
            #expect(page.location == nil)
            #expect(page.body.contains("Application Not Authorized to Use CAS"))
            #expect(!page.headers.contains { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("x=") })
        }
    }

    @Test func theApplicationRejectsATicketBoundToARewrittenService() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceRewrite(.trailingSlash))]) { suite, browser in
            let info = suite.readyInfo().cas
            let posted = try await Self.logIn(suite, browser)
            let landing = try await browser.get(try #require(posted.location))
            #expect(landing.status == 403)
            #expect(landing.body.contains("INVALID_SERVICE"))
            let entry = try #require(suite.log.entries.last { $0.annotations["cas.app.rejected"] != nil })
            #expect(entry.annotations["cas.app.rejected"] == "INVALID_SERVICE")
            #expect(entry.annotations["cas.app.secret"] == nil)
            let bound = String(info.service.dropLast())
            #expect(landing.body.contains("The original service was &#39;\(bound)&#39;") || landing.body.contains("The original service was '\(bound)'"))
        }
    }

    @Test func theError500KnobBreaksTheLoginPage() async throws {
        try await SuiteFixture.with("cas", knobs: [.error500]) { suite, browser in
            let page = try await browser.get(suite.readyInfo().cas.login)
            #expect(page.status == 500)
        }
    }
}
