import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// What the mock circulation manager refuses, and how it says so.
@Suite(.serialized)
struct CirculationManagerRefusalTests {
    typealias CM = CirculationManagerFixture

    func expectCredentialsInvalid(_ page: TestBrowser.Page, mediaType: String = "application/api-problem+json",
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(page.status == 401, sourceLocation: sourceLocation)
        #expect(page.header("Content-Type") == mediaType, sourceLocation: sourceLocation)
        #expect(page.header("WWW-Authenticate") == nil, "the real one sends none without a Basic provider", sourceLocation: sourceLocation)
        let problem = CM.json(page.body)
        #expect(problem["type"] as? String == CM.credentialsInvalid, sourceLocation: sourceLocation)
        #expect(problem["title"] as? String == "Invalid credentials", sourceLocation: sourceLocation)
        #expect(problem["status"] as? Int == 401, sourceLocation: sourceLocation)
        #expect(problem["detail"] as? String == "A valid library card barcode number and PIN are required.", sourceLocation: sourceLocation)
    }

    @Test func anExpiredTokenGetsCredentialsInvalidAndALoginAgainRedoesTheAction() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.tokenLifetime(60))]) { suite, browser in
            let login = try await CM.login(suite, browser)
            let cmBase = suite.environment.baseURL(of: "cm")
            let borrowURL = cmBase + CirculationManager.Path.borrow("1")
            #expect(try await browser.send("PUT", borrowURL, headers: CM.bearer(login.token), body: nil).status == 201)
            suite.environment.advanceClock(by: 61)
            let fulfilURL = cmBase + CirculationManager.Path.fulfill("1", mechanism: "1")
            expectCredentialsInvalid(try await browser.get(fulfilURL, headers: CM.bearer(login.token)))
            #expect(CM.lastEntry(suite, path: "/works/1/fulfill/1")?.annotations["cm.token-rejected"] == "token.expired")
            // The client logs in again (the IdP session is reused) and redoes the fulfil.
            let again = try await CM.login(suite, browser)
            #expect(again.token != login.token)
            let book = try await CM.raw(browser, fulfilURL, headers: CM.bearer(again.token))
            #expect(book.status == 200)
            #expect(CM.sha256(book.body) == CirculationManager.bookSHA256("1"))
        }
    }

    @Test func theProblemTypeKnobSwitchesToRFC7807() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.problemType(.problem))]) { suite, browser in
            let login = try await CM.login(suite, browser)
            suite.environment.advanceClock(by: 3601)
            let page = try await browser.get(suite.readyInfo().cm.loans, headers: CM.bearer(login.token))
            expectCredentialsInvalid(page, mediaType: "application/problem+json")
        }
    }

    @Test func theTokenRevokedAfterTheFirstBorrowFailsTheFulfil() async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [.cm(.expireAfterBorrow)]) { suite, browser in
            let login = try await CM.login(suite, browser)
            let cmBase = suite.environment.baseURL(of: "cm")
            #expect(try await browser.send("PUT", cmBase + "/works/3/borrow", headers: CM.bearer(login.token), body: nil).status == 201)
            expectCredentialsInvalid(try await browser.get(cmBase + "/works/3/fulfill/1", headers: CM.bearer(login.token)))
            #expect(CM.lastEntry(suite, path: "/works/3/fulfill/1")?.annotations["cm.token-rejected"] == "token.revoked")
            let again = try await CM.login(suite, browser)
            _ = try await browser.send("PUT", cmBase + "/works/3/borrow", headers: CM.bearer(again.token), body: nil)
            let book = try await CM.raw(browser, cmBase + "/works/3/fulfill/1", headers: CM.bearer(again.token))
            #expect(book.status == 200, "only the first borrow's token is revoked")
        }
    }

    @Test(arguments: ["tampered", "garbage", "alg-none"])
    func anInvalidTokenGetsCredentialsInvalid(kind: String) async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let login = try await CM.login(suite, browser)
            let parts = login.token.split(separator: ".").map(String.init)
            let token: String
            switch kind {
            case "tampered":
                // Another credential id in the payload, the signature left as it was.
                let payload = String(decoding: Data(base64Encoded: Self.padded(parts[1]))!, as: UTF8.self)
                    .replacingOccurrences(of: "\"token\":\"cred-", with: "\"token\":\"cred-x")
                token = parts[0] + "." + Self.base64URL(payload) + "." + parts[2]
            case "alg-none":
                token = Self.base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + parts[1] + "."
            default:
                token = "not-a-jwt"
            }
            expectCredentialsInvalid(try await browser.get(suite.readyInfo().cm.loans, headers: CM.bearer(token)))
            let expected = ["tampered": "token.signature", "garbage": "token.malformed", "alg-none": "token.algorithm"][kind]
            #expect(CM.lastEntry(suite, path: "/loans")?.annotations["cm.token-rejected"] == expected)
        }
    }

    @Test func aMissingTokenGets401WithTheAuthenticationDocument() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let page = try await browser.send("PUT", suite.environment.baseURL(of: "cm") + "/works/1/borrow", headers: [], body: nil)
            #expect(page.status == 401)
            #expect(page.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
            #expect(page.header("Link") == "<\(suite.readyInfo().cm.authenticationDocument)>; rel=http://opds-spec.org/auth/document")
            #expect(page.header("WWW-Authenticate") == nil)
            #expect(page.body.contains("http://librarysimplified.org/authtype/SAML-2.0"))
        }
    }

    @Test func anUnknownWorkOrMechanismOrLoanIsAProblem() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let login = try await CM.login(suite, browser)
            let cmBase = suite.environment.baseURL(of: "cm")
            let unknown = try await browser.send("PUT", cmBase + "/works/999/borrow", headers: CM.bearer(login.token), body: nil)
            #expect(unknown.status == 403)
            #expect(CM.json(unknown.body)["type"] as? String == "http://librarysimplified.org/terms/problem/no-licenses")
            let noLoan = try await browser.get(cmBase + "/works/2/fulfill/2", headers: CM.bearer(login.token))
            #expect(noLoan.status == 400)
            #expect(CM.json(noLoan.body)["type"] as? String == "http://librarysimplified.org/terms/problem/no-active-loan")
            let badMechanism = try await browser.get(cmBase + "/works/2/fulfill/1", headers: CM.bearer(login.token))
            #expect(CM.json(badMechanism.body)["type"] as? String == "http://librarysimplified.org/terms/problem/bad-delivery-mechanism")
        }
    }

    @Test func anUnknownIdPOrMissingParameterIsASAMLInvalidRequest() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let base = suite.environment.baseURL(of: "cm") + CirculationManager.Path.samlAuthenticate
            let wrong = try await browser.get(base + "?idp_entity_id=https%3A%2F%2Fevil.example%2Fidp&provider=SAML+2.0+Web+SSO&redirect_uri=app%3A%2F%2Fx")
            #expect(wrong.status == 401)
            #expect(CM.json(wrong.body)["type"] as? String == "http://librarysimplified.org/terms/problem/saml/invalid-saml-request")
            #expect(CM.lastEntry(suite, path: CirculationManager.Path.samlAuthenticate)?.annotations["cm.problem"] == "saml.unknown-idp")
            let missing = try await browser.get(base + "?provider=SAML+2.0+Web+SSO&redirect_uri=app%3A%2F%2Fx")
            #expect(CM.json(missing.body)["detail"] as? String == "Required parameter idp_entity_id is missing")
        }
    }

    @Test(arguments: ["javascript:alert(1)", "https://app.example/\r\nSet-Cookie: a=b", "/relative", "data:text/html,x"])
    func aDangerousRedirectURIIsRefused(uri: String) async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let start = try await CM.startURL(suite, browser, redirectURI: uri)
            let page = try await browser.get(start)
            #expect(page.status == 401)
            #expect(page.location == nil)
            #expect(CM.lastEntry(suite, path: CirculationManager.Path.samlAuthenticate)?.annotations["cm.problem"]?.hasPrefix("redirect-uri.") == true)
        }
    }

    @Test(arguments: [Knob.responseUnsigned, .wrongSigningKey, .wrongIssuer, .wrongAudience, .expired])
    func aBadResponseGoesBackToRedirectURIWithAnError(knob: Knob) async throws {
        try await SuiteFixture.with("circulation-manager", knobs: [knob]) { suite, browser in
            let start = try await browser.get(try await CM.startURL(suite, browser))
            let answer = try await SuiteFixture.completeLogin(browser, from: start, user: SuiteFixture.user(suite))
            #expect(answer.status == 302)
            let location = try #require(answer.location)
            #expect(location.hasPrefix(CM.redirectURI + "?error="))
            #expect(!location.contains("access_token"))
            let error = try #require(QueryParameter.parse(String(location.split(separator: "?")[1])).first(named: "error")?.value)
            #expect(CM.json(error)["type"] as? String == "http://librarysimplified.org/terms/problem/saml/invalid-saml-response")
            let rejected = CM.lastEntry(suite, path: CirculationManager.Path.samlCallback)?.annotations["cm.rejected"]
            #expect(rejected == knob.expectedSPReason, "\(knob)")
        }
    }

    @Test func aTamperedResponseIsRefusedAndAReplayedOneToo() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, browser in
            let start = try await browser.get(try await CM.startURL(suite, browser))
            var page = try await browser.follow(start)
            while page.forms.first?.value("SAMLResponse") == nil {
                page = try await browser.follow(try await browser.submit(page, values: [
                    "j_username": "alice", "j_password": SuiteFixture.user(suite).password,
                    "_shib_idp_consentOptions": "_shib_idp_rememberConsent",
                ], button: ("_eventId_proceed", "")))
            }
            let form = try #require(page.forms.first)
            let original = try SAMLBase64.decode(try #require(form.value("SAMLResponse")))
            let tampered = String(decoding: original, as: UTF8.self).replacingOccurrences(of: "alice@example.org", with: "carol@example.org")
            let acs = browser.resolve(form.action ?? "", against: page.url)
            let body = QueryParameter.formEncoded([("SAMLResponse", SAMLBase64.encode(Array(tampered.utf8))),
                                                   ("RelayState", form.value("RelayState") ?? "")])
            let refused = try await browser.post(acs, form: body)
            #expect(refused.location?.contains("access_token") == false)
            #expect(CM.lastEntry(suite, path: CirculationManager.Path.samlCallback)?.annotations["cm.rejected"] == "signature.invalid")
            // The genuine Response's request was consumed by the refusal: no second chance.
            let replay = try await browser.submit(page)
            #expect(replay.status == 401)
            #expect(CM.json(replay.body)["type"] as? String == "http://librarysimplified.org/terms/problem/saml/invalid-saml-response")
        }
    }

    static func padded(_ text: String) -> String {
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
