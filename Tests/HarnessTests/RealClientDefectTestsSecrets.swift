import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// Issue 17 §1, §11, §12: the checks that look for the user's password find it in every form
/// a real client sends it (Latin-1 in Basic as python-requests and OpenJDK do, percent-encoded
/// Latin-1 in a form, XML-escaped in SOAP, NFD, UTF-8 encoded twice), behind the proxy too, and
/// `encoding.utf8-credentials` judges a Digest answer by recomputing it. Real mocks on loopback;
/// alice's password is `correct horse+battery=staple&100% Ünïcødé`.
@Suite(.serialized) struct RealClientDefectTestsSecrets {
    /// `text`'s Latin-1 (ISO-8859-1) bytes.
    static func latin1(_ text: String) throws -> [UInt8] {
        Array(try #require(text.data(using: .isoLatin1), "\(text) is not Latin-1"))
    }

    /// `Authorization: Basic …` over raw bytes for the password.
    static func basic(_ user: String, _ password: [UInt8]) -> String {
        "Basic " + Data(Array("\(user):".utf8) + password).base64EncodedString()
    }

    /// Every byte but RFC 3986's unreserved ones as `%XX` (a form encoder over bytes).
    static func percent(_ bytes: [UInt8]) -> String {
        bytes.map { SecretMasker.isUnreserved($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
    }

    /// The UTF-8 bytes taken for Latin-1 characters and encoded as UTF-8 again.
    static func twice(_ text: String) -> [UInt8] {
        Array(String(String.UnicodeScalarView(text.utf8.map { Unicode.Scalar($0) })).utf8)
    }

    func onlyToIdP(_ suite: MockSuite) throws -> CheckOutcome {
        try CheckTestSupport.evaluate(CheckTestSupport.scenario(.ecp, check: "security.password-only-to-idp"), suite: suite)
    }

    // MARK: - security.password-only-to-idp: every form

    @Test func latin1BasicToTheSPFailsNamingTheSPAndLatin1() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            _ = try await browser.get(suite.readyInfo().sp.secure,
                                      headers: [("Authorization", Self.basic(user.username, try Self.latin1(user.password)))])
            let outcome = try onlyToIdP(suite)
            // Before the fix (UTF-8 only): "the client never sent the password in this run".
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("the password went to the sp in #0"), "\(outcome.reason)")
            #expect(outcome.reason.contains("Basic Authorization") && outcome.reason.contains("Latin-1"), "\(outcome.reason)")
        }
    }

    @Test func latin1BasicToTheIdPsECPEndpointPassesAndIsSeen() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            _ = try await browser.send("POST", suite.readyInfo().idp.ecp,
                                       headers: [("Content-Type", SOAPBinding.contentType),
                                                 ("Authorization", Self.basic(user.username, try Self.latin1(user.password)))],
                                       body: Array(SOAPBinding.envelope(body: "<x/>").utf8))
            let outcome = try onlyToIdP(suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.evidenceText.contains("password to the idp") && outcome.evidenceText.contains("Latin-1"), "\(outcome.evidenceText)")
        }
    }

    @Test func percentEncodedLatin1InAFormBodyToTheSPFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let body = "j_username=alice&j_password=" + Self.percent(try Self.latin1(user.password))
            #expect(body.contains("%DCn%EFc%F8d%E9"))
            _ = try await browser.post(suite.readyInfo().sp.base + "/account/login", form: body)
            let outcome = try onlyToIdP(suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("went to the sp") && outcome.reason.contains("the body (percent-encoded), Latin-1"),
                    "\(outcome.reason)")
        }
    }

    @Test func xmlEscapedPasswordInASOAPBodyToTheSPFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let envelope = SOAPBinding.envelope(body: "<wsse:Password xmlns:wsse=\"urn:x\">\(XMLWriter.escapeText(user.password))</wsse:Password>")
            #expect(!envelope.contains(user.password) && envelope.contains("&amp;100%"))
            _ = try await browser.send("POST", suite.readyInfo().sp.ecpACS, headers: [("Content-Type", PAOSHTTP.contentType)],
                                       body: Array(envelope.utf8))
            let outcome = try onlyToIdP(suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("went to the sp") && outcome.reason.contains("XML-escaped"), "\(outcome.reason)")
        }
    }

    @Test(arguments: ["NFD", "encoded twice"])
    func otherUTF8FormsInBasicToTheSPFail(_ form: String) async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let bytes = form == "NFD" ? Array(user.password.decomposedStringWithCanonicalMapping.utf8) : Self.twice(user.password)
            try #require(bytes != Array(user.password.utf8))
            _ = try await browser.get(suite.readyInfo().sp.secure, headers: [("Authorization", Self.basic(user.username, bytes))])
            let outcome = try onlyToIdP(suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("went to the sp") && outcome.reason.contains(form), "\(outcome.reason)")
        }
    }

    // MARK: - behind the proxy (§11)

    /// `Proxy-Authorization` for the suite's proxy, and the `Host` of `base` (the origin the
    /// proxy relays to; the proxy reads it from `Host`, the listener seeing origin-form targets).
    static func throughProxy(_ suite: MockSuite, to base: String) -> [(String, String)] {
        let info = suite.readyInfo()
        return [("Host", String(base.dropFirst("http://".count))),
                ("Proxy-Authorization", BasicCredentials(username: info.proxy.username, password: info.proxy.password).headerValue)]
    }

    @Test func passwordToTheSPsSecureThroughTheProxyFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let path = try #require(URLComponents(string: info.sp.secure)).percentEncodedPath
            let page = try await browser.get(info.proxy.url + path,
                                             headers: Self.throughProxy(suite, to: info.sp.base)
                                                 + [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))])
            #expect(page.status != 407 && page.status != 502, "\(page.status)")
            #expect(suite.log.entries.contains { $0.mock == "sp" && MessageTraffic.isRelayed($0) }, "the proxy relayed it to the SP")
            let outcome = try onlyToIdP(suite)
            // Before the fix: "the password went only to the login server" (the proxy).
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("went to the sp") && outcome.reason.contains("through the proxy"), "\(outcome.reason)")
        }
    }

    @Test func wrongOriginPasswordsThroughTheProxyAreCounted() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let wrong = "Basic " + Data("alice:not-the-password".utf8).base64EncodedString()
            let headers = Self.throughProxy(suite, to: info.auth.base)
            #expect(try await browser.get(info.proxy.url + "/basic/page", headers: headers).status == 401)
            for _ in 0..<5 {
                #expect(try await browser.get(info.proxy.url + "/basic/page", headers: headers + [("Authorization", wrong)]).status == 401)
            }
            let scenario = CheckTestSupport.scenario(.proxy, check: "flow.bad-password-bounded", outcome: .failure)
            let outcome = try CheckTestSupport.evaluate(scenario, suite: suite, status: 1)
            // Before the fix: "no password was rejected in this run".
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("submitted a password 5 times; at most 3"), "\(outcome.reason)")
        }
    }

    // MARK: - encoding.utf8-credentials judges Digest (§12)

    /// Answers the Digest challenge of `url` with a response hashed over `password`'s bytes.
    static func digest(_ browser: TestBrowser, _ url: String, user: String, password: [UInt8]) async throws -> TestBrowser.Page {
        let challenge = try await browser.get(url)
        return try await browser.get(url, headers: [("Authorization", try DefectDigest.field(challenge, url: url, user: user, password: password))])
    }

    @Test func digestComputedOverLatin1FailsNamingLatin1() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let page = try await Self.digest(browser, suite.readyInfo().auth.digestMD5 + "page", user: user.username,
                                             password: try Self.latin1(user.password))
            #expect(page.status == 401)
            let outcome = try ProtocolCheckRun.evaluate("encoding.utf8-credentials", .httpDigest, suite, status: 1)
            // Before the fix: "the client never sent the password in this run".
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("Digest response of #1 was computed over the password in Latin-1"), "\(outcome.reason)")
        }
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let page = try await Self.digest(browser, suite.readyInfo().auth.digestMD5 + "page", user: user.username,
                                             password: Array(user.password.utf8))
            #expect(page.status == 200)
            let outcome = try ProtocolCheckRun.evaluate("encoding.utf8-credentials", .httpDigest, suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.evidenceText.contains("computed over the UTF-8 password"), "\(outcome.evidenceText)")
        }
    }

    @Test func latin1EvidenceNamesTheEncodingWithoutQuotingThePasswordsBytes() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let url = suite.readyInfo().auth.basic + "page"
            #expect(try await browser.get(url).status == 401)
            _ = try await browser.get(url, headers: [("Authorization", Self.basic(user.username, try Self.latin1(user.password)))])
            let outcome = try ProtocolCheckRun.evaluate("encoding.utf8-credentials", .httpBasic, suite, status: 1)
            #expect(outcome.failed && outcome.reason.contains("Latin-1"), "\(outcome)")
            // The report once showed "sent 63 6F 72 72 65 63 74 20 …": the password in hex.
            let text = outcome.reason + "\n" + outcome.evidenceText
            for bytes in [Array(user.password.utf8), try Self.latin1(user.password)] {
                let hex = bytes.prefix(6).map { String(format: "%02X", $0) }.joined(separator: " ")
                #expect(!text.uppercased().contains(hex), "\(text)")
            }
            #expect(!text.contains("correct horse"))
        }
    }

    // MARK: - the result file's details (docs/running-clients.md: "anything you like")

    @Test func detailsAcceptNumbersBooleansArraysAndObjects() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("details-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            {"outcome": "success", "resource": "x", "details": {"validates_saml": true, "exit": 0, "ratio": 1.5, "name": "requests",
             "versions": [2, "3.1"], "env": {"b": false, "a": "x"}, "none": null}}
            """.utf8).write(to: file)
        let (report, problem) = ClientReport.read(file)
        // Before the fix: "the result file does not match {outcome, error, resource, details}".
        #expect(problem == nil, "\(problem ?? "")")
        let details = try #require(report?.details)
        #expect(details["validates_saml"] == "true")
        #expect(details["exit"] == "0")
        #expect(details["ratio"] == "1.5")
        #expect(details["name"] == "requests")
        #expect(details["versions"] == "[2, 3.1]")
        #expect(details["env"] == "{a: x, b: false}")
        #expect(details["none"] == "")
        #expect(report?.outcome == "success" && report?.resource == "x")
    }
}
