import Foundation
import Testing
import TestSupport
@testable import Harness

/// Reports of real runs: the reference client and a buggy variant of it
/// (`samlh-reference-client --variant form-not-encoded`) on a few scenarios. `report diff`
/// flags the regression, `report merge` refuses the two clients, the HTML renders in
/// headless Chromium with every scenario present and the failing steps marked.
@Suite(.serialized) struct ReportRunTests {
    static let client = HarnessBinary.url.deletingLastPathComponent().appendingPathComponent("samlh-reference-client").path
    static let scenarioIDs = ["web-sso.shibboleth-form-login", "web-sso.percent-in-password",
                              "cas-rest.form-encoded-password", "ecp.shibboleth-login"]
    static let chromium: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/chromium" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The reference client's and the buggy variant's reports, run once for the suite.
    actor Runs {
        static let shared = Runs()
        private var cached: (reference: ConformanceReport, buggy: ConformanceReport)?

        func get() async throws -> (reference: ConformanceReport, buggy: ConformanceReport) {
            if let cached { return cached }
            let scenarios = CatalogTests.catalog.scenarios.filter { ReportRunTests.scenarioIDs.contains($0.id) }
            #expect(scenarios.count == ReportRunTests.scenarioIDs.count)
            let reference = try await ReportRunTests.report("'\(ReportRunTests.client)'", scenarios)
            let buggy = try await ReportRunTests.report("'\(ReportRunTests.client)' --variant form-not-encoded", scenarios)
            cached = (reference, buggy)
            return (reference, buggy)
        }
    }

    static func report(_ command: String, _ scenarios: [Scenario]) async throws -> ConformanceReport {
        let runner = ScenarioRunner(loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP),
                                    mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        let results = await RunEngine(jobs: 2, timeoutOverride: 15).run(scenarios, client: ExternalCommandClient(command: command),
                                                                        runner: runner) { _ in }
        let run = RunReport(client: ExternalCommandClient(command: command).name, catalog: .of(scenarios), shards: [],
                            started: "2026-01-01T00:00:00Z", durationSeconds: 1, jobs: 2,
                            evaluatedChecks: ExpectationJudge.evaluated.sorted(), results: results)
        return ConformanceReport(runs: [run], secretsMasked: false)
    }

    @Test func tracesCarryTheExchangesAndTheDecodedSAMLMessages() async throws {
        let reference = try await Runs.shared.get().reference
        let results = reference.runs[0].results
        #expect(results.allSatisfy { $0.status == .pass })
        let websso = try #require(results.first { $0.scenario == "web-sso.shibboleth-form-login" })
        let trace = try #require(websso.trace)
        #expect(trace.exchanges.count == websso.exchanges)
        let messages = trace.exchanges.flatMap { $0.messages ?? [] }
        #expect(messages.contains { $0.name == "SAMLRequest" && $0.xml?.contains("AuthnRequest") == true })
        #expect(messages.contains { $0.name == "SAMLResponse" && $0.location == "request.form" && $0.xml?.contains("Assertion") == true })
        // The user's password is in the raw trace, and nowhere once masked.
        let password = try #require(trace.secrets.first)
        let masked = String(decoding: try ReportWriter.masked(reference).jsonData(), as: UTF8.self)
        #expect(!masked.contains(password))
        #expect(!masked.contains(PercentEncodingProbe.form(password)))
    }

    @Test func diffFlagsTheBuggyClientsRegression() async throws {
        let (reference, buggy) = try await Runs.shared.get()
        let diff = ReportDiff(old: reference.runs[0], new: buggy.runs[0])
        #expect(diff.hasRegression)
        #expect(Set(diff.regressions.map(\.scenario)) == ["web-sso.shibboleth-form-login", "web-sso.percent-in-password",
                                                          "cas-rest.form-encoded-password"])
        #expect(diff.checkRegressions.contains { $0.check == "encoding.form-percent-encoded" })
        #expect(!ReportDiff(old: buggy.runs[0], new: reference.runs[0]).hasRegression)

        // The same through the CLI, from the written report.json files.
        let old = try ReportFixture.directory("diff-old"), new = try ReportFixture.directory("diff-new")
        try ReportWriter.write(reference, formats: [.json], to: old)
        try ReportWriter.write(buggy, formats: [.json], to: new)
        let regressed = try await HarnessBinary.run(["report", "diff", old.path, new.appendingPathComponent("report.json").path])
        #expect(regressed.status == 1, "\(regressed.stdout)\(regressed.stderr)")
        #expect(regressed.stdout.contains("regressions: 3"))
        #expect(regressed.stdout.contains("web-sso.percent-in-password: pass → fail"))
        #expect(regressed.stdout.contains("result: REGRESSION"))
        let fixed = try await HarnessBinary.run(["report", "diff", new.path, old.path])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(fixed.stdout.contains("fixes: 3"))

        // Merge refuses the two clients, exit 2, naming both.
        let merge = try await HarnessBinary.run(["report", "merge", old.path, new.path, "--out", try ReportFixture.directory("merge").path])
        #expect(merge.status == 2)
        #expect(merge.stderr.contains("refusing to merge runs of different clients"))
        #expect(merge.stderr.contains("--variant form-not-encoded"))

        // `report` rebuilds every format from the JSON; an unknown format is a usage error.
        let rebuilt = try ReportFixture.directory("rebuilt")
        let build = try await HarnessBinary.run(["report", new.path, "--out", rebuilt.path])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        for format in ReportFormat.allCases {
            #expect(FileManager.default.fileExists(atPath: rebuilt.appendingPathComponent(format.fileName).path))
        }
        let bad = try await HarnessBinary.run(["report", new.path, "--format", "junit,pdf"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown report format `pdf`"))
        let missing = try await HarnessBinary.run(["report", "diff", old.path, "/nonexistent/report.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/report.json: no such file or directory"))
    }

    @Test(.enabled(if: chromium != nil || ProcessInfo.processInfo.environment["CI"] != nil,
                   "Chromium is not installed here (bash scripts/setup-report-tools.sh installs Debian's chromium)"))
    func theHTMLReportRendersInHeadlessChromium() async throws {
        let buggy = try await Runs.shared.get().buggy
        let directory = try ReportFixture.directory("browser")
        try ReportWriter.write(buggy, formats: [.html], to: directory)
        let rendered = directory.appendingPathComponent("render")
        let outcome = try await ClientProcess.run("/bin/bash", [
            ReportFixture.repository.appendingPathComponent("scripts/render-html.sh").path,
            directory.appendingPathComponent("report.html").path, rendered.path, "1400x2000",
        ], timeout: 120)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let png = try Data(contentsOf: rendered.appendingPathComponent("report.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(png.count > 20_000)
        let dom = try String(contentsOf: rendered.appendingPathComponent("report.dom.html"), encoding: .utf8)
        // Every scenario is there, as a section and in the flow overview.
        for id in Self.scenarioIDs {
            #expect(dom.contains("id=\"s-\(id)\""), "no section for \(id)")
            #expect(dom.contains("data-scenario=\"\(id)\""))
        }
        // Each failing step the evidence names is marked, in the diagram and in the list.
        for result in buggy.runs[0].results where result.status == .fail {
            let exchanges = Set(result.verdicts.filter { $0.status == .fail }.flatMap { $0.evidence.compactMap(\.exchange) })
            #expect(!exchanges.isEmpty, "\(result.scenario): no failing exchange")
            for exchange in exchanges {
                #expect(dom.contains("<a class=\"step failing\" href=\"#s-\(result.scenario)-x\(exchange)\""),
                        "\(result.scenario) #\(exchange) not marked in the diagram")
                #expect(dom.contains("<details class=\"exchange failing\" id=\"s-\(result.scenario)-x\(exchange)\" open=\"\">")
                        || dom.contains("<details class=\"exchange failing\" id=\"s-\(result.scenario)-x\(exchange)\" open>"),
                        "\(result.scenario) #\(exchange) not marked in the exchange list")
            }
        }
        #expect(dom.contains("<svg class=\"sequence\""))
    }
}

/// The form encoding a browser gives a password (what a masked report must not show either).
enum PercentEncodingProbe {
    static func form(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "*-._")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: "%20", with: "+")
    }
}
