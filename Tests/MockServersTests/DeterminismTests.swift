import TestSupport
import Foundation
@testable import MockServers
import SAMLCore
import Testing

/// Determinism (issue #5, item 4): the same seed, a frozen clock at the same instant, the same
/// ports and the same requests give the same bytes from every mock — two suites in one
/// process, and two `samlharness serve` processes. See docs/determinism.md.
@Suite(.serialized) struct DeterminismTests {
    static let seed: UInt64 = 0x5EED_2026
    /// 2026-01-01T00:00:00Z.
    static let instant = Date(timeIntervalSince1970: 1_767_225_600)

    // MARK: - In one process

    @Test func twoSuitesWithTheSameSeedClockAndPortsAnswerByteForByteTheSame() async throws {
        // Another test (in parallel) may take one of the eight ports between the two runs;
        // then both runs are made again on another base.
        // Under load a stopped suite's listeners can take a moment to release their ports:
        // the second run polls for them (bounded), then falls back to a new base.
        var pair: ([Exchange], [Exchange])?
        for _ in 0..<3 where pair == nil {
            let (first, basePort) = try await Self.recordOnFreePorts(seed: Self.seed)
            for _ in 0..<40 where pair == nil {
                do {
                    pair = (first, try await Self.record(seed: Self.seed, basePort: basePort))
                } catch is MockServerGroup.StartError {
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
        }
        let (first, second) = try #require(pair, "no run of eight ports stayed free for both runs")
        Self.expectIdentical(first, second)
        // Not vacuous: every mock answered, and the logins got through (the script checks each
        // step; here the count of exchanges per mock).
        let mocks = Set(first.map(\.mock))
        #expect(mocks == ["idp", "sp", "auth", "proxy", "control", "cas", "adfs", "cm"])
        #expect(first.count > 60, "\(first.count) exchanges")
    }

    @Test func aDifferentSeedChangesTheSAMLIDs() async throws {
        let first = try await Self.webSSOIDs(seed: Self.seed)
        let again = try await Self.webSSOIDs(seed: Self.seed)
        let other = try await Self.webSSOIDs(seed: Self.seed + 1)
        #expect(first == again, "the same seed gives the same IDs, whatever the ports")
        #expect(first.request != other.request)
        #expect(first.response != other.response)
        #expect(first.assertion != other.assertion)
    }

    @Test func theScenarioClockIsFrozenOrRunsFromItsStart() {
        let now = Date(timeIntervalSince1970: 1_800_000_000.75)
        #expect(MockEnvironment.clock(start: Self.instant, frozen: true, now: now).now() == Self.instant)
        #expect(MockEnvironment.clock(start: nil, frozen: true, now: now).now() == Date(timeIntervalSince1970: 1_800_000_000))
        let running = MockEnvironment.clock(start: Self.instant, frozen: false, now: Date()).now()
        #expect(abs(running.timeIntervalSince(Self.instant)) < 60, "starts at the scenario's instant")
    }

    @Test func adfsClaimsFromTwoAttributesComeInAttributeOrder() {
        // `cn` and `displayName` both become the CommonName claim; a Dictionary walk would put
        // their values in a per-process order.
        let user = TestUser(username: "zoe", password: "", attributes: ["displayName": ["Zoë Display"], "cn": ["Zoë CN"],
                                                                       "sn": ["Z"], "givenName": ["Zoë"]])
        let rp = ADFSRelyingParty(identifier: "urn:rp", name: "rp", acs: "http://127.0.0.1/acs", acsLocations: [],
                                  extraAttributes: ["memberOf": ["b"], "cn": ["Extra"]], releasedAttributes: nil)
        let claims = ADFSClaims.claims(for: user, rp: rp)
        #expect(claims.first { $0.type == ADFSClaims.commonName }?.values == ["Zoë CN", "Zoë Display", "Extra"])
        #expect(claims.map(\.type) == claims.map(\.type).sorted())
    }

    @Test func theExpiredCertificateDoesNotDependOnWhenTheProfileWasLoaded() throws {
        let profile = try SuiteFixture.profile("shibboleth")
        // Valid through the year 2000 (not "a year before loading"), so metadata and
        // signatures under `expired-certificate` repeat across runs.
        #expect(profile.expiredIdPCertificate.notAfter == Date(timeIntervalSince1970: 978_307_200))
        #expect(profile.expiredIdPCertificate.base64DER == (try SuiteFixture.profile("shibboleth")).expiredIdPCertificate.base64DER)
    }

    // MARK: - Across processes

    @Test(.enabled("needs `samlharness serve --seed --clock --freeze-clock`") { await DeterminismTests.serveTakesSeedAndClock })
    func twoServeProcessesWithTheSameSeedAnswerTheSame() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-determinism-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var basePort: Int?
        var first: [HAR.Entry] = []
        for candidate in Self.candidateBasePorts.prefix(10) {
            guard let entries = try await Self.serveAndRecord(port: candidate, har: directory.appendingPathComponent("first.har")) else {
                continue  // a port was taken: another base
            }
            (basePort, first) = (candidate, entries)
            break
        }
        let port = try #require(basePort, "no free run of eight ports")
        let second = try #require(try await Self.serveAndRecord(port: port, har: directory.appendingPathComponent("second.har")))
        Self.expectIdentical(first.map(Self.exchange), second.map(Self.exchange))
        #expect(first.count > 60)
    }

    // MARK: - Running the script against a suite

    /// What one exchange answered, as comparable bytes: status, header fields in order, the
    /// mock's annotations, then the body.
    struct Exchange {
        let mock: String
        let label: String
        let bytes: [UInt8]
    }

    static func exchange(_ entry: TrafficEntry) -> Exchange {
        let label = "#\(entry.sequence) \(entry.mock) \(entry.request.method) \(entry.request.target)"
        guard let response = entry.response else { return Exchange(mock: entry.mock, label: label, bytes: Array("no answer".utf8)) }
        return Exchange(mock: entry.mock, label: label,
                        bytes: head(status: response.status, headers: response.headers, annotations: response.annotations) + response.body)
    }

    static func exchange(_ entry: HAR.Entry) -> Exchange {
        let mock = entry._mock ?? "?"
        let label = "#\(entry._sequence ?? -1) \(mock) \(entry.request.method) \(entry.request.url)"
        let response = entry.response
        let body = Array((response.content.text ?? "").utf8) + Array((response.content.encoding ?? "").utf8)
        return Exchange(mock: mock, label: label,
                        bytes: head(status: response.status, headers: response.headers.map { ($0.name, $0.value) },
                                    annotations: entry._annotations ?? [:]) + body)
    }

    static func head(status: Int, headers: [(name: String, value: String)], annotations: [String: String]) -> [UInt8] {
        var text = "\(status)\n"
        for (name, value) in headers { text += "\(name): \(value)\n" }
        for key in annotations.keys.sorted() { text += "@\(key): \(annotations[key] ?? "")\n" }
        return Array((text + "\n").utf8)
    }

    /// Starts a suite on `basePort…basePort+7`, runs the script, stops it; the exchanges.
    static func record(seed: UInt64, basePort: Int) async throws -> [Exchange] {
        let suite = try await MockSuite.start(profile: try SuiteFixture.profile("shibboleth"), basePort: basePort, seed: seed,
                                              clockStart: instant, frozen: true, mockIdPDirectory: SuiteFixture.mockIdP)
        do {
            try await DeterminismScript.run(suite.readyInfo(), clock: instant)
        } catch {
            await suite.stop()
            throw error
        }
        await suite.stop()
        // The log holds the mocks' answers as they made them: Hummingbird's `Date` header is
        // added on the wire, and the proxy does not relay the origin's.
        #expect(suite.log.entries.allSatisfy { $0.response?.header("Date") == nil })
        return suite.log.entries.map(exchange)
    }

    /// Bases below the usual ephemeral range (Linux 32768–60999, macOS 49152–65535), so the
    /// ephemeral ports other tests bind do not take ours between the two runs.
    static var candidateBasePorts: [Int] { Array(stride(from: 21_000, to: 32_000, by: 8)).shuffled() }

    /// ``record(seed:basePort:)`` on the first base whose eight ports are free.
    static func recordOnFreePorts(seed: UInt64) async throws -> ([Exchange], Int) {
        var lastError: (any Error)?
        for basePort in candidateBasePorts.prefix(20) {
            do {
                return (try await record(seed: seed, basePort: basePort), basePort)
            } catch let error as MockServerGroup.StartError {
                lastError = error  // a port is taken: another base
            }
        }
        throw lastError ?? BrowserError("no base port tried")
    }

    /// The IDs one Web SSO login produces: the AuthnRequest's, the Response's, the assertion's.
    struct LoginIDs: Equatable {
        let request: String
        let response: String
        let assertion: String
    }

    static func webSSOIDs(seed: UInt64) async throws -> LoginIDs {
        let suite = try await MockSuite.start(profile: try SuiteFixture.profile("shibboleth"), seed: seed, clockStart: instant,
                                              mockIdPDirectory: SuiteFixture.mockIdP)
        let browser = TestBrowser()
        let page: TestBrowser.Page
        do {
            page = try await SuiteFixture.webSSO(suite, browser)
        } catch {
            try? await browser.shutdown()
            await suite.stop()
            throw error
        }
        try await browser.shutdown()
        await suite.stop()
        #expect(page.status == 200)
        let redirect = try #require(suite.log.entries.first { $0.annotations["sp.request-id"] != nil })
        let acs = try #require(suite.log.entries.first { $0.mock == "sp" && $0.request.path == "/Shibboleth.sso/SAML2/POST" })
        let message = try PostBinding.decode(formBody: acs.request.bodyText)
        let root = try XMLDocument(parsing: message.xml).root
        return LoginIDs(request: try #require(redirect.annotations["sp.request-id"]),
                        response: try #require(root.attribute("ID")),
                        assertion: try #require(root.firstChild("Assertion", SAMLNamespace.assertion)?.attribute("ID")))
    }

    /// Asserts equal exchange for exchange; on the first difference, names the exchange and
    /// shows the bytes around it.
    static func expectIdentical(_ first: [Exchange], _ second: [Exchange]) {
        #expect(first.count == second.count, "\(first.count) exchanges, then \(second.count)")
        for (a, b) in zip(first, second) where a.label != b.label || a.bytes != b.bytes {
            let offset = zip(a.bytes, b.bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(a.bytes.count, b.bytes.count)
            func region(_ bytes: [UInt8]) -> String {
                let start = max(0, offset - 120)
                return String(decoding: bytes[start..<min(bytes.count, offset + 120)], as: UTF8.self)
                    .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
            }
            Issue.record("""
                first difference: \(a.label) / \(b.label), at byte \(offset) of \(a.bytes.count) / \(b.bytes.count)
                first run:  …\(region(a.bytes))…
                second run: …\(region(b.bytes))…
                """)
            return
        }
    }

    // MARK: - serve in a child process

    /// Whether the built `samlharness serve` has `--seed`, `--clock` and `--freeze-clock`.
    static var serveTakesSeedAndClock: Bool {
        get async {
        guard let outcome = try? await ClientProcess.run(ServeCommandTests.binary.path, ["serve", "--help"]) else { return false }
        return outcome.stdout.contains("--seed") && outcome.stdout.contains("--clock") && outcome.stdout.contains("--freeze-clock")
        }
    }

    /// Runs `samlharness serve --port port --seed … --clock … --freeze-clock --har-out har`, drives the script
    /// against its ready line, stops it with SIGTERM and reads the HAR it wrote; nil when it
    /// could not bind its ports.
    static func serveAndRecord(port: Int, har: URL) async throws -> [HAR.Entry]? {
        let serve: ServeProcess
        do {
            serve = try await ServeProcess.start(["--profile", "shibboleth", "--port", String(port), "--seed", String(seed),
                                                  "--clock", SAMLDateTime.string(from: instant), "--freeze-clock", "--har-out", har.path,
                                                  "--mockidp-dir", SuiteFixture.mockIdP.path])
        } catch is ServeProcess.StartFailure {
            return nil  // exited before the ready line: a port was taken
        }
        let info = try JSONDecoder().decode(ReadyInfo.self, from: Data(serve.readyLine.utf8))
        try await DeterminismScript.run(info, clock: instant)
        #expect(await serve.stop().status == 0)
        return try JSONDecoder().decode(HAR.self, from: Data(contentsOf: har)).log.entries
    }
}

/// The fixed sequence of requests both runs send: every mock and every flow, each step
/// checked so that a broken login cannot pass as "the same error twice".
enum DeterminismScript {
    static func run(_ info: ReadyInfo, clock: Date) async throws {
        let browser = TestBrowser()
        do {
            try await steps(info, browser, clock: clock)
        } catch {
            try? await browser.shutdown()
            throw error
        }
        try await browser.shutdown()
    }

    static func enc(_ value: String) -> String { PercentEncoding.queryComponentEncode(value) }

    static func steps(_ info: ReadyInfo, _ browser: TestBrowser, clock: Date) async throws {
        let account = try #require(info.users.first { $0.username == "alice" })
        let alice = TestUser(username: account.username, password: account.password, secondFactorCode: account.secondFactorCode)
        let basic = BasicCredentials(username: alice.username, password: alice.password).headerValue

        // Web SSO: the shibboleth form login and consent, the SP's session, both metadata.
        let start = try await browser.get(info.sp.secure)
        let acsAnswer = try await SuiteFixture.completeLogin(browser, from: start, user: alice)
        let secure = try await browser.follow(acsAnswer)
        #expect(secure.status == 200 && secure.body.contains("id=\"secret\""), "Web SSO: \(secure.status)")
        _ = try await browser.get(info.sp.session)
        #expect(try await browser.get(info.sp.session, headers: [("Accept", "application/json")]).body.contains("\"attributes\""))
        _ = try await browser.get(info.idp.metadata)
        _ = try await browser.get(info.sp.metadata)

        // ECP: PAOS request, the IdP's SOAP endpoint with HTTP Basic, the PAOS ACS.
        browser.forgetCookies()
        let paosPage = try await browser.get(info.sp.secure + "/ecp",
                                             headers: [("Accept", PAOSHTTP.accept), (PAOSHTTP.paosHeaderName, PAOSHTTP.paosHeader)])
        let paos = try PAOSRequest.parse(Array(paosPage.body.utf8))
        let idpAnswer = try await browser.send("POST", info.idp.ecp, headers: [("Content-Type", SOAPBinding.contentType),
                                                                                ("Authorization", basic)],
                                               body: Array(SOAPBinding.envelope(body: paos.authnRequest).utf8))
        let ecp = try ECPResponse.parse(Array(idpAnswer.body.utf8))
        #expect(ecp.matches(paos))
        var relay = XMLWriter()
        relay.element("ecp:RelayState", ["xmlns:ecp": SAMLNamespace.ecp, "SOAP-ENV:mustUnderstand": "1",
                                         "SOAP-ENV:actor": SOAPBinding.nextActor], text: paos.relayState ?? "")
        let ecpDone = try await browser.send("POST", ecp.assertionConsumerServiceURL,
                                             headers: [("Content-Type", PAOSHTTP.contentType)],
                                             body: Array(SOAPBinding.envelope(body: ecp.response, headerBlocks: [relay.output]).utf8))
        #expect(ecpDone.status == 302, "ECP ACS: \(ecpDone.status) \(ecpDone.body.prefix(300))")

        // HTTP Basic, and Digest MD5 and SHA-256 with a fixed cnonce.
        #expect(try await browser.get(info.auth.basic + "page").status == 401)
        #expect(try await browser.get(info.auth.basic + "page", headers: [("Authorization", basic)]).status == 200)
        for (url, algorithm) in [(info.auth.digestMD5, HTTPDigestAlgorithm.md5), (info.auth.digestSHA256, .sha256)] {
            let challenge = try await browser.get(url + "page")
            let offer = try AuthParameters.parse(try #require(challenge.header("WWW-Authenticate")), expectToken68: false)
            let (realm, nonce) = (try #require(offer["realm"]), try #require(offer["nonce"]))
            let uri = try #require(URLComponents(string: url + "page")).percentEncodedPath
            let cnonce = "0a4f113b"
            let response = algorithm.response(username: alice.username, realm: realm, password: alice.password, method: "GET",
                                              uri: uri, nonce: nonce, nc: "00000001", cnonce: cnonce)
            let q = AuthParameters.quoted
            let authorization = "Digest username=\(q(alice.username)), realm=\(q(realm)), nonce=\(q(nonce)), uri=\(q(uri)), "
                + "algorithm=\(algorithm.rawValue), qop=auth, nc=00000001, cnonce=\(q(cnonce)), response=\(q(response)), "
                + "opaque=\(q(offer["opaque"] ?? ""))"
            let granted = try await browser.get(url + "page", headers: [("Authorization", authorization)])
            #expect(granted.status == 200, "Digest \(algorithm.rawValue): \(granted.status) \(granted.body.prefix(300))")
        }

        // The forward proxy: 407 without Proxy-Authorization, then forwarded to the auth mock.
        // The origin is named by `Host` (the listener sees origin-form targets, see Upstream).
        let origin = String(info.auth.base.dropFirst("http://".count))
        let target = info.proxy.url + "/basic/page"
        #expect(try await browser.get(target, headers: [("Host", origin)]).status == 407)
        let proxyAuthorization = BasicCredentials(username: info.proxy.username, password: info.proxy.password).headerValue
        let forwarded = try await browser.get(target, headers: [("Host", origin), ("Proxy-Authorization", proxyAuthorization),
                                                                ("Authorization", basic)])
        #expect(forwarded.status == 200, "through the proxy: \(forwarded.status)")

        // CAS REST: a TGT, service tickets validated by CAS 2, CAS 3 (XML and JSON) and samlValidate.
        let tgtPage = try await browser.post(info.cas.tickets, form: QueryParameter.formEncoded([("username", alice.username),
                                                                                                 ("password", alice.password)]))
        let tgt = try #require(tgtPage.location, "CAS REST: \(tgtPage.status)")
        let service = info.cas.service
        for validation in [info.cas.serviceValidate + "?", info.cas.p3ServiceValidate + "?", info.cas.p3ServiceValidate + "?format=JSON&"] {
            let ticket = try await browser.post(tgt, form: QueryParameter.formEncoded([("service", service)])).body
            let answer = try await browser.get(validation + "ticket=" + enc(ticket) + "&service=" + enc(service))
            #expect(answer.body.contains("authenticationSuccess"), "\(validation): \(answer.body.prefix(300))")
        }
        let samlTicket = try await browser.post(tgt, form: QueryParameter.formEncoded([("service", service)])).body
        let samlRequest = """
            <SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Header/><SOAP-ENV:Body>\
            <samlp:Request xmlns:samlp="urn:oasis:names:tc:SAML:1.0:protocol" MajorVersion="1" MinorVersion="1" \
            RequestID="_192.168.16.51.1024506224022" IssueInstant="\(SAMLDateTime.string(from: clock))">\
            <samlp:AssertionArtifact>\(samlTicket)</samlp:AssertionArtifact></samlp:Request></SOAP-ENV:Body></SOAP-ENV:Envelope>
            """
        let samlAnswer = try await browser.send("POST", info.cas.samlValidate + "?TARGET=" + enc(service),
                                                headers: [("Content-Type", "text/xml")], body: Array(samlRequest.utf8))
        #expect(samlAnswer.body.contains("saml1p:Success"), "samlValidate: \(samlAnswer.body.prefix(300))")

        // CAS in the browser: the application, the login form, the ticket, the application's page.
        let casForm = try await browser.follow(try await browser.get(service))
        let casPosted = try await browser.submit(casForm, values: ["username": alice.username, "password": alice.password])
        let casPage = try await browser.follow(casPosted)
        #expect(casPage.status == 200 && casPage.body.contains("Session secret"), "CAS login: \(casPage.status)")

        // AD FS: WS-Trust 1.3 RSTs (SAML 1.1 and 2.0 tokens), metadata, an error page, and
        // IdP-initiated sign-on to the SP.
        for tokenType in [nil, "urn:oasis:names:tc:SAML:2.0:assertion"] {
            let rst = ADFSTestSupport.RST(username: alice.username, passwordXML: XMLWriter.escapeText(alice.password),
                                          appliesTo: info.sp.entityID, tokenType: tokenType, created: clock)
            let answer = try await browser.send("POST", info.adfs.usernameMixed13,
                                                headers: [("Content-Type", "application/soap+xml; charset=utf-8")],
                                                body: Array(ADFSTestSupport.envelope(rst, to: info.adfs.usernameMixed13).utf8))
            #expect(answer.status == 200 && answer.body.contains("RequestSecurityTokenResponseCollection"),
                    "WS-Trust: \(answer.status) \(answer.body.prefix(300))")
        }
        _ = try await browser.get(info.adfs.federationMetadata)
        #expect(try await browser.get(info.adfs.base + "/adfs/ls/").status == 400)
        let signIn = try await browser.get(info.adfs.idpInitiatedSignOn + "?loginToRp=" + enc(info.sp.entityID))
        let signedIn = try await browser.submit(signIn, values: ["UserName": alice.username, "Password": alice.password])
        let autoPost = try await browser.follow(signedIn)
        let adfsDone = try await browser.submit(autoPost)
        #expect(adfsDone.status == 302, "IdP-initiated sign-on: \(adfsDone.status) \(adfsDone.body.prefix(300))")

        // The circulation manager: authentication document, SAML login, borrow, fulfil, loans.
        let document = try await browser.get(info.cm.authenticationDocument)
        let links = CirculationManagerFixture.authenticateLinks(CirculationManagerFixture.json(document.body))
        let cmStart = try await browser.get(try #require(links.first) + "&redirect_uri="
                                            + PercentEncoding.formEncode(CirculationManagerFixture.redirectURI))
        let login = try CirculationManagerFixture.token(from: try await SuiteFixture.completeLogin(browser, from: cmStart, user: alice))
        let bearer = CirculationManagerFixture.bearer(login.token)
        #expect(try await browser.send("PUT", info.cm.base + CirculationManager.Path.borrow("1"), headers: bearer, body: nil).status == 201)
        let book = try await browser.get(info.cm.base + CirculationManager.Path.fulfill("1", mechanism: "1"), headers: bearer)
        #expect(book.status == 200 && book.header("Content-Type") == "application/epub+zip", "fulfil: \(book.status)")
        _ = try await browser.get(info.cm.loans, headers: bearer)
        _ = try await browser.get(info.cm.catalog)

        // Logout through the IdP (signed LogoutRequest and LogoutResponse), and the control API.
        _ = try await browser.follow(try await browser.get(info.sp.logout + "?return=" + enc("/secure")))
        #expect(try await browser.get(info.control.state).status == 200)
    }
}
