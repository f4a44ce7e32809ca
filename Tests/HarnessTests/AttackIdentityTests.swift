import Foundation
@testable import Harness
import SAMLCore
import TestSupport
import Testing

/// `attack-sp` judges an attack that forges an identity by who the SP logged in, never by the
/// success page alone (issue 17 item 15): the forged identity is ACCEPTED, the signed subject
/// is `ignored-forgery`, nobody known is `inconclusive`. Acceptances a product documents as
/// its default are `policy`. In-process, against scripted SPs.
@Suite struct AttackIdentityTests {
    static let acs = "http://sp.test:8080/acs"
    static let sessionURL = "http://sp.test:8080/session"

    static func runner(_ sp: ScriptedSP, identity: AttackIdentitySources = AttackIdentitySources(),
                       product: SPProduct? = nil, detect: Bool = true, only: [String] = []) throws -> AttackSPRunner {
        let (material, _) = try AttackCatalogTests.material(acs: acs, clock: SystemClock())
        return AttackSPRunner(
            target: try AttackTarget(acsURL: acs, spEntityID: AttackCatalogTests.spEntityID), material: material,
            attacks: only.isEmpty ? AttackCatalog.all : try AttackSPRunner.select(only),
            judge: try AttackJudge(successPattern: "Welcome", failurePattern: nil),
            browser: AttackBrowser(transport: sp), identity: identity, product: product, detectProduct: detect)
    }

    static func outcomes(_ report: AttackReport) -> [String: AttackOutcome] {
        Dictionary(uniqueKeysWithValues: report.results.map { ($0.id, $0.outcome) })
    }

    @Test func identitiesAreFoundWholeOnly() {
        #expect(IdentityText.mentions("Welcome admin@example.org</h1>", "admin@example.org"))
        #expect(IdentityText.mentions("user admin@example.org.", "admin@example.org"))
        #expect(IdentityText.mentions("2026|Login|admin@example.org|_s1", "admin@example.org"))
        #expect(!IdentityText.mentions("admin@example.org.attacker.example", "admin@example.org"))
        #expect(!IdentityText.mentions("xadmin@example.org", "admin@example.org"))
        #expect(!IdentityText.mentions("admin@example.org-2", "admin@example.org"))
        #expect(IdentityText.decodeEntities("opensaml&#58;&#58;X &lt;a&gt; &#x40; &bogus; &") == "opensaml::X <a> @ &bogus; &")
    }

    /// The attacks whose Response forges the victim's identity: every one but those that keep
    /// the signed subject and change something else.
    @Test func forgedIdentityCoversTheWrappingAndInjectionAttacks() throws {
        let runner = try Self.runner(ScriptedSP(.naive))
        let keepSubject = ["sha1-downgrade", "replay", "wrong-audience", "wrong-recipient", "wrong-destination", "expired",
                           "forged-in-response-to"]
        for attack in AttackCatalog.all {
            let forged = runner.forgedIdentity(try attack.generate(runner.material))
            #expect((forged == nil) == keepSubject.contains(attack.id), "\(attack.id)")
            if attack.id == "nameid-comment" { #expect(forged?.1 == "admin@example.org.attacker.example") }
        }
    }

    /// A success page that names nobody cannot tell a forged login from the signed one.
    @Test func aLoginNobodyNamesIsInconclusiveNeverAccepted() async throws {
        let report = try await Self.runner(ScriptedSP(.naive, page: { _ in "<h1>Welcome</h1>" })).run()
        let outcomes = Self.outcomes(report)
        for id in ["xsw3", "signature-exclusion", "second-assertion", "nameid-comment"] {
            #expect(outcomes[id] == .inconclusive, "\(id)")
        }
        #expect(report.results.first { $0.id == "xsw3" }?.evidence.detail.contains("nothing shows whom") == true)
        // What keeps the signed subject is judged by the login itself.
        #expect(outcomes["sha1-downgrade"] == .accepted)
        #expect(!report.results.contains { $0.outcome == .accepted && runnerForges($0.id) })
        #expect(report.exitCode == 1)
    }

    func runnerForges(_ id: String) -> Bool {
        !["sha1-downgrade", "replay", "wrong-audience", "wrong-recipient", "wrong-destination", "expired", "forged-in-response-to"].contains(id)
    }

    /// An SP that logs in the signed subject whatever was added: the forgery was ignored.
    @Test func aLoginAsTheSignedSubjectIsIgnoredForgery() async throws {
        let report = try await Self.runner(ScriptedSP(.signedOnly)).run()
        let outcomes = Self.outcomes(report)
        for id in ["xsw3", "xsw5", "second-assertion", "duplicate-ids", "assertion-in-extensions"] {
            #expect(outcomes[id] == .ignoredForgery, "\(id): \(report.table())")
        }
        #expect(outcomes["nameid-comment"] == .readWhole)
        #expect(report.results.first { $0.id == "xsw3" }?.loggedInAs == "alice@example.org (page)")
        #expect(report.vulnerable.map(\.id).allSatisfy { !runnerForges($0) }, "\(report.table())")
    }

    /// The naive SP logs in the first NameID: the victim, which the page names.
    @Test func aLoginAsTheVictimIsAccepted() async throws {
        let report = try await Self.runner(ScriptedSP(.naive)).run()
        let outcomes = Self.outcomes(report)
        #expect(outcomes["xsw3"] == .accepted)
        #expect(outcomes["signature-exclusion"] == .accepted)
        #expect(report.results.first { $0.id == "xsw3" }?.loggedInAs == "admin@example.org (page)")
        let comment = try #require(report.results.first { $0.id == "nameid-comment" })
        #expect(comment.outcome == .accepted && comment.evidence.detail.contains("text before the comment"), "\(comment.evidence)")
    }

    /// The SP's session page and log tell who, when the page does not.
    @Test func theSessionPageAndTheSPLogTellWho() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("attack-log-\(UUID().uuidString)")
        try Data("old line admin@example.org\n".utf8).write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        let identity = try AttackIdentitySources(identityPattern: nil, sessionURL: Self.sessionURL, spLog: log.path, acsURL: Self.acs)
        let naive = try await Self.runner(ScriptedSP(.naive, page: { _ in "<h1>Welcome</h1>" }, log: log), identity: identity,
                                          only: ["xsw3", "sha1-downgrade"]).run()
        #expect(naive.baseline.detail.contains("logged in as alice@example.org (session, sp-log)"), "\(naive.baseline)")
        #expect(naive.results.first { $0.id == "xsw3" }?.outcome == .accepted)
        #expect(naive.results.first { $0.id == "xsw3" }?.loggedInAs == "admin@example.org (session, sp-log)")
        let signed = try await Self.runner(ScriptedSP(.signedOnly, page: { _ in "<h1>Welcome</h1>" }, log: log), identity: identity,
                                           only: ["xsw3"]).run()
        #expect(signed.results.first?.outcome == .ignoredForgery, "\(signed.table())")
    }

    /// A refusal page quoting the forged NameID is no login; the SP's own session is.
    @Test func aRefusalNamingTheVictimIsARejection() async throws {
        let refusing = ScriptedSP(.refuseForged)
        let report = try await Self.runner(refusing, only: ["xsw3"]).run()
        #expect(report.results.first?.outcome == .rejected, "\(report.table())")
    }

    @Test func identityPatternCapturesTheUser() async throws {
        let sp = ScriptedSP(.naive, page: { "<h1>Welcome</h1><p>user: <b>\($0)</b></p>" })
        let identity = try AttackIdentitySources(identityPattern: "user: <b>([^<]+)</b>", sessionURL: nil, spLog: nil, acsURL: Self.acs)
        let report = try await Self.runner(sp, identity: identity, only: ["xsw3", "nameid-comment"]).run()
        #expect(report.results.map(\.outcome) == [.accepted, .accepted])
        #expect(report.results.first?.loggedInAs == "admin@example.org (identity-pattern)")
        // A pattern that does not see the baseline's user cannot judge: the run stops.
        let blind = try AttackIdentitySources(identityPattern: "uid=(\\w+)", sessionURL: nil, spLog: nil, acsURL: Self.acs)
        await #expect(throws: AttackSPError.self) { _ = try await Self.runner(sp, identity: blind, only: ["xsw3"]).run() }
        #expect(throws: AttackSPError.self) {
            _ = try AttackIdentitySources(identityPattern: nil, sessionURL: "http://other.test/session", spLog: nil, acsURL: Self.acs)
        }
        #expect(throws: AttackSPError.self) {
            _ = try AttackIdentitySources(identityPattern: "(a)(b)", sessionURL: nil, spLog: nil, acsURL: Self.acs)
        }
    }

    /// Shibboleth SP (known by its `_shibsession_` cookie, or named) documents accepting SHA-1
    /// and uncorrelated InResponseTo by default: `policy`, with the setting, exit 0.
    @Test func documentedDefaultsArePolicyWithTheSetting() async throws {
        let only = ["sha1-downgrade", "forged-in-response-to", "xsw3"]
        let shib = try await Self.runner(ScriptedSP(.signedOnly, cookie: "_shibsession_64656661756c74"), only: only).run()
        #expect(shib.verdictLines == ["xsw3 ignored-forgery", "sha1-downgrade policy", "forged-in-response-to policy"], "\(shib.table())")
        #expect(shib.product == "shibboleth-sp" && shib.productSource == "detected: _shibsession_ cookie")
        #expect(shib.results[1].policy?.setting.contains("<ExcludedAlgorithms>") == true)
        #expect(shib.results[2].policy?.setting.contains("checkCorrelation") == true)
        #expect(shib.exitCode(failOnPolicy: false) == 0 && shib.exitCode(failOnPolicy: true) == 1)
        #expect(shib.table().contains("POLICY (accepted as shibboleth-sp documents by default"))
        #expect(!shib.table().contains("VULNERABLE"))

        let unknown = try await Self.runner(ScriptedSP(.signedOnly), only: only).run()
        #expect(unknown.verdictLines == ["xsw3 ignored-forgery", "sha1-downgrade ACCEPTED", "forged-in-response-to ACCEPTED"])
        let notDetected = try await Self.runner(ScriptedSP(.signedOnly, cookie: "_shibsession_1"), detect: false, only: only).run()
        #expect(notDetected.product == nil && notDetected.exitCode == 1)
        let named = try await Self.runner(ScriptedSP(.signedOnly), product: .python3SAML, only: only).run()
        #expect(named.verdictLines == ["xsw3 ignored-forgery", "sha1-downgrade policy", "forged-in-response-to policy"])
        #expect(named.productSource == "--sp-product")
        // Forging an identity is never a policy.
        for product in SPProduct.allCases {
            for attack in AttackCatalog.all where runnerForges(attack.id) { #expect(product.policy(for: attack.id) == nil) }
        }
    }
}

/// An SP played in-process: it reads the posted Response's NameIDs and logs in whom its mode
/// says, with a session cookie, a session page (`/session`) and optionally a log line.
final class ScriptedSP: AttackHTTPTransport, @unchecked Sendable {
    enum Mode {
        /// The first NameID text in document order (the forged one, when there is one).
        case naive
        /// The whole NameID `nameid-comment` signs, else the signed subject when the Response
        /// carries it anywhere (ignoring what was added); refuses a Response with neither.
        case signedOnly
        /// Logs in the first NameID when it is the signed subject; refuses any other with a page
        /// quoting it.
        case refuseForged
    }

    let mode: Mode
    let page: @Sendable (String) -> String
    let log: URL?
    let cookie: String
    private let lock = NSLock()
    private var sessions: [String: String] = [:]

    init(_ mode: Mode, page: @escaping @Sendable (String) -> String = { "<h1>Welcome \($0)</h1>" }, log: URL? = nil,
         cookie: String = "sid") {
        self.mode = mode
        self.page = page
        self.log = log
        self.cookie = cookie
    }

    func send(_ request: AttackHTTPRequest) async throws -> AttackHTTPResponse {
        if request.method == "GET" {
            let sent = request.headers.first { $0.name == "Cookie" }?.value.split(separator: "=").last.map(String.init)
            let user = sent.flatMap { key in lock.withLock { sessions[key] } }
            return AttackHTTPResponse(status: 200, body: Array((user.map { "<pre>NameID: \($0)\nmail: \($0)</pre>" } ?? "no session").utf8))
        }
        let xml = Self.response(request.body)
        let first = Self.firstNameID(xml)
        let user: String? = switch mode {
        case .naive: first
        case .signedOnly: xml.contains("attacker.example") ? "admin@example.org.attacker.example"
            : xml.contains(">alice@example.org<") ? "alice@example.org" : nil
        case .refuseForged: first == "alice@example.org" ? first : nil
        }
        guard let user else {
            return AttackHTTPResponse(status: 403, body: Array("<p>Login refused for \(first)</p>".utf8))
        }
        let key = UUID().uuidString
        lock.withLock { sessions[key] = user }
        if let log, let handle = try? FileHandle(forWritingTo: log) {
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data("login|\(user)|ok\n".utf8))
            try? handle.close()
        }
        return AttackHTTPResponse(status: 200, headers: [("Set-Cookie", "\(cookie)=\(key); Path=/")], body: Array(page(user).utf8))
    }

    static func response(_ form: [UInt8]) -> String {
        let text = String(decoding: form, as: UTF8.self)
        let value = text.split(separator: "&").first { $0.hasPrefix("SAMLResponse=") }.map {
            PercentEncoding.formDecode(String($0.dropFirst("SAMLResponse=".count)))
        } ?? ""
        return (try? SAMLBase64.decode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The text up to the next '<' after the first NameID start tag.
    static func firstNameID(_ xml: String) -> String {
        guard let start = xml.range(of: "NameID"), let open = xml[start.upperBound...].firstIndex(of: ">") else { return "nobody" }
        return String(xml[xml.index(after: open)...].prefix { $0 != "<" })
    }
}
