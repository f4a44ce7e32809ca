import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// The mock OPDS circulation manager: its documents, the SAML login, borrow and fulfil.
@Suite(.serialized)
struct CirculationManagerTests {
    typealias CM = CirculationManagerFixture

    @Test func theAuthenticationDocumentListsBothIdPsAsTheRealOneDoes() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let page = try await browser.get(suite.readyInfo().cm.authenticationDocument)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
            let document = CM.json(page.body)
            let flows = try #require(document["authentication"] as? [[String: Any]])
            #expect(flows.count == 1)
            #expect(flows[0]["type"] as? String == "http://librarysimplified.org/authtype/SAML-2.0")
            #expect(flows[0]["description"] as? String == "SAML 2.0 Web SSO")
            let links = try #require(flows[0]["links"] as? [[String: Any]])
            #expect(links.count == 2)
            let cmBase = suite.environment.baseURL(of: "cm")
            let idp = PercentEncoding.formEncode(suite.environment.idpEntityID)
            let adfs = PercentEncoding.formEncode(ADFSServer(environment: suite.environment).entityID)
            #expect(links[0]["href"] as? String == "\(cmBase)/SAML/saml_authenticate?idp_entity_id=\(idp)&provider=SAML+2.0+Web+SSO")
            #expect(links[1]["href"] as? String == "\(cmBase)/SAML/saml_authenticate?idp_entity_id=\(adfs)&provider=SAML+2.0+Web+SSO")
            for link in links {
                #expect(link["rel"] as? String == "authenticate")
                for key in ["display_names", "descriptions", "logo_urls"] {
                    let values = try #require(link[key] as? [[String: String]], "\(key)")
                    #expect(values.first?["language"] == "en" && !(values.first?["value"] ?? "").isEmpty, "\(key)")
                }
                #expect(link["information_urls"] as? [Any] != nil && link["privacy_statement_urls"] as? [Any] != nil)
            }
            let documentLinks = try #require(document["links"] as? [[String: String]])
            #expect(documentLinks.contains { $0["rel"] == "start" && $0["href"] == cmBase + "/" })
            #expect(documentLinks.contains { $0["rel"] == "http://opds-spec.org/shelf" && $0["href"] == cmBase + "/loans" })
        }
    }

    @Test func theCatalogIsAnOPDSFeedWithBorrowLinksAndPublishedHashes() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let page = try await browser.get(suite.readyInfo().cm.catalog)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "application/atom+xml;profile=opds-catalog;kind=acquisition")
            let feed = try XMLDocument(parsing: Array(page.body.utf8)).root
            let atom = "http://www.w3.org/2005/Atom"
            #expect(feed.is("feed", atom))
            let entries = feed.children.filter { $0.is("entry", atom) }
            #expect(entries.count == CirculationManager.workIDs.count)
            let cmBase = suite.environment.baseURL(of: "cm")
            for (entry, id) in zip(entries, CirculationManager.workIDs) {
                let borrow = try #require(entry.children.first { $0.is("link", atom) && $0.attribute("rel") == "http://opds-spec.org/acquisition/borrow" })
                #expect(borrow.attribute("href") == "\(cmBase)/works/\(id)/borrow")
                #expect(borrow.attribute("type") == "application/atom+xml;type=entry;profile=opds-catalog")
                let indirect = try #require(borrow.children.first { $0.is("indirectAcquisition", "http://opds-spec.org/2010/catalog") })
                #expect(["application/epub+zip", "application/pdf"].contains(indirect.attribute("type") ?? ""))
                let hash = entry.children.first { $0.is("sha256", CirculationManager.harnessNamespace) }?.text
                #expect(hash == CirculationManager.bookSHA256(id))
            }
        }
    }

    @Test func samlLoginRedirectsToRedirectURIWithAVerifiableToken() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let start = try await browser.get(try await CM.startURL(suite, browser, redirectURI: "https://app.example/login?x=1"))
            #expect(start.status == 302)
            let location = try #require(start.location)
            #expect(location.hasPrefix(suite.environment.baseURL(of: "idp") + "/idp/profile/SAML2/Redirect/SSO?SAMLRequest="))
            let relay = try #require(QueryParameter.parse(String(location.split(separator: "?")[1])).first(named: "RelayState")?.value)
            // The real controller's RelayState: redirect_uri plus the three parameters it needs back.
            #expect(relay.hasPrefix("https://app.example/login?x=1&library_short_name=default&provider=SAML+2.0+Web+SSO&idp_entity_id="))
            let answer = try await SuiteFixture.completeLogin(browser, from: start, user: SuiteFixture.user(suite))
            #expect(answer.status == 302)
            let final = try #require(answer.location)
            #expect(final.hasPrefix("https://app.example/login?x=1&access_token="))
            #expect(final.hasSuffix("&patron_info=%7B%7D"), "patron_info is {} for SAML patrons, as the real one sends")
            #expect(!final.contains("library_short_name"))
            #expect(browser.cookie("session") != nil, "the circulation manager set its session cookie")
            let token = try #require(QueryParameter.parse(String(final.split(separator: "?")[1])).first(named: "access_token")?.value)
            let parts = token.split(separator: ".")
            #expect(parts.count == 3)
            let header = String(decoding: Data(base64Encoded: String(parts[0]) + "=")!, as: UTF8.self)
            #expect(header.contains("\"alg\":\"HS256\""))
            let entry = try #require(CM.lastEntry(suite, path: CirculationManager.Path.samlCallback))
            #expect(entry.annotations["cm.accepted"] == "alice@example.org", "eduPersonPrincipalName picked as the patron id")
            // The token opens the shelf.
            let loans = try await browser.get(suite.readyInfo().cm.loans, headers: CM.bearer(token))
            #expect(loans.status == 200)
            #expect(loans.header("Content-Type") == "application/atom+xml;profile=opds-catalog;kind=acquisition")
        }
    }

    @Test(arguments: ["PUT", "GET"])
    func borrowAnswersTheLoanEntryAndTheShelfListsIt(method: String) async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let login = try await CM.login(suite, browser)
            let cmBase = suite.environment.baseURL(of: "cm")
            let borrowURL = cmBase + CirculationManager.Path.borrow("1")
            let first = try await browser.send(method, borrowURL, headers: CM.bearer(login.token), body: nil)
            #expect(first.status == 201)
            #expect(first.header("Content-Type") == "application/atom+xml;type=entry;profile=opds-catalog")
            let entry = try XMLDocument(parsing: Array(first.body.utf8)).root
            let atom = "http://www.w3.org/2005/Atom"
            let fulfil = try #require(entry.children.first { $0.is("link", atom) && $0.attribute("rel") == "http://opds-spec.org/acquisition" })
            #expect(fulfil.attribute("href") == cmBase + CirculationManager.Path.fulfill("1", mechanism: "1"))
            #expect(fulfil.attribute("type") == "application/epub+zip")
            let availability = try #require(fulfil.children.first { $0.is("availability", "http://opds-spec.org/2010/catalog") })
            #expect(availability.attribute("status") == "available")
            #expect(browser.cookie(CirculationManager.loanCookie("1")) != nil)
            let again = try await browser.send(method, borrowURL, headers: CM.bearer(login.token), body: nil)
            #expect(again.status == 200, "a second borrow answers the existing loan")
            let shelf = try await browser.get(cmBase + "/loans", headers: CM.bearer(login.token))
            #expect(shelf.body.contains(cmBase + "/works/1/fulfill/1"))
            #expect(!shelf.body.contains(cmBase + "/works/2/fulfill/2"))
        }
    }

    @Test(arguments: ["1", "2"])
    func directFulfilAnswersTheBookBytes(workID: String) async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let login = try await CM.login(suite, browser)
            let cmBase = suite.environment.baseURL(of: "cm")
            let mechanism = workID == "1" ? "1" : "2"
            _ = try await browser.send("PUT", cmBase + CirculationManager.Path.borrow(workID), headers: CM.bearer(login.token), body: nil)
            let book = try await CM.raw(browser, cmBase + CirculationManager.Path.fulfill(workID, mechanism: mechanism),
                                        headers: CM.bearer(login.token))
            #expect(book.status == 200)
            let contentType = book.headers.first(name: "Content-Type")
            #expect(contentType == (workID == "1" ? "application/epub+zip" : "application/pdf"))
            #expect(CM.sha256(book.body) == CirculationManager.bookSHA256(workID))
            if workID == "1" {
                // EPUB OCF: a ZIP whose first entry is `mimetype`, stored.
                #expect(Array(book.body.prefix(4)) == [0x50, 0x4b, 0x03, 0x04])
                #expect(String(decoding: book.body[30..<58], as: UTF8.self) == "mimetypeapplication/epub+zip")
            } else {
                #expect(String(decoding: book.body.prefix(8), as: UTF8.self) == "%PDF-1.4")
                #expect(String(decoding: book.body.suffix(6), as: UTF8.self) == "%%EOF\n")
                // ISO 32000-1 §7.5.4/§7.5.5: startxref points at `xref`, each entry at its object.
                let text = String(decoding: book.body, as: UTF8.self)
                let lines = text.components(separatedBy: "\n")
                let start = try #require(lines.firstIndex(of: "startxref").map { Int(lines[$0 + 1]) } ?? nil)
                #expect(String(decoding: book.body[start..<(start + 4)], as: UTF8.self) == "xref")
                let table = try #require(lines.firstIndex(of: "xref"))
                for object in 1...6 {
                    let offset = try #require(Int(lines[table + 2 + object].prefix(10)))
                    #expect(String(decoding: book.body[offset...].prefix(7), as: UTF8.self) == "\(object) 0 obj")
                }
            }
            let entry = try #require(suite.log.entries.last { $0.mock == "cm" && $0.annotations["cm.fulfilled"] != nil })
            #expect(entry.annotations["cm.sha256"] == CirculationManager.bookSHA256(workID))
        }
    }

    /// Golden hashes: the files depend on nothing but the book's fields (no time, no
    /// randomness), so these never change unless the book generator does.
    @Test func theBooksAreTheSameBytesOnEveryRun() {
        #expect(CirculationManager.bookSHA256("1") == "3c8710e9ae73bcea7fcd3ad7f156b4f946a75e26e7194dbaab20331ae5083e70")
        #expect(CirculationManager.bookSHA256("2") == "6208ddd7275b4730ad74ab42d1d0416c8b9f5d525872e0bfeabcfa5d7931cbbe")
        #expect(CirculationManager.bookSHA256("3") == "0716d83eb281ae58d6ec911d3c2e51ea3dba9c800b3f2ebda6162d6733b7189d")
        #expect(CirculationManager.bookSHA256("999") == nil)
    }

    @Test func theMetadataNamesTheCallbackAsACS() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let page = try await browser.get(suite.environment.baseURL(of: "cm") + CirculationManager.Path.metadata)
            #expect(page.status == 200)
            #expect(page.body.contains("entityID=\"\(CirculationManager.entityID(environment: suite.environment))\""))
            #expect(page.body.contains(suite.readyInfo().cm.acs))
        }
    }
}
