import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Fulfilment chains (`cm-fulfill=redirect|reverify`), AD FS as the second IdP, and an
/// external client (Python requests) doing the whole SimplyE flow.
@Suite(.serialized)
struct CirculationManagerFulfilmentTests {
    typealias CM = CirculationManagerFixture

    /// Logs in, borrows work 1 and starts its fulfil; returns the first answer (a redirect).
    func borrowAndFulfil(_ suite: MockSuite, _ browser: TestBrowser) async throws -> (CM.Login, TestBrowser.Page) {
        let login = try await CM.login(suite, browser)
        let cmBase = suite.environment.baseURL(of: "cm")
        #expect(try await browser.send("PUT", cmBase + "/works/1/borrow", headers: CM.bearer(login.token), body: nil).status == 201)
        let first = try await browser.get(cmBase + "/works/1/fulfill/1", headers: CM.bearer(login.token))
        #expect(first.status == 302)
        return (login, first)
    }

    @Test func theRedirectChainDeliversTheBookWithTheStoredCookies() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.fulfil(.redirect))]) { suite, browser in
            let (_, first) = try await borrowAndFulfil(suite, browser)
            let cmBase = suite.environment.baseURL(of: "cm")
            let hop = try await browser.get(browser.resolve(try #require(first.location), against: first.url))
            #expect(hop.status == 302)
            let download = browser.resolve(try #require(hop.location), against: hop.url)
            #expect(download.hasPrefix(cmBase + "/delivery/") && download.hasSuffix("/download"))
            // No Authorization header on the chain, as a web view follows it: the cookies carry it.
            let book = try await CM.raw(browser, download)
            #expect(book.status == 200)
            #expect(book.headers.first(name: "Content-Type") == "application/epub+zip")
            #expect(CM.sha256(book.body) == CirculationManager.bookSHA256("1"))
        }
    }

    @Test(arguments: ["session", "cm_loan_1", "cm_delivery"])
    func theRedirectChainRefusesAClientThatDroppedACookie(dropped: String) async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.fulfil(.redirect))]) { suite, browser in
            let (_, first) = try await borrowAndFulfil(suite, browser)
            let hop = try await browser.get(browser.resolve(try #require(first.location), against: first.url))
            let download = browser.resolve(try #require(hop.location), against: hop.url)
            let kept = browser.cookies.filter { $0.name != dropped }
            let header = kept.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
            browser.forgetCookies()
            let page = try await browser.get(download, headers: [("Cookie", header)])
            #expect(page.status == 400)
            #expect(CM.json(page.body)["type"] as? String == "http://librarysimplified.org/terms/problem/cannot-fulfill-loan")
            let expected = ["session": "cookie.session-missing", "cm_loan_1": "cookie.loan-missing", "cm_delivery": "cookie.delivery-missing"][dropped]
            #expect(CM.lastEntry(suite, path: URL(string: download)!.path)?.annotations["cm.problem"] == expected)
        }
    }

    @Test func subsequentVerificationAsksForThePasswordAgainBeforeTheBook() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.fulfil(.reverify))]) { suite, browser in
            let (_, first) = try await borrowAndFulfil(suite, browser)
            let hop = try await browser.get(browser.resolve(try #require(first.location), against: first.url))
            let toIdP = try #require(hop.location)
            #expect(toIdP.hasPrefix(suite.environment.baseURL(of: "idp")))
            let request = try RedirectBinding.decode(String(toIdP.split(separator: "?", maxSplits: 1)[1]))
            #expect(String(decoding: request.xml, as: UTF8.self).contains("ForceAuthn=\"true\""))
            // The IdP session exists, yet ForceAuthn makes it show the password form again.
            let loginPage = try await browser.follow(hop)
            #expect(loginPage.forms.first?.fields.contains { $0.type == "password" } == true)
            let answer = try await SuiteFixture.completeLogin(browser, from: loginPage, user: SuiteFixture.user(suite))
            #expect(answer.status == 302)
            #expect(CM.lastEntry(suite, path: CirculationManager.Path.samlCallback)?.annotations["cm.reverified"] == "alice@example.org")
            let download = browser.resolve(try #require(answer.location), against: answer.url)
            let book = try await CM.raw(browser, download)
            #expect(book.status == 200)
            #expect(CM.sha256(book.body) == CirculationManager.bookSHA256("1"))
        }
    }

    @Test func subsequentVerificationByAnotherUserIsRefused() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.fulfil(.reverify))]) { suite, browser in
            let (_, first) = try await borrowAndFulfil(suite, browser)
            let hop = try await browser.get(browser.resolve(try #require(first.location), against: first.url))
            let answer = try await SuiteFixture.completeLogin(browser, from: hop, user: SuiteFixture.user(suite, "bob"))
            #expect(answer.status == 400)
            #expect(CM.lastEntry(suite, path: CirculationManager.Path.samlCallback)?.annotations["cm.problem"] == "fulfil.other-patron")
        }
    }

    /// Through the second IdP of the document: the mock AD FS's SAML-P endpoint. Passes once
    /// AD FS answers AuthnRequests at `/adfs/ls/` with a signed Response to the ACS.
    @Test func loginThroughADFS() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let start = try await browser.get(try await CM.startURL(suite, browser, idpIndex: 1))
            let adfs = ADFSServer(environment: suite.environment)
            #expect(start.location?.hasPrefix(suite.environment.baseURL(of: "adfs") + ADFSServer.Path.ls) == true)
            var page = try await browser.follow(start)
            let user = SuiteFixture.user(suite)
            for _ in 0..<6 where page.forms.first?.value("SAMLResponse") == nil {
                guard let form = page.forms.first, form.fields.contains(where: { $0.type == "password" }) else { break }
                var values: [String: String] = [:]
                for field in form.fields where field.type == "password" { values[field.name] = user.password }
                for field in form.fields where ["text", "email"].contains(field.type) { values[field.name] = user.username }
                page = try await browser.follow(try await browser.submit(page, values: values))
            }
            let answer = try await browser.submit(page)
            let login = try CM.token(from: answer)
            #expect(!login.token.isEmpty)
            #expect(CM.lastEntry(suite, path: CirculationManager.Path.samlCallback)?.annotations["cm.idp"] == adfs.entityID)
        }
    }

    @Test(.enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
    func aScriptedClientLogsInBorrowsSurvivesExpiryAndGetsTheBook() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.expireAfterBorrow), .cm(.fulfil(.redirect))]) { suite, _ in
            let info = suite.readyInfo()
            let user = SuiteFixture.user(suite)
            let outcome = try await ClientProcess.run(ClientProcess.venvPython, [
                ClientProcess.script("opds_saml_client.py"), "--auth-document", info.cm.authenticationDocument,
                "--catalog", info.cm.catalog, "--username", user.username, "--password", user.password,
            ])
            #expect(outcome.status == 0, "\(outcome.stdout.suffix(1500))\(outcome.stderr.suffix(800))")
            let result = CM.json(outcome.stdout)
            #expect(result["sha256"] as? String == CirculationManager.bookSHA256("1"), "the exact book bytes")
            #expect(result["content_type"] as? String == "application/epub+zip")
            #expect(result["epub_valid"] as? Bool == true, "Python's zipfile reads the EPUB")
            #expect(result["logins"] as? Int == 2)
            #expect(result["relogins"] as? Int == 1, "credentials-invalid made it log in again once")
            let entries = suite.log.entries.filter { $0.mock == "cm" }
            #expect(entries.filter { $0.annotations["cm.accepted"] == "alice@example.org" }.count == 2)
            #expect(entries.contains { $0.annotations["cm.token-revoked"] != nil })
            let refused = try #require(entries.first { $0.annotations["cm.token-rejected"] == "token.revoked" })
            #expect(refused.request.path == "/works/1/fulfill/1", "the fulfil after the borrow was refused")
            #expect(entries.last { $0.annotations["cm.fulfilled"] != nil }?.annotations["cm.sha256"] == CirculationManager.bookSHA256("1"))
        }
    }
}
