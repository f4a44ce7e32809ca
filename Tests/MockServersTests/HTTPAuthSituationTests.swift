import Foundation
import MockServers
import Testing
import TestSupport

/// Issue 17 §10: the HTTP-auth mock makes every client meet the situation a scenario is named
/// for — a stale nonce on the first right Digest answer under `/stale-first/`, and a second
/// request in an authenticated Basic space from a `continue-` page's redirect.
@Suite struct HTTPAuthSituationTests {
    /// A Digest answer (MD5, qop=auth, nc 1) to the challenge of `page` for `url`.
    static func digest(_ page: TestBrowser.Page, url: String, user: TestUser) throws -> String {
        let offer = try AuthParameters.parse(try #require(page.header("WWW-Authenticate")), expectToken68: false)
        let realm = try #require(offer["realm"]), nonce = try #require(offer["nonce"])
        let algorithm = try #require(HTTPDigestAlgorithm(token: offer["algorithm"]))
        let uri = try #require(URLComponents(string: url)).percentEncodedPath
        let response = algorithm.response(username: user.username, realm: realm, password: user.password, method: "GET", uri: uri,
                                          nonce: nonce, nc: "00000001", cnonce: "c0ffee01")
        let q = AuthParameters.quoted
        return "Digest username=\(q(user.username)), realm=\(q(realm)), nonce=\(q(nonce)), uri=\(q(uri)), algorithm=\(algorithm.rawValue), "
            + "qop=auth, nc=00000001, cnonce=\(q("c0ffee01")), response=\(q(response)), opaque=\(q(offer["opaque"] ?? ""))"
    }

    static func nonce(_ page: TestBrowser.Page) -> String? {
        page.header("WWW-Authenticate").flatMap { try? AuthParameters.parse($0, expectToken68: false) }?["nonce"]
    }

    @Test func theFirstRightAnswerUnderStaleFirstMeetsAStaleNonceThenTheRetryIsGranted() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite, "bob")
            let url = suite.readyInfo().auth.digestMD5 + "archive" + HTTPAuthMock.staleFirstSegment
            let challenge = try await browser.get(url)
            #expect(challenge.status == 401)
            let first = try #require(Self.nonce(challenge))
            // A right answer: 401 with stale=true and a fresh nonce, not "wrong password".
            let stale = try await browser.get(url, headers: [("Authorization", try Self.digest(challenge, url: url, user: user))])
            #expect(stale.status == 401)
            let field = try #require(stale.header("WWW-Authenticate"))
            #expect(field.lowercased().contains("stale=true"), "\(field)")
            let fresh = try #require(Self.nonce(stale))
            #expect(fresh != first)
            // The retry with the new nonce (nc back to 1) is granted.
            let granted = try await browser.get(url, headers: [("Authorization", try Self.digest(stale, url: url, user: user))])
            #expect(granted.status == 200)
            // Once per run: a second right answer is not stale again.
            let again = try await browser.get(url)
            let second = try await browser.get(url, headers: [("Authorization", try Self.digest(again, url: url, user: user))])
            #expect(second.status == 200)
        }
    }

    @Test func outsideStaleFirstTheFirstRightAnswerIsGranted() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite, "bob")
            let url = suite.readyInfo().auth.digestMD5 + "archive/"
            let challenge = try await browser.get(url)
            #expect(try await browser.get(url, headers: [("Authorization", try Self.digest(challenge, url: url, user: user))]).status == 200)
        }
    }

    @Test func aContinuePageLeadsToItsNeighbourInTheSameSpace() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite, "carol")
            let credentials = [("Authorization", "Basic " + Data("\(user.username):\(user.password)".utf8).base64EncodedString())]
            let base = suite.readyInfo().auth.basic
            let url = base + "reports/2024/continue-q3.html?download=1&fmt=pdf"
            // Unauthenticated: the challenge, not the redirect.
            #expect(try await browser.get(url).status == 401)
            let answer = try await browser.get(url, headers: credentials)
            #expect(answer.status == 302)
            let location = try #require(answer.location)
            #expect(location.hasSuffix("/basic/reports/2024/q3.html?download=1&fmt=pdf"), "\(location)")
            #expect(!location.contains(HTTPAuthMock.continuePrefix))
            let entry = try #require(suite.log.entries.last)
            #expect(entry.annotations["auth.continue"] == "/basic/reports/2024/q3.html")
            // The neighbour, in the same directory, is served with the same credentials.
            let neighbour = try await browser.get(browser.resolve(location, against: url), headers: credentials)
            #expect(neighbour.status == 200)
            #expect(neighbour.body.contains("id=\"secret\""))
        }
    }
}
