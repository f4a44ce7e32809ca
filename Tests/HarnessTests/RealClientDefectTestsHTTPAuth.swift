import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// A Digest answer to a challenge page, hashed over the password's bytes as given (RFC 7616
/// §3.4; a client may hash Latin-1 instead of UTF-8).
enum DefectDigest {
    static func field(_ challenge: TestBrowser.Page, url: String, user: String, password: [UInt8]) throws -> String {
        let header = try #require(challenge.header("WWW-Authenticate"), "no challenge: \(challenge.status)")
        let offer = try AuthParameters.parse(header, expectToken68: false)
        let realm = try #require(offer["realm"]), nonce = try #require(offer["nonce"])
        let algorithm = try #require(HTTPDigestAlgorithm(token: offer["algorithm"]))
        let parts = try #require(URLComponents(string: url))
        let uri = parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        let response = algorithm.response(username: user, realm: realm, passwordBytes: password, method: "GET", uri: uri,
                                          nonce: nonce, nc: "00000001", cnonce: "0a4f113b")
        let q = AuthParameters.quoted
        return "Digest username=\(q(user)), realm=\(q(realm)), nonce=\(q(nonce)), uri=\(q(uri)), algorithm=\(algorithm.rawValue), "
            + "qop=auth, nc=00000001, cnonce=\(q("0a4f113b")), response=\(q(response)), opaque=\(q(offer["opaque"] ?? ""))"
    }
}

/// Issue 17 §3, §10, §13, §14, §16: whose credentials they are (the space that challenged),
/// scenarios whose situation never arose are errors, evidence quotes credentials with their
/// header name, safe behaviour is not punished, spaces are named by the host asked for.
@Suite(.serialized) struct RealClientDefectTestsHTTPAuth {
    static func localhost(_ url: String) throws -> String {
        let swapped = url.replacingOccurrences(of: "//127.0.0.1:", with: "//localhost:")
        try #require(swapped != url, "\(url) is not on 127.0.0.1")
        return swapped
    }

    static func evidence(_ outcome: CheckOutcome) -> [Evidence] {
        switch outcome {
        case .pass(_, let evidence), .fail(_, let evidence): evidence
        case .notApplicable: []
        }
    }

    // MARK: - §3: the owner of credentials is the space that challenged

    @Test func basicToTheSPThenToTheIdPsECPEndpointBlamesTheSP() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let basic = ProtocolCheckRun.basic(SuiteFixture.user(suite))
            // pysaml2's ECP client: Basic on every request, the SP's first.
            let page = try await browser.get(info.sp.secure, headers: [("Accept", PAOSHTTP.accept),
                                                                       (PAOSHTTP.paosHeaderName, PAOSHTTP.paosHeader),
                                                                       ("Authorization", basic)])
            let paos = try PAOSRequest.parse(Array(page.body.utf8))
            let answer = try await browser.send("POST", info.idp.ecp, headers: [("Content-Type", SOAPBinding.contentType), ("Authorization", basic)],
                                                body: Array(SOAPBinding.envelope(body: paos.authnRequest).utf8))
            #expect(answer.status == 200)
            let entries = suite.log.entries
            let sp = MessageTraffic.destinationOrigin(entries[0]), idp = MessageTraffic.destinationOrigin(entries[1])
            #expect(entries[0].mock == "sp" && entries[1].mock == "idp" && sp != idp)
            let outcome = try ProtocolCheckRun.evaluate("security.no-credentials-to-other-host", .ecp, suite)
            // Before the fix: "the credentials sent to <sp> went to <idp> in #1".
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("#0 sent the user's Basic credentials to \(sp), which never asked for them"), "\(outcome.reason)")
            #expect(!outcome.reason.contains("went to \(idp)") && !outcome.reason.contains("to \(idp), which never asked"), "\(outcome.reason)")
            #expect(outcome.citedExchanges == [0])
        }
    }

    @Test func aSecondHostAnsweredOnlyAfterItsOwnChallengePasses() async throws {
        // Issue 35: the credentials the user gave for the start URL's origin are for it alone;
        // answering another origin's challenge with them (wget after a redirect) hands the
        // password to a host the user never named — another protection space (RFC 9110 §11.5).
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let credentials = [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]
            for url in [suite.readyInfo().auth.basic + "page", try Self.localhost(suite.readyInfo().auth.basic + "page")] {
                #expect(try await browser.get(url).status == 401)
                #expect(try await browser.get(url, headers: credentials).status == 200)
            }
            var scenario = CheckTestSupport.scenario(.httpBasic, check: "security.no-credentials-to-other-host")
            scenario.startPath = "/basic/page"
            let outcome = try CheckTestSupport.evaluate(scenario, suite: suite)
            #expect(outcome.failed && outcome.reason.contains("another origin is another protection space"), "\(outcome)")
        }
        try await SuiteFixture.with("shibboleth") { suite, browser in
            // The leak curl's CVE-2018-1000007 was: the first host's credentials to the other host, unasked.
            let credentials = [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]
            let first = suite.readyInfo().auth.basic + "page", other = try Self.localhost(first)
            #expect(try await browser.get(first).status == 401)
            #expect(try await browser.get(first, headers: credentials).status == 200)
            _ = try await browser.get(other, headers: credentials)
            let outcome = try ProtocolCheckRun.evaluate("security.no-credentials-to-other-host", .httpBasic, suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("#2 sent the user's Basic credentials to http://localhost:"), "\(outcome.reason)")
        }
    }

    // MARK: - §13: evidence quotes credentials with the header's name

    @Test func challengeAnsweredQuotesTheAuthorizationHeaderByName() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite)
            let url = suite.readyInfo().auth.digestMD5 + "page"
            #expect(try await browser.get(url).status == 401)
            _ = try await browser.get(url, headers: [("Authorization", ProtocolCheckRun.basic(user))])
            let outcome = try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpDigest, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            let excerpt = try #require(Self.evidence(outcome).first?.excerpt)
            // Before the fix: "Basic YWxpY2U6…", which decodes to the password.
            #expect(excerpt.hasPrefix("Authorization: Basic "), "\(excerpt)")
            #expect(SecretMasker(secrets: [user.password]).evidence(excerpt) == "Authorization: Basic [masked]")
        }
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.basic + "page"
            let wrong = "Basic " + Data("alice:not-the-password".utf8).base64EncodedString()
            #expect(try await browser.get(url).status == 401)
            for _ in 0..<2 { _ = try await browser.get(url, headers: [("Authorization", wrong)]) }
            let outcome = try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpBasic, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(Self.evidence(outcome).first?.excerpt == "Authorization: " + wrong)
        }
    }

    // MARK: - §14: safe behaviour is not punished; credentials scoped by directory

    @Test func upFrontProxyAuthorizationIsJudgedApart() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let proxied = RealClientDefectTestsSecrets.throughProxy(suite, to: info.auth.base)
            // curl, python-requests and wget: Proxy-Authorization on the first request already.
            #expect(try await browser.get(info.proxy.url + "/basic/page", headers: proxied).status == 401)
            #expect(try await browser.get(info.proxy.url + "/basic/page",
                                          headers: proxied + [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]).status == 200)
            let origin = try ProtocolCheckRun.evaluate("security.no-preemptive-credentials", .proxy, suite)
            // Before the fix: "sent Proxy-Authorization before any 407 challenge from the proxy".
            #expect(origin.passed, "\(origin)")
            let proxy = try ProtocolCheckRun.evaluate("security.no-preemptive-proxy-credentials", .proxy, suite)
            #expect(proxy.failed && proxy.reason.contains("#0 sent Proxy-Authorization to the proxy before any 407"), "\(proxy)")
            for id in ["proxy.basic-origin", "proxy.origin-bad-password"] {
                let scenario = try RealClientDefectTestsTokens.load(id, flow: "proxy")
                #expect(scenario.checks.first { $0.id == "security.no-preemptive-proxy-credentials" }?.level == .recommended, "\(id)")
            }
        }
    }

    @Test func authorizationToAnotherDirectoryAfterAChallengeFails() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let credentials = [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))]
            #expect(try await browser.get(info.auth.basic + "page").status == 401)
            #expect(try await browser.get(info.auth.basic + "page", headers: credentials).status == 200)
            _ = try await browser.get(info.auth.basicOther + "page", headers: credentials)
            let outcome = try ProtocolCheckRun.evaluate("security.no-preemptive-credentials", .httpBasic, suite)
            // Before the fix: one challenge from the origin covered every path on it.
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("#2 sent Authorization to") && outcome.reason.contains("/basic-other/page before any 401 challenge"),
                    "\(outcome.reason)")
            #expect(outcome.reason.contains("covered /basic/ only"), "\(outcome.reason)")
        }
    }

    // MARK: - §16: the space is named by the host the client asked for

    @Test func evidenceNamesTheSpaceByTheHostAskedFor() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = try Self.localhost(suite.readyInfo().auth.basic + "page")
            #expect(try await browser.get(url).status == 401)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.challenge-answered", .httpBasic, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            let port = try #require(URLComponents(string: url)?.port)
            #expect(outcome.evidenceText.contains("for http://localhost:\(port) realm"), "\(outcome.evidenceText)")
            #expect(!outcome.evidenceText.contains("127.0.0.1"), "\(outcome.evidenceText)")
        }
    }

    // MARK: - §10: a scenario whose situation never arose is an error

    @Test func staleNonceScenarioIsAnErrorWithoutAStaleAnswerAndPassesWithIt() async throws {
        let scenario = try RealClientDefectTestsTokens.load("http-digest.stale-nonce", flow: "http-auth")
        #expect(scenario.exercises == ["httpauth.digest-stale-retried"])
        try await SuiteFixture.with("shibboleth") { suite, browser in
            // A run that never met a stale nonce (the path without /stale-first/).
            let user = SuiteFixture.user(suite, try #require(scenario.user?.username))
            let url = suite.readyInfo().auth.digestMD5 + "archive/"
            let challenge = try await browser.get(url)
            #expect(challenge.status == 401)
            #expect(try await browser.get(url, headers: [("Authorization", try DefectDigest.field(challenge, url: url, user: user.username,
                                                                                                  password: Array(user.password.utf8)))]).status == 200)
            let result = ScenarioRunner.judgeByHand(scenario, target: ScenarioTarget.resolve(scenario, ready: suite.readyInfo()),
                                                    entries: suite.log.entries, seconds: 1)
            // Before the fix: pass.
            #expect(result.status == .error, "\(result.status): \(result.reason ?? "")")
            #expect(result.reason?.contains("never arose: `httpauth.digest-stale-retried` stayed not-applicable") == true, "\(result.reason ?? "")")
        }
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let user = SuiteFixture.user(suite, try #require(scenario.user?.username))
            let target = ScenarioTarget.resolve(scenario, ready: suite.readyInfo())
            let url = target.start
            #expect(url.contains(HTTPAuthMock.staleFirstSegment))
            var page = try await browser.get(url)
            for _ in 0..<2 {
                page = try await browser.get(url, headers: [("Authorization", try DefectDigest.field(page, url: url, user: user.username,
                                                                                                     password: Array(user.password.utf8)))])
            }
            #expect(page.status == 200)
            let result = ScenarioRunner.judgeByHand(scenario, target: target, entries: suite.log.entries, seconds: 1)
            #expect(result.status == .pass, "\(result.reason ?? "")")
            #expect(result.verdicts.first { $0.check == "httpauth.digest-stale-retried" }?.status == .pass)
        }
    }

    @Test func proxyScenarioIsAnErrorWhenTheClientBypassesTheProxy() async throws {
        let scenario = try RealClientDefectTestsTokens.load("proxy.basic-origin", flow: "proxy")
        try await SuiteFixture.with("shibboleth") { suite, browser in
            // OpenJDK with -Dhttp.proxyHost: 127.* bypasses the proxy; only the origin's exchanges.
            let url = suite.readyInfo().auth.basic + "page"
            let challenge = try await browser.get(url)
            #expect(challenge.status == 401)
            let granted = try await browser.get(url, headers: [("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))])
            #expect(granted.status == 200)
            let result = ScenarioRunner.judgeByHand(scenario, target: ScenarioTarget.resolve(scenario, ready: suite.readyInfo()),
                                                    entries: suite.log.entries, seconds: 1)
            #expect(result.status == .error, "\(result.status): \(result.reason ?? "")")
            #expect(result.reason?.contains("`security.proxy-credentials-only-to-proxy` stayed not-applicable") == true, "\(result.reason ?? "")")
        }
    }

    @Test func runReportsABypassedProxyAsAnErrorWithTheReason() async throws {
        let scenario = try RealClientDefectTestsTokens.load("proxy.basic-origin", flow: "proxy")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("defect-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let runner = ScenarioRunner(loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP), mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: work)
        // curl told nothing of $SAMLH_PROXY_URL: the origin's challenge answered, the page obtained, no proxy.
        let client = ExternalCommandClient(command: #"""
            body=$(curl -s --anyauth -u "$SAMLH_USERNAME:$SAMLH_PASSWORD" "$SAMLH_START_URL") || exit 2
            python3 -c 'import json, sys; json.dump({"outcome": "success", "resource": sys.argv[1]}, open(sys.argv[2], "w"))' "$body" "$SAMLH_RESULT_FILE"
            """#)
        let result = await runner.run(scenario, client: client)
        #expect(result.verdicts.first { $0.check == "flow.resource-obtained" }?.status == .pass, "\(result.verdicts)")
        // Before the fix: pass.
        #expect(result.status == .error, "\(result.status): \(result.reason ?? "")")
        #expect(result.reason?.contains("never arose: `security.proxy-credentials-only-to-proxy` stayed not-applicable") == true,
                "\(result.reason ?? "")")
    }
}
