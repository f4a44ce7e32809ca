import Foundation
import Harness
import MockServers
import SAMLCore
import TestSupport
import Testing

/// The attack catalog against SAMLCore's strict validator and the mock SP: every attack is
/// refused with the reason code the catalog names (`nameid-comment`, whose signature is
/// genuine, is accepted as the whole NameID), and the valid baseline is accepted.
@Suite struct AttackCatalogTests {
    static let spEntityID = "https://sp.example.org/shibboleth"
    static let acsURL = "https://sp.example.org/Shibboleth.sso/SAML2/POST"
    static let idpEntityID = "https://idp.example.org/idp/shibboleth"
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    static func material(idp: String = idpEntityID, sp: String = spEntityID, acs: String = acsURL,
                         clock: SAMLClock = FixedClock(now), seed: UInt64 = 8) throws -> (AttackMaterial, LoadedProfile) {
        let loaded = try SuiteFixture.profile("shibboleth")
        let material = AttackMaterial(
            idpEntityID: idp, spEntityID: sp, acsURL: acs,
            signer: XMLSigner(key: loaded.idpKey, certificate: loaded.idpCertificate),
            attackerSigner: XMLSigner(key: loaded.otherKey, certificate: loaded.otherCertificate),
            clock: clock, ids: SeededIDGenerator(seed: seed))
        return (material, loaded)
    }

    static func validator(_ loaded: LoadedProfile) -> SPValidator {
        SPValidator(configuration: .init(
            idpEntityID: idpEntityID, idpKeys: [loaded.idpCertificate.publicKey], spEntityID: spEntityID,
            acsURL: acsURL, allowUnsolicited: true, clock: FixedClock(now), replayCache: ReplayCache()))
    }

    @Test func catalogIDsAreStableAndComplete() {
        #expect(AttackCatalog.ids == [
            "xsw1", "xsw2", "xsw3", "xsw4", "xsw5", "xsw6", "xsw7", "xsw8", "nameid-comment", "signature-exclusion",
            "keyinfo-cert-confusion", "reference-other-id", "duplicate-ids", "transform-xslt", "transform-xpath",
            "sha1-downgrade", "replay", "wrong-audience", "wrong-recipient", "wrong-destination", "expired",
            "forged-in-response-to", "doctype-smuggled-assertion", "assertion-in-extensions", "second-assertion",
        ])
        for attack in AttackCatalog.all {
            #expect(!attack.summary.isEmpty && !attack.reference.isEmpty, "\(attack.id)")
        }
    }

    @Test func strictValidatorAcceptsTheBaseline() throws {
        let (material, loaded) = try Self.material()
        let result = Self.validator(loaded).validate(Array(try material.validResponse().utf8))
        #expect(try result.get().nameID.value == "alice@example.org")
    }

    @Test(arguments: AttackCatalog.ids)
    func strictValidatorRefusesEachAttack(_ id: String) throws {
        let (material, loaded) = try Self.material()
        let payload = try #require(AttackCatalog.attack(id)).generate(material)
        let validator = Self.validator(loaded)
        for primer in payload.responses.dropLast() {
            #expect(throws: Never.self, "\(id): the priming post must be valid") {
                _ = try validator.validateThrowing(Array(primer.utf8))
            }
        }
        let result = validator.validate(Array(payload.attackResponse.utf8))
        switch (payload.expectation, result) {
        case (.refused(let reason), .failure(let failure)):
            #expect(failure.code.rawValue == reason, "\(id): \(failure)")
        case (.readWhole(let whole, _), .success(let assertion)):
            #expect(assertion.nameID.value == whole, "\(id)")
        case (_, .success(let assertion)):
            Issue.record("\(id): the strict validator ACCEPTED the attack as \(assertion.nameID.value)")
        case (.readWhole, .failure(let failure)):
            Issue.record("\(id): a genuinely signed Response was refused: \(failure)")
        }
    }

    /// The forged Responses claim the victim's identity (those that forge one).
    @Test func forgedResponsesCarryTheVictim() throws {
        let (material, _) = try Self.material()
        for attack in AttackCatalog.all where !["replay", "wrong-audience", "wrong-recipient", "wrong-destination",
                                                "expired", "forged-in-response-to", "sha1-downgrade"].contains(attack.id) {
            let xml = try attack.generate(material).attackResponse
            #expect(xml.contains("admin@example.org"), "\(attack.id)")
        }
    }

    // MARK: The mock SP, in-process and over loopback

    static func hardened(_ profile: inout IdPProfile) { profile.sp.personality = "hardened" }

    /// Runs the whole catalog against the mock SP's ACS through ``AttackSPRunner`` (in-process,
    /// no socket).
    static func runCatalog(_ suite: MockSuite) async throws -> (AttackReport, [String: String]) {
        let info = suite.readyInfo()
        let (material, _) = try Self.material(idp: info.idp.entityID, sp: info.sp.entityID, acs: info.sp.acs,
                                              clock: SystemClock())
        let transport = HandlerTransport(handler: suite.sp)
        let runner = AttackSPRunner(
            target: try AttackTarget(acsURL: info.sp.acs, spEntityID: info.sp.entityID), material: material,
            judge: try AttackJudge(successPattern: "id=\"nameid\"", failurePattern: nil),
            browser: AttackBrowser(transport: transport))
        return (try await runner.run(), transport.reasons())
    }

    /// The hardened mock SP refuses every attack with the catalog's reason code.
    @Test func mockSPRefusesTheWholeCatalogWithTheExpectedReasons() async throws {
        try await SuiteFixture.with("shibboleth", modify: Self.hardened) { suite, _ in
            let (report, reasons) = try await Self.runCatalog(suite)
            #expect(report.exitCode == 0, "\(report.table())")
            for result in report.results {
                let expected: AttackOutcome = result.id == "nameid-comment" ? .readWhole : .rejected
                #expect(result.outcome == expected, "\(result.id): \(result.evidence)")
            }
            // The reason the mock SP gave for each, from its traffic log (the last ACS answer per
            // attack). A Response issued an hour ago meets Shibboleth's MessageFlow rule first.
            for result in report.results where result.outcome == .rejected {
                let expected = result.id == "expired" ? "message.expired" : result.strictReason
                #expect(reasons[result.id] == expected, "\(result.id): the mock SP said \(reasons[result.id] ?? "nothing")")
            }
        }
    }

    /// With its default personality (stock Shibboleth SP 3) the mock SP reaches, attack for
    /// attack, the outcome a real Shibboleth SP 3.4.1 reached (AttackShibbolethTests.expected):
    /// it logs in the signed subject for xsw3 and second-assertion, and accepts SHA-1 and a
    /// forged InResponseTo as Shibboleth's documented defaults.
    @Test func theStockMockSPAnswersTheCatalogAsARealShibbolethSPDid() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let (report, _) = try await Self.runCatalog(suite)
            let expected = Dictionary(uniqueKeysWithValues: AttackShibbolethTests.expected.map { ($0.0, $0.1) })
            #expect(report.results.map(\.id) == AttackShibbolethTests.expected.map(\.0))
            for result in report.results {
                #expect(result.outcome == expected[result.id], "\(result.id): \(result.outcome.rawValue): \(result.evidence)")
            }
        }
    }

    @Test func attackSPAgainstTheMockSPReportsEveryAttackRejected() async throws {
        try await SuiteFixture.with("shibboleth", modify: Self.hardened) { suite, _ in
            let info = suite.readyInfo()
            let json = FileManager.default.temporaryDirectory.appendingPathComponent("attack-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: json) }
            let outcome = try await HarnessBinary.run([
                "attack-sp", "--acs", info.sp.acs, "--sp-entity-id", info.sp.entityID, "--idp-entity-id", info.idp.entityID,
                "--success-pattern", "id=\"nameid\"", "--failure-pattern", "Shibboleth Error", "--json-out", json.path,
                "--session-url", try #require(AttackBrowser.origin(of: info.sp.acs)) + "/Shibboleth.sso/Session",
                "--mockidp-dir", SuiteFixture.mockIdP.path,
            ], timeout: 120)
            #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
            let report = try JSONDecoder().decode(AttackReport.self, from: Data(contentsOf: json))
            #expect(report.results.count == AttackCatalog.all.count)
            #expect(report.results.allSatisfy { $0.outcome.isGood })
            #expect(report.results.first { $0.id == "nameid-comment" }?.outcome == .readWhole)
            #expect(outcome.stdout.contains("25 attacks: 24 rejected, 1 read-whole"), "\(outcome.stdout)")
            // The mock SP's session page (Shibboleth's handler) shows the baseline's user.
            #expect(report.baseline.detail.contains("logged in as alice@example.org (session, page)"), "\(report.baseline)")
            #expect(report.results.first { $0.id == "nameid-comment" }?.loggedInAs == "admin@example.org.attacker.example (session, page)")
            #expect(outcome.stderr.contains("the SP must trust IdP \(info.idp.entityID)"))
        }
    }

    @Test func attackSPAgainstALenientEndpointReportsAccepted() async throws {
        let servers = try await MockServerGroup.start([.init(handler: LenientSP(), name: "lenient")], log: TrafficLog())
        let base = try #require(servers.baseURL(of: "lenient"))
        do {
            let outcome = try await HarnessBinary.run([
                "attack-sp", "--acs", base + "/acs", "--sp-entity-id", "https://lenient.example.org/sp",
                "--success-pattern", "Welcome", "--only", "xsw3,signature-exclusion", "--only", "nameid-comment",
                "--mockidp-dir", SuiteFixture.mockIdP.path,
            ], timeout: 60)
            #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("xsw3 ") && $0.contains(" ACCEPTED ") }, "\(outcome.stdout)")
            #expect(lines.contains { $0.hasPrefix("signature-exclusion ") && $0.contains(" ACCEPTED ") })
            // The lenient page echoes the first text of the NameID: the truncated identity.
            #expect(lines.contains { $0.hasPrefix("nameid-comment ") && $0.contains(" ACCEPTED ") && $0.contains("text before the comment") })
            #expect(outcome.stdout.contains("VULNERABLE to: xsw3, nameid-comment, signature-exclusion"))
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    @Test func aRefusedBaselineStopsTheRunWithExit2() async throws {
        let servers = try await MockServerGroup.start([.init(handler: LenientSP(refuseAll: true), name: "lenient")], log: TrafficLog())
        let base = try #require(servers.baseURL(of: "lenient"))
        let outcome = try await HarnessBinary.run([
            "attack-sp", "--acs", base + "/acs", "--sp-entity-id", "https://lenient.example.org/sp",
            "--success-pattern", "Welcome", "--mockidp-dir", SuiteFixture.mockIdP.path,
        ], timeout: 60)
        await servers.stop()
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("the valid baseline Response was not accepted"), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
        let usage = try await HarnessBinary.run(["attack-sp", "--acs", "ftp://x/acs", "--sp-entity-id", "x", "--success-pattern", "y"])
        #expect(usage.status == 2)
        let unknown = try await HarnessBinary.run(["attack-sp", "--acs", base + "/acs", "--sp-entity-id", "x",
                                                   "--success-pattern", "y", "--only", "xsw9"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown attack id xsw9"))
    }

    @Test func targetFromSPMetadataAndIdPMetadataOut() async throws {
        let loaded = try SuiteFixture.profile("shibboleth")
        let environment = MockEnvironment(profile: loaded)
        environment.setBaseURL("http://127.0.0.1:8443", for: "sp")
        let metadata = MockSP.metadata(environment: environment).xml()
        let target = try AttackTarget.fromMetadata(Array(metadata.utf8), source: "sp.xml")
        #expect(target.acsURL == "http://127.0.0.1:8443/Shibboleth.sso/SAML2/POST")
        #expect(target.spEntityID == "http://127.0.0.1:8443/shibboleth")

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("idp-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: out) }
        let written = try await HarnessBinary.run(["attack-sp", "--idp-metadata-out", out.path,
                                                   "--mockidp-dir", SuiteFixture.mockIdP.path])
        #expect(written.status == 0, "\(written.stderr)")
        let idp = try LoadedProfile.parseMetadata(Array(try Data(contentsOf: out)), source: out.path)
        #expect(idp.first?.entityID == "https://idp.samlharness.test/idp/shibboleth")
        #expect(idp.first?.idpSSODescriptor?.keyDescriptors.first?.certificates.first == loaded.idpCertificate.base64DER)
    }
}

/// Routes ``AttackBrowser``'s requests to a mock in-process, and remembers the reason code the
/// mock SP annotated on each refusal.
final class HandlerTransport: AttackHTTPTransport, @unchecked Sendable {
    let handler: any MockHandler
    private let lock = NSLock()
    private var rejected: [String] = []

    init(handler: any MockHandler) { self.handler = handler }

    func send(_ request: AttackHTTPRequest) async throws -> AttackHTTPResponse {
        guard let components = URLComponents(string: request.url) else { throw URLError(.badURL) }
        let target = components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        let answer = await handler.handle(MockRequest(method: request.method, target: target, headers: request.headers,
                                                      body: request.body, origin: "http://\(components.host ?? ""):\(components.port ?? 80)"))
        if request.method == "POST" {
            lock.withLock { rejected.append(answer.annotations["sp.rejected"] ?? "accepted") }
        }
        return AttackHTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// Attack id → the mock SP's reason for the last POST of that attack, in catalog order
    /// (the first POST is the baseline; `replay` posts twice).
    func reasons() -> [String: String] {
        var posts = lock.withLock { rejected }.dropFirst()
        var map: [String: String] = [:]
        for attack in AttackCatalog.all {
            if attack.id == "replay" { posts = posts.dropFirst() }
            map[attack.id] = posts.popFirst()
        }
        return map
    }
}

/// An SP that checks nothing: it logs in whoever the first NameID text names.
struct LenientSP: MockHandler {
    let name = "lenient"
    var refuseAll = false

    func handle(_ request: MockRequest) async -> MockResponse {
        if refuseAll { return .html("<p>Forbidden</p>", status: 403) }
        let form = String(decoding: request.body, as: UTF8.self)
        let value = form.split(separator: "&").first { $0.hasPrefix("SAMLResponse=") }.map {
            PercentEncoding.formDecode(String($0.dropFirst("SAMLResponse=".count)))
        } ?? ""
        let xml = (try? SAMLBase64.decode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        // A naive reading: the text up to the next '<' after the first NameID start tag.
        var user = "nobody"
        if let start = xml.range(of: "NameID"), let open = xml[start.upperBound...].firstIndex(of: ">") {
            user = String(xml[xml.index(after: open)...].prefix { $0 != "<" })
        }
        return .html("<h1>Welcome \(HTMLText.escape(user))</h1>")
    }
}
