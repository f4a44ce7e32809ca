import Foundation
import MockServers
import Testing
import TestSupport
@testable import Harness

/// Issue 35: the false and blind verdicts clients the project had never seen exposed, each
/// held here by the smallest run that showed it.
@Suite(.serialized) struct UnseenClientVerdictTests {
    /// Item 1: a client's `details` that echo the start URL the harness gave it (whose
    /// `target=` names the foreign host) are not what the client did; its error naming the
    /// host outside any echo is, and the evidence quotes that match.
    @Test func relayStateEchoIsNotAnAction() async throws {
        var scenario = CheckTestSupport.scenario(.webSSO, check: "security.relaystate-not-followed")
        scenario.startPath = "/Shibboleth.sso/Login?target=https%3A%2F%2Fevil.example.org%2Fphish"
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let start = suite.readyInfo().sp.base + scenario.startPath!
            _ = try await browser.follow(try await SuiteFixture.completeLogin(browser, from: try await browser.get(start), user: SuiteFixture.user(suite)))
            let decoded = start.removingPercentEncoding!
            let echo = ClientReport(outcome: "success", error: "", resource: nil,
                                    details: ["start": start, "start_decoded": decoded, "note": "target=https://evil.example.org/phish"])
            let passed = try CheckTestSupport.evaluate(scenario, suite: suite, report: echo)
            #expect(passed.passed, "an echo of the start URL was taken for an action: \(passed.reason)")
            let went = ClientReport(outcome: "failure", error: "",
                                    details: ["start": start, "last_error": "getaddrinfo failed for evil.example.org (redirected there)"])
            let failed = try CheckTestSupport.evaluate(scenario, suite: suite, report: went, status: 1)
            #expect(failed.failed)
            #expect(failed.reason.contains("details.last_error"))
            if case .fail(_, let evidence) = failed {
                #expect(evidence.first?.excerpt?.contains("getaddrinfo failed for evil.example.org") == true)
            }
        }
    }

    /// Item 2: with `sp-session-ends` the SP's session serves its page once, so a client that
    /// keeps the SP's cookie (every browser) still goes back to the IdP on its second visit,
    /// and the IdP's session reuse is judged instead of staying not-applicable.
    @Test func secondVisitReachesTheIdP() async throws {
        let scenario = CheckTestSupport.scenario(.webSSO, check: "flow.idp-session-reused")
        for knobs in [[Knob](), [.spSessionEnds]] {
            try await SuiteFixture.with("shibboleth", knobs: knobs) { suite, browser in
                _ = try await SuiteFixture.webSSO(suite, browser)
                // The second visit, SP cookie and all.
                _ = try await browser.follow(try await browser.get(suite.readyInfo().sp.secure))
                let outcome = try CheckTestSupport.evaluate(scenario, suite: suite)
                if knobs.isEmpty {
                    if case .notApplicable = outcome {} else { Issue.record("without the knob the SP answers from its session: \(outcome)") }
                } else {
                    #expect(outcome.passed, "\(outcome)")
                }
            }
        }
    }

    /// Item 3: a transport fault named in a library's own words is named.
    @Test func faultWordsOfRealLibraries() {
        let short = ScenarioExpectation(outcome: .failure, error: "@short-body")
        for said in ["Content-Length (2124) does not match response body length (1062)", #"Get "http://127.0.0.1:1/x": unexpected EOF"#,
                     "transfer closed with 1062 bytes remaining to read", "IncompleteRead(1062 bytes read, 1062 more expected)"] {
            #expect(short.names(said), "\(said)")
        }
        #expect(!short.names("no login form found on the page"))
        let lost = ScenarioExpectation(outcome: .failure, error: "@connection-lost")
        for said in [#"Get "http://127.0.0.1:1/x": EOF"#, "Empty reply from server", "socket hang up", "java.io.IOException: Error writing to server"] {
            #expect(lost.names(said), "\(said)")
        }
        #expect(throws: ScenarioLoadError.self) {
            try ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP).load(text: Self.yaml(error: "@no-such-class"), file: "issue35.check-test.yaml")
        }
    }

    /// Item 7: a policy the RFC allows is a recommendation, whatever a scenario says.
    @Test func preemptiveCredentialsOnlyRecommended() throws {
        let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
        do {
            _ = try loader.load(text: Self.yaml(error: "401", check: "security.no-preemptive-credentials"), file: "issue35.check-test.yaml")
            Issue.record("a required security.no-preemptive-credentials was accepted")
        } catch {
            #expect("\(error)".contains("RFC 9110 §11.6.2"), "\(error)")
        }
    }

    /// Item 8: a Digest answer shows which challenge it answered; only `response` is masked.
    @Test func digestMaskedToItsResponse() {
        let masker = SecretMasker(secrets: ["correct horse"])
        let value = #"Digest username="alice", realm="r", nonce="abc123", uri="/d", algorithm=SHA-256, response="0f1e2d", qop=auth, nc=00000001, cnonce="zz""#
        let masked = masker.header(name: "Authorization", value: value)
        #expect(masked.contains(#"nonce="abc123""#) && masked.contains("algorithm=SHA-256") && masked.contains("nc=00000001"), "\(masked)")
        #expect(!masked.contains("0f1e2d") && masked.contains(#"response="[masked]""#), "\(masked)")
        #expect(masker.header(name: "Authorization", value: "Basic YWxpY2U6eA==") == "Basic [masked]")
        let line = masker.evidence("Authorization: " + value)
        #expect(line.contains("nonce=\"abc123\"") && !line.contains("0f1e2d"), "\(line)")
    }

    /// Item 8: the client's `details` are kept in the result, masked like its other output.
    @Test func detailsKeptAndMasked() throws {
        let summary = ScenarioResult.ClientSummary(status: 0, timedOut: false, details: ["note": "pw=correct horse", "n": "1"])
        let json = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
        #expect(json.contains(#""details""#) && json.contains(#""n":"1""#), "\(json)")
        var result = ScenarioResult(scenario: "s", flow: "web-sso", status: .pass, reason: nil, verdicts: [], seconds: 1, exchanges: 0,
                                    client: summary)
        result = SecretMasker(secrets: ["correct horse"]).result(result)
        #expect(result.client?.details?["note"]?.contains("correct horse") == false)
    }

    /// Item 4: behind a proxy that refused every request with 407, the origin's situation never
    /// arose: the outcome checks judge nothing and the reason names the 407 and the proxy
    /// password's encoding.
    @Test func proxyRefusalIsNotTheOriginsVerdict() async throws {
        let scenario = try RealClientDefectTestsTokens.load("proxy.origin-bad-password", flow: "proxy")
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let info = suite.readyInfo()
            let latin1 = "Basic " + Data(Array("\(info.proxy.username):".utf8) + Array(info.proxy.password.data(using: .isoLatin1) ?? Data())).base64EncodedString()
            let headers = [("Host", String(info.auth.base.dropFirst("http://".count))), ("Proxy-Authorization", latin1)]
            #expect(try await browser.get(info.proxy.url + "/basic/page", headers: headers).status == 407)
            let target = ScenarioTarget.resolve(scenario, ready: info)
            let reason = try #require(SituationReach.unreached(scenario, target: target, entries: suite.log.entries))
            #expect(reason.contains("407") && reason.contains("#0"), "\(reason)")
        }
    }

    static func yaml(error: String, check: String = "flow.failure-reported") -> String {
        """
        id: issue35.check-test
        title: A scenario written for the issue 35 tests
        description: >
          A plain http-basic scenario the loader reads, so a test sees what it refuses and why.
        tags: [http-auth]
        flow: http-basic
        profile: shibboleth
        user: alice
        expect:
          outcome: failure
          error: "\(error)"
        checks:
          - \(check)
        exercises: [\(check)]
        """
    }

    /// Item 9: not supporting an optional feature is `unsupported`, not `fail` — only when the
    /// checks the scenario names for it (and the outcome) are all that failed.
    @Test func unsupportedApartFromWrong() throws {
        let scenario = try RealClientDefectTestsTokens.load("http-ntlm.kerberos-preferred", flow: "http-auth")
        #expect(scenario.optional?.feature.contains("Kerberos") == true)
        let ntlmOnly = [Verdict(check: "flow.resource-obtained", level: .required, status: .pass, reason: "ok"),
                        Verdict(check: "ntlm.kerberos-preferred", level: .required, status: .fail, reason: "answered NTLM")]
        let reason = try #require(scenario.unsupported(ntlmOnly))
        #expect(reason.contains("does not support Kerberos") && reason.contains("answered NTLM"), "\(reason)")
        // Another failure beside it is a failure: doing something wrong is not lacking a feature.
        let wrong = ntlmOnly + [Verdict(check: "security.no-credentials-in-url", level: .required, status: .fail, reason: "x")]
        #expect(scenario.unsupported(wrong) == nil)
        #expect(scenario.unsupported([ntlmOnly[0]]) == nil)
        // Reports: counted apart, the run stays clean, JUnit shows skips, not failures.
        let result = ScenarioResult(scenario: scenario.id, flow: "http-ntlm", status: .unsupported, reason: reason, verdicts: ntlmOnly,
                                    seconds: 1, exchanges: 2, client: nil)
        let counts = StatusCounts([result])
        #expect(counts.unsupported == 1 && counts.clean && counts.summary.contains("1 unsupported"))
        let report = ReportFixture.report([ReportFixture.run(results: [result])])
        let junit = JUnitWriter.render(report)
        #expect(junit.contains(#"type="unsupported""#) && !junit.contains("<failure"), "\(junit)")
    }

    /// Item 9: of SHA-256 and MD5 offered in that order, answering MD5 (python-requests merges
    /// the two challenges, the last `algorithm=` winning) is flagged; answering SHA-256 is not.
    @Test(arguments: [("SHA-256", true), ("MD5", false)])
    func digestFirstChoice(_ algorithm: String, _ first: Bool) async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            let url = suite.readyInfo().auth.digestAny
            let challenged = try await browser.get(url)
            #expect(challenged.status == 401)
            let fields = challenged.headers.filter { $0.0.lowercased() == "www-authenticate" }.map(\.1)
            #expect(fields.count >= 2 && fields[0].contains("SHA-256"), "\(fields)")
            let field = try #require(fields.first { ($0.contains("SHA-256") ? "SHA-256" : "MD5") == algorithm })
            let challenge = try #require(HTTPAuthTraffic.digestChallenge(field))
            let realm = try #require(challenge["realm"]), nonce = try #require(challenge["nonce"])
            let user = SuiteFixture.user(suite)
            let uri = try #require(URLComponents(string: url)).percentEncodedPath
            let response = try #require(HTTPDigestAlgorithm(rawValue: algorithm)).response(
                username: user.username, realm: realm, password: user.password, method: "GET", uri: uri, nonce: nonce,
                nc: "00000001", cnonce: "0a4f113b")
            var authorization = "Digest username=\"\(user.username)\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\", "
                + "algorithm=\(algorithm), response=\"\(response)\", qop=auth, nc=00000001, cnonce=\"0a4f113b\""
            if let opaque = challenge["opaque"] { authorization += ", opaque=\"\(opaque)\"" }
            #expect(try await browser.get(url, headers: [("Authorization", authorization)]).status == 200)
            let outcome = try ProtocolCheckRun.evaluate("httpauth.digest-first-choice", .httpDigest, suite)
            if first {
                #expect(outcome.passed, "\(outcome)")
            } else {
                #expect(outcome.failed && outcome.reason.contains("second (MD5)"), "\(outcome)")
            }
        }
    }

    /// Item 9 (one behaviour, one verdict): an ECP client that re-wraps the Response in its own
    /// envelope, moving namespace declarations and reordering attributes, posts the same
    /// exclusive canonical form — what the signature covers — and is not judged to alter it.
    @Test func ecpResponseJudgedByItsCanonicalForm() {
        let protocolNS = "urn:oasis:names:tc:SAML:2.0:protocol", assertionNS = "urn:oasis:names:tc:SAML:2.0:assertion"
        let soap = "http://schemas.xmlsoap.org/soap/envelope/"
        let served = #"<S:Envelope xmlns:S="\#(soap)"><S:Body><samlp:Response xmlns:samlp="\#(protocolNS)" ID="_a" Version="2.0"><saml:Issuer xmlns:saml="\#(assertionNS)">https://idp</saml:Issuer></samlp:Response></S:Body></S:Envelope>"#
        let rewrapped = #"<soap:Envelope xmlns:soap="\#(soap)" xmlns:samlp="\#(protocolNS)" xmlns:saml="\#(assertionNS)"><soap:Header/><soap:Body><samlp:Response Version="2.0" ID="_a"><saml:Issuer>https://idp</saml:Issuer></samlp:Response></soap:Body></soap:Envelope>"#
        let altered = rewrapped.replacingOccurrences(of: "https://idp<", with: "https://evil<")
        let canonical = SAMLResponseIntactCheck.canonicalResponse(served)
        #expect(canonical != nil)
        #expect(canonical == SAMLResponseIntactCheck.canonicalResponse(rewrapped))
        #expect(canonical != SAMLResponseIntactCheck.canonicalResponse(altered))
        #expect(SAMLResponseIntactCheck.canonicalResponse("<S:Envelope xmlns:S=\"\(soap)\"><S:Body><S:Fault/></S:Body></S:Envelope>") == nil)
    }
}
