import Foundation
import Testing
import TestSupport
@testable import Harness

/// The writers on a synthetic run with hostile traffic: each format validates against its
/// published schema, the HTML escapes everything, secrets are masked by default.
@Suite struct ReportFormatTests {
    static let validators = ReportFixture.validatorsAvailable

    @Test(.enabled(if: validators, "no validator venv: run bash scripts/setup-report-tools.sh"))
    func jsonValidatesAgainstTheReportSchemaAndRoundTrips() async throws {
        let directory = try ReportFixture.directory("json")
        let files = try ReportWriter.write(ReportFixture.report(), formats: [.json], to: directory)
        #expect(files.map(\.lastPathComponent) == ["report.json"])
        try await ReportFixture.validate("json", schema: ReportFixture.reportSchema, document: files[0])
        let loaded = try ReportLoader.load(files[0].path)
        #expect(loaded.format == "samlharness-report")
        #expect(loaded.formatVersion == ConformanceReport.formatVersion)
        #expect(loaded.secretsMasked)
        #expect(loaded.runs[0].results.map(\.scenario) == ReportFixture.run().results.map(\.scenario))
        #expect(loaded.runs[0].results[0].trace?.exchanges.count == 4)
        #expect(loaded.runs[0].results[0].trace?.masked == true)
        // The run directory is an input too.
        #expect(try ReportLoader.load(directory.path) == loaded)
    }

    @Test(.enabled(if: validators, "no validator venv: run bash scripts/setup-report-tools.sh"))
    func junitValidatesAgainstTheJUnitXSD() async throws {
        let directory = try ReportFixture.directory("junit")
        let files = try ReportWriter.write(ReportFixture.report(), formats: [.junit], to: directory)
        try await ReportFixture.validate("xsd", schema: ReportFixture.fixtures.appendingPathComponent("junit-10.xsd").path,
                                         document: files[0])
        let xml = try String(contentsOf: files[0], encoding: .utf8)
        // One suite per flow; scenario × check testcases; failure / error / skipped.
        #expect(xml.components(separatedBy: "<testsuite ").count - 1 == 4)
        #expect(xml.contains("<failure type=\"encoding.form-percent-encoded\""))
        #expect(xml.contains("classname=\"web-sso.hostile&lt;script&gt;\" name=\"encoding.form-percent-encoded\""))
        #expect(xml.contains("<error type=\"scenario-error\" message=\"the client did not finish within 5 s\""))
        #expect(xml.contains("<skipped message=\"the client does not support flow adfs-wstrust\""))
        #expect(xml.contains("<skipped type=\"not-applicable\""))
        #expect(xml.contains("warning: recommended check failed: cookie dropped"))
        #expect(!xml.contains("\u{0}"))
        #expect(xml.contains("tests=\"8\" failures=\"2\" errors=\"1\""))
    }

    @Test(.enabled(if: validators, "no validator venv: run bash scripts/setup-report-tools.sh"))
    func sarifValidatesAgainstTheSARIF210Schema() async throws {
        let directory = try ReportFixture.directory("sarif")
        let files = try ReportWriter.write(ReportFixture.report(), formats: [.sarif], to: directory)
        try await ReportFixture.validate("json", schema: ReportFixture.fixtures.appendingPathComponent("sarif-schema-2.1.0.json").path,
                                         document: files[0])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: files[0])) as? [String: Any])
        #expect(object["version"] as? String == "2.1.0")
        let run = try #require((object["runs"] as? [[String: Any]])?.first)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["encoding.form-percent-encoded", "flow.consent-answered",
                                                         "flow.cookies-kept", "flow.resource-obtained"])
        #expect(rules[0]["helpUri"] as? String == "https://url.spec.whatwg.org/#application/x-www-form-urlencoded")
        let results = try #require(run["results"] as? [[String: Any]])
        // The failed checks: required → error, recommended → warning, the errored scenario's too.
        #expect(results.map { "\($0["ruleId"] ?? "") \($0["level"] ?? "")" }.sorted()
                == ["encoding.form-percent-encoded error", "flow.cookies-kept warning", "flow.resource-obtained error"])
        let location = try #require((results.first?["locations"] as? [[String: Any]])?.first?["logicalLocations"] as? [[String: Any]])
        #expect(location.first?["name"] as? String == "web-sso.hostile<script>")
    }

    @Test func htmlEscapesHostileTraffic() throws {
        let html = HTMLReportWriter.render(ReportWriter.masked(ReportFixture.report()))
        // Our one script, and nothing from the traffic became markup.
        #expect(html.components(separatedBy: "<script").count - 1 == 1)
        #expect(!html.contains("<img"))
        #expect(!html.contains("onerror=alert(1)>"))
        #expect(!html.contains("<samlp:Response>"))
        #expect(!html.contains("\u{0}"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("&lt;samlp:Response&gt;"))
        // Ids from the run are sanitised for anchors.
        #expect(html.contains("id=\"s-web-sso.hostile_script_\""))
        // The failing step: marked in the diagram and in the exchange list, with the explanation.
        #expect(html.contains("<a class=\"step failing\" href=\"#s-web-sso.hostile_script_-x1\""))
        #expect(html.contains("<details class=\"exchange failing\" id=\"s-web-sso.hostile_script_-x1\" open>"))
        #expect(html.contains("<div class=\"explanation\"><strong>encoding.form-percent-encoded</strong> failed"))
        // Self-contained: no external asset.
        #expect(!html.contains("src=\"http"))
        #expect(!html.contains("<link"))
    }

    @Test func secretsAreMaskedByDefaultAndShownOnRequest() throws {
        let directory = try ReportFixture.directory("mask")
        let report = ReportFixture.report()
        try ReportWriter.write(report, formats: ReportFormat.allCases, to: directory)
        let secrets = [ReportFixture.password, "s3cr%26t", "SPSTATECOOKIE", "IDPSESSIONCOOKIE", "OTHERCOOKIE",
                       "YWxpY2U6c2VjcmV0", "abcdefghijkl", "TOKENVALUE", "ACCESSTOKEN123", "SOMEOTHERPASSWORD"]
        for format in ReportFormat.allCases {
            let text = try String(contentsOf: directory.appendingPathComponent(format.fileName), encoding: .utf8)
            for secret in secrets { #expect(!text.contains(secret), "\(format.fileName) shows \(secret)") }
        }
        let json = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
        for kept in ["_idp_session=[masked]", "_shibstate_1=[masked]; Path=/; HttpOnly", "Basic [masked]", "ST-[masked]",
                     "Bearer [masked]", "access_token=[masked]&patron_info=x", "<o:Password>[masked]</o:Password>"] {
            #expect(json.contains(kept), "report.json lacks \(kept)")
        }
        // Masking is idempotent: a masked report read back and masked again is unchanged.
        let loaded = try ReportLoader.load(directory.appendingPathComponent("report.json").path)
        #expect(ReportWriter.masked(loaded) == loaded)

        let shown = try ReportFixture.directory("show")
        try ReportWriter.write(report, formats: [.json, .html], to: shown, showSecrets: true)
        let html = try String(contentsOf: shown.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("IDPSESSIONCOOKIE"))
        #expect(html.contains("Secrets are shown"))
        #expect(try ReportLoader.load(shown.path).secretsMasked == false)
    }

    @Test func markdownSummarisesFlowsAndLinksFailuresIntoTheHTML() {
        let markdown = MarkdownWriter.render(ReportWriter.masked(ReportFixture.report()))
        #expect(markdown.contains("| web-sso | 1 | 0 | 1 | 0 | 0 | 0 |"))
        #expect(markdown.contains("| **all** | 4 | 1 | 1 | 0 | 1 | 1 |"))
        #expect(markdown.contains("[`encoding.form-percent-encoded`](report.html#s-web-sso.hostile_script_-x1)"))
        #expect(markdown.contains("⚠️ error [`ecp.timeout`](report.html#s-ecp.timeout)"))
        // Reasons are HTML-escaped; ids only ever appear inside code spans (rendered literally).
        #expect(!markdown.contains("<script>alert"))
        #expect(!markdown.contains("<img"))
        #expect(markdown.contains("[`web-sso.hostile<script>`]"))
    }

    @Test func unknownFormatsAreRefused() throws {
        #expect(try ReportFormat.parse("junit, SARIF,md") == [.junit, .sarif, .md])
        #expect(try ReportFormat.parse("") == ReportFormat.allCases)
        #expect(throws: ReportFormat.UnknownFormat.self) { try ReportFormat.parse("junit,pdf") }
    }

    @Test func mergeJoinsShardsAndRefusesOtherClientsOrCatalogs() throws {
        let catalog = ["a.one", "b.two", "c.three"]
        let shard1 = ReportFixture.run(shard: "1/2", catalog: catalog, results: [ReportFixture.passing("a.one"), ReportFixture.passing("c.three")])
        let shard2 = ReportFixture.run(shard: "2/2", catalog: catalog, results: [ReportFixture.failing("b.two")])
        let merged = try ReportMerge.merge([("s1.json", ReportFixture.report([shard1])), ("s2.json", ReportFixture.report([shard2]))])
        #expect(merged.runs.count == 1)
        #expect(merged.runs[0].results.map(\.scenario) == catalog)
        #expect(merged.runs[0].shards == ["1/2", "2/2"])
        #expect(ReportMerge.missing(merged.runs[0]).isEmpty)

        let other = ReportFixture.run(client: "buggy", shard: "2/2", catalog: catalog, results: [ReportFixture.failing("b.two")])
        #expect {
            try ReportMerge.merge([("s1.json", ReportFixture.report([shard1])), ("s2.json", ReportFixture.report([other]))])
        } throws: { error in
            "\(error)".contains("different clients") && "\(error)".contains("s2.json ran `buggy`")
        }
        let otherCatalog = ReportFixture.run(shard: "2/2", catalog: catalog + ["d.four"], results: [ReportFixture.failing("b.two")])
        #expect {
            try ReportMerge.merge([("s1.json", ReportFixture.report([shard1])), ("s2.json", ReportFixture.report([otherCatalog]))])
        } throws: { error in
            "\(error)".contains("different catalogs")
        }
        #expect {
            try ReportMerge.merge([("s1.json", ReportFixture.report([shard1])), ("again.json", ReportFixture.report([shard1]))])
        } throws: { error in
            "\(error)".contains("scenario a.one is in both s1.json and again.json")
        }
    }

    @Test func diffListsRegressionsFixesAndNewAndRemovedScenarios() {
        let old = ReportFixture.run(results: [ReportFixture.passing("a.one"), ReportFixture.failing("b.two"), ReportFixture.passing("c.gone")])
        var fixed = ReportFixture.passing("b.two")
        fixed.verdicts = [Verdict(check: "encoding.form-percent-encoded", level: .required, status: .pass, reason: "ok")]
        var regressed = ReportFixture.failing("a.one")
        regressed.verdicts[0].status = .fail
        let new = ReportFixture.run(results: [regressed, fixed, ReportFixture.passing("d.new")])
        let diff = ReportDiff(old: old, new: new)
        #expect(diff.regressions.map(\.scenario) == ["a.one"])
        #expect(diff.fixes.map(\.scenario) == ["b.two"])
        #expect(diff.added == ["d.new"])
        #expect(diff.removed == ["c.gone"])
        #expect(diff.checkFixes.map(\.check) == ["encoding.form-percent-encoded"])
        #expect(diff.hasRegression)
        #expect(diff.text.contains("regressions: 1\n  a.one: pass → fail"))
        #expect(!ReportDiff(old: old, new: old).hasRegression)
    }

    @Test func resultsFilesLoadAndBadLinesAreNamed() throws {
        let directory = try ReportFixture.directory("jsonl")
        let file = directory.appendingPathComponent("results.jsonl")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let header = RunHeader(client: "reference", scenarios: 2, catalog: ["a.one", "b.two"], shard: "1/2", jobs: 1,
                               started: "2026-01-01T00:00:00Z", evaluatedChecks: ["flow.resource-obtained"])
        var lines = [String(decoding: try encoder.encode(header), as: UTF8.self)]
        lines.append(String(decoding: try encoder.encode(RunMetaLine.catalog(CatalogInfo(digest: "sha256:" + String(repeating: "a", count: 64),
                                                                                     scenarios: ["a.one", "b.two", "c.three"]))), as: UTF8.self))
        lines.append(String(decoding: try encoder.encode(SecretMasker.mask(ReportFixture.passing("a.one"))), as: UTF8.self))
        lines.append(String(decoding: try encoder.encode(RunMetaLine.end(seconds: 2.5)), as: UTF8.self))
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let report = try ReportLoader.load(file.path)
        #expect(report.runs[0].client == "reference")
        #expect(report.runs[0].shards == ["1/2"])
        #expect(report.runs[0].catalog.scenarios == ["a.one", "b.two", "c.three"])
        #expect(report.runs[0].durationSeconds == 2.5)
        #expect(report.runs[0].results.map(\.scenario) == ["a.one"])

        try Data((lines[0] + "\n{\"scenario\": 3}\n").utf8).write(to: file)
        #expect { try ReportLoader.load(file.path) } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(file.path + ":2:") && text.contains("scenario")
        }
        try Data("{\"format\":\"samlharness-report\",\"format_version\":\"2.0\"}".utf8).write(to: directory.appendingPathComponent("v2.json"))
        #expect { try ReportLoader.load(directory.appendingPathComponent("v2.json").path) } throws: { error in
            "\(error)".contains("report format version 2.0; this build reads 1.x")
        }
    }

    @Test func maskerRulesCompileAndLeaveOrdinaryTextAlone() {
        #expect(SecretMasker.rules.allSatisfy { $0.expression != nil })
        let masker = SecretMasker(secrets: ["hunter2!"])
        #expect(masker.text("POST /login realm=\"x\" ST-short") == "POST /login realm=\"x\" ST-short")
        #expect(masker.text("user typed hunter2%21 and hunter2!") == "user typed [masked] and [masked]")
        // RFC 7616 §3.4: of a Digest answer only `response` derives from the password.
        #expect(masker.header(name: "Proxy-Authorization", value: "Digest username=\"a\", response=\"b\"") == "Digest username=\"a\", response=\"[masked]\"")
        #expect(masker.text(masker.text("ticket=ST-1-abcdefgh")) == "ticket=ST-[masked]")
        // Evidence quoting a window of an unencoded body: the pieces of the password go too.
        let horse = SecretMasker(secrets: ["correct horse battery=staple&100% Ünïcødé"])
        let window = horse.evidence("e+battery=staple&100% Ünïcødé&_eventId=proceed")
        #expect(!window.contains("battery") && !window.contains("Ünïcødé") && window.hasSuffix("&_eventId=proceed"))
        #expect(horse.evidence("j_password=correct+horse+bat") == "j_password=[masked]")
        #expect(horse.evidence("the horse ran") == "the horse ran")
    }

    @Test func maskingMatchesBytesYetMissesNoFormOfTheSecret() {
        // Stored composed (é = U+00E9); a client may send it decomposed (e + U+0301), and the
        // byte search must mask both, as the character search did.
        let masker = SecretMasker(secrets: ["b0b=b+b&% caf\u{E9}"])
        #expect(masker.text("sent b0b=b+b&% cafe\u{301} raw") == "sent [masked] raw")
        #expect(masker.text("sent b0b=b+b&% caf\u{E9} raw") == "sent [masked] raw")
        #expect(masker.evidence("…b+b&% cafe\u{301}&next=1").contains("caf") == false)
        // ICU's case-insensitive matching folds ſ (U+017F) onto s: the rule still runs.
        #expect(masker.text("pa\u{17F}\u{17F}word=hunter2") == "pa\u{17F}\u{17F}word=[masked]")
        #expect(masker.text("PA\u{17F}SWORD=hunter2 \u{212A}") == "PA\u{17F}SWORD=[masked] \u{212A}")
        // The trigger words skip the regex engine only where no rule could match.
        #expect(masker.text("Authorization: Basic YWxpY2U6c2VjcmV0") == "Authorization: Basic [masked]")
        #expect(masker.text("{\"access_token\": \"abc.def\"}") == "{\"access_token\": \"[masked]\"}")
        #expect(masker.text("<wsse:Password Type=\"x\">pw</wsse:Password>") == "<wsse:Password Type=\"x\">[masked]</wsse:Password>")
        #expect(masker.text("ticket PGTIOU-123456-abcdef and TGT-9-abcdefgh")
            == "ticket PGTIOU-[masked] and TGT-[masked]")
        #expect(FastText.contains("a\u{E9}b", "\u{E9}") && !FastText.contains("abc", "abd") && FastText.contains("abc", ""))
        #expect(FastText.containsIgnoringASCIICase("X-BEARER y", lowercased: "bearer"))
    }
}
