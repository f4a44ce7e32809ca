import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// Placeholders, shapes, re-timing, matching.
@Suite struct RecordedTemplateTests {
    @Test func literalBracketsAreEscapedAndPlaceholdersParsed() throws {
        let recorded = "a ⟦ b ⟧ c ⟦⟦ d"
        let template = ReplayTemplate.escape(recorded) + ReplayTemplate.placeholder("relay_state", .url)
        #expect(template == "a ⟦⟦ b ⟧ c ⟦⟦⟦⟦ d⟦relay_state|url⟧")
        let segments = try ReplayTemplate.parse(template)
        #expect(segments == [.literal(recorded), .placeholder(.init(name: "relay_state", filter: .url))])
        #expect(ReplayTemplate.join(segments) == template)
        let rendered = try ReplayTemplate.render(template) { _ in "ss:mem:a b/c" }
        #expect(rendered == recorded + "ss%3Amem%3Aa%20b%2Fc")
    }

    @Test func filtersEncodeForTheirPlace() {
        let value = "a&b <c> \"d\" +/="
        #expect(ReplayTemplate.encode(value, .url) == "a%26b%20%3Cc%3E%20%22d%22%20%2B%2F%3D")
        #expect(ReplayTemplate.encode(value, .form) == "a%26b+%3Cc%3E+%22d%22+%2B%2F%3D")
        #expect(ReplayTemplate.encode(value, .html) == "a&amp;b &lt;c&gt; &quot;d&quot; +/=")
        #expect(ReplayTemplate.encode("say \"hi\"\n", .json) == "say \\\"hi\\\"\\n")
    }

    @Test func badTemplatesAreErrorsWithAnOffset() {
        #expect(throws: ReplayTemplate.SyntaxError.self) { try ReplayTemplate.parse("abc ⟦name") }
        #expect(throws: ReplayTemplate.SyntaxError.self) { try ReplayTemplate.parse("⟦bad name⟧") }
        #expect(throws: ReplayTemplate.SyntaxError.self) { try ReplayTemplate.parse("⟦name|rot13⟧") }
        do {
            _ = try ReplayTemplate.parse("0123⟦x|nope⟧")
        } catch let error as ReplayTemplate.SyntaxError {
            #expect(error.offset == 4 && error.message.contains("unknown filter `nope`"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func substitutionRespectsWordBoundariesAndEncodings() {
        let segments = ImportBuilder.substitute("Remember: member; MEMBER member%40x a+b a%2Bb", [
            ("member", { _ in "⟦aff⟧" }), ("a+b", { filter in filter.map { "⟦v|\($0.rawValue)⟧" } ?? "⟦v⟧" }),
        ])
        let text = segments.map { segment -> String in
            switch segment {
            case .literal(let text): text
            case .placeholder(let placeholder): "{\(placeholder.name)\(placeholder.filter.map { "|" + $0.rawValue } ?? "")}"
            }
        }.joined()
        // `Remember` and `MEMBER` untouched; a short value only between non-word characters.
        #expect(text == "Remember: {aff}; MEMBER {aff}%40x {v} {v|url}")
        let chain = ImportBuilder.split("xmemberx member", at: "member", boundaries: true)
        #expect(chain == ["xmemberx ", nil, ""])
    }

    @Test func shapesAreInferredAndGeneratedRepeatably() {
        #expect(ValueShape.infer(from: "_038026f9c4672b307cad7ea880065cd0") == .init(prefix: "_", length: 32, alphabet: .hexLower))
        #expect(ValueShape.infer(from: "ST-12-aB3dE5fG7hJ9kL1mN3pQ") == .init(prefix: "ST-12-", length: 20, alphabet: .alphanumeric))
        #expect(ValueShape.infer(from: "ss:mem:f112c4fb8e09fa4a") == .init(prefix: "ss:mem:", length: 16, alphabet: .hexLower))
        #expect(ValueShape.infer(from: "dGVzdCB2YWx1ZQ==") == .init(prefix: "", length: 14, alphabet: .alphanumeric, suffix: "=="))
        #expect(ValueShape.trailingDigits(of: "e1s12") == .init(prefix: "e1s", length: 2, alphabet: .digits))
        let shape = ValueShape(prefix: "LT-1-", length: 24, alphabet: .base64URL)
        let a = shape.generate(using: SeededIDGenerator(seed: 42))
        let b = shape.generate(using: SeededIDGenerator(seed: 42))
        let c = shape.generate(using: SeededIDGenerator(seed: 43))
        #expect(a == b && a != c)
        #expect(a.hasPrefix("LT-1-") && a.count == 29 && ValueShape.infer(from: a).prefix == "LT-1-")
    }

    @Test func retimingPreservesTheDeltas() async throws {
        let result = try ChainImporter.importData(RecordedHARShapes.har(chrome: false), file: "u.har",
                                                  options: .init(scenarioID: "retime"))
        let now = try SAMLDateTime.date(from: "2031-07-01T12:00:00Z")
        let keys = try ReplayKeys.load(mockIdPDirectory: SuiteFixture.mockIdP)
        let engine = ReplayEngine(chain: result.chain, keys: keys, clock: FixedClock(now), ids: SeededIDGenerator(seed: 1))
        var state = ReplayEngine.State()
        state.values["authn_request_id"] = "_bound0000000000000000000000000001"
        let message = try #require(result.chain.message(named: "response"))
        let encoded = try engine.renderMessage(message, filter: .base64, state: &state, now: now)
        let root = try XMLDocument(parsing: try SAMLBase64.decode(encoded)).root
        func time(_ element: String, _ attribute: String) throws -> TimeInterval {
            let found = try #require(root.descendants(element, SAMLNamespace.assertion).first ?? (root.localName == element ? root : nil))
            return try SAMLDateTime.date(from: try #require(found.attribute(attribute))).timeIntervalSince(now)
        }
        #expect(try SAMLDateTime.date(from: try #require(root.attribute("IssueInstant"))) == now)
        #expect(try time("AuthnStatement", "AuthnInstant") == -120)
        #expect(try time("Conditions", "NotBefore") == -5)
        #expect(try time("Conditions", "NotOnOrAfter") == 300)
        #expect(try time("SubjectConfirmationData", "NotOnOrAfter") == 300)
        // InResponseTo is the value bound from the client; the IDs are fresh and repeatable.
        #expect(root.attribute("InResponseTo") == "_bound0000000000000000000000000001")
        #expect(root.attribute("ID") != "_r0000000000000000000000000000001")
        #expect(state.served["response"] == Array(try SAMLBase64.decode(encoded)))
    }

    // MARK: - Matching

    /// Two GETs of /a, a form POST to /a, on one origin.
    static func matchingScenario() -> Scenario {
        func entry(_ number: Int, _ method: String, _ path: String, query: [String] = [], form: [String]? = nil,
                   body: String) -> RecordedChain.Entry {
            .init(number: number, sourceIndex: number - 1, origin: "app",
                  request: .init(method: method, path: path, query: query, form: form),
                  response: .init(status: 200, headers: [.init(name: "Content-Type", value: "text/plain")], body: body))
        }
        let chain = RecordedChain(
            source: .init(format: .har, file: "m.har", imported: "2025-01-01T00:00:00Z"),
            origins: [.init(name: "app", url: "https://app.example.org", role: .other)], resign: false,
            entries: [entry(1, "GET", "/a", body: "first"), entry(2, "GET", "/a", body: "second"),
                      entry(3, "POST", "/a", form: ["x"], body: "posted"),
                      entry(4, "GET", "/b", query: ["q"], body: "link https://app.example.org/b?q=1")])
        return Scenario(id: "matching", title: "matching order", description: String(repeating: "matching ", count: 6),
                        tags: ["recorded"], flow: .replay, expect: .init(outcome: .success),
                        checks: [.init(id: "flow.resource-obtained")], replay: chain)
    }

    @Test func requestsTakeTheNextUnusedEntryThenTheLast() async throws {
        let log = TrafficLog()
        try await RecordedSupport.withReplay(Self.matchingScenario(), log: log) { session in
            let base = try #require(session.originMap["https://app.example.org"])
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            #expect(try await browser.get(base + "/a").body == "first")
            #expect(try await browser.get(base + "/a").body == "second")
            #expect(try await browser.get(base + "/a").body == "second")
            #expect(try await browser.post(base + "/a", form: "x=anything").body == "posted")
            // Values never matter, keys do; origins in bodies are rewritten.
            #expect(try await browser.get(base + "/b?q=other").body == "link \(base)/b?q=1")
            #expect(log.entries.compactMap { $0.annotations["replay.entry"] } == ["1", "2", "2", "3", "4"])
            session.reset()
            #expect(try await browser.get(base + "/a").body == "first")
        }
    }

    @Test func anUnmatchedRequestGetsA404NamingTheClosest() async throws {
        let log = TrafficLog()
        try await RecordedSupport.withReplay(Self.matchingScenario(), log: log) { session in
            let base = try #require(session.originMap["https://app.example.org"])
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let page = try await browser.post(base + "/a", form: "y=1")
            #expect(page.status == 404)
            #expect(page.body.contains("POST /a query [] form [y]"))
            #expect(page.body.contains("entry 3: POST /a form [x] on app"))
            let unmatched = try #require(log.entries.last)
            #expect(unmatched.annotations["replay.unmatched"] == "POST /a")
            #expect(unmatched.annotations["replay.closest"]?.hasPrefix("3") == true)
            #expect(try await browser.get(base + "/a?extra=1").status == 404)
            #expect(try await browser.get(base + ReplaySession.certificatePath).body.contains("BEGIN CERTIFICATE"))
        }
    }

    @Test func anInconsistentChainDoesNotStart() async throws {
        var scenario = Self.matchingScenario()
        scenario.replay?.entries[0].response.body = "⟦missing_variable⟧ and ⟦msg.nothing|base64⟧"
        scenario.replay?.entries[1].origin = "nowhere"
        do {
            _ = try await ReplaySession.start(scenario: scenario, mockIdPDirectory: SuiteFixture.mockIdP)
            Issue.record("started")
        } catch {
            let text = "\(error)"
            #expect(text.contains("entry 1 body: no variable `missing_variable`"))
            #expect(text.contains("entry 1 body: no message `nothing`"))
            #expect(text.contains("entry 2: no origin `nowhere`"))
        }
    }

    @Test func originsAreRewrittenInEveryEncodingButNotPastTheHost() {
        let rewriter = OriginRewriter(map: ["https://idp.example.edu": "http://127.0.0.1:4000"])
        let text = """
        https://idp.example.edu/sso https://idp.example.edu:443/x https%3A%2F%2Fidp.example.edu%2Fy \
        https&#x3a;&#x2f;&#x2f;idp.example.edu&#x2f;z https:\\/\\/idp.example.edu\\/j \
        https://idp.example.edu.evil.test/ https://idp.example.edu:8443/ https://idp.example.education/
        """
        #expect(rewriter.rewrite(text) == """
        http://127.0.0.1:4000/sso http://127.0.0.1:4000/x http%3A%2F%2F127.0.0.1%3A4000%2Fy \
        http://127.0.0.1:4000&#x2f;z http:\\/\\/127.0.0.1:4000\\/j \
        https://idp.example.edu.evil.test/ https://idp.example.edu:8443/ https://idp.example.education/
        """)
        #expect(ReplayEngine.loopbackCookie("a=1; Path=/; Domain=.example.edu; Secure; HttpOnly; SameSite=None; Expires=Wed, 21 Oct 2099 07:28:00 GMT")
            == "a=1; Path=/; HttpOnly")
        #expect(ReplayEngine.loopbackCookie("a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax")
            == "a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax")
    }
}
