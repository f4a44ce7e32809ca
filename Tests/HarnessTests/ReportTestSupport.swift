import Foundation
import Testing
import TestSupport
@testable import Harness

/// What the report tests share: a synthetic run with hostile traffic and every kind of
/// result, the validators of scripts/setup-report-tools.sh, Chromium.
enum ReportFixture {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/report")
    static let repository = SuiteFixture.repository
    static let python = repository.appendingPathComponent(".build/report-tools/bin/python").path
    static let reportSchema = repository.appendingPathComponent("Sources/Harness/Resources/report.schema.json").path

    /// The validators' venv exists (or CI promises it; then a missing venv fails loudly).
    static var validatorsAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static let password = "s3cr&t<P@ss w0rd>"
    static let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>]]><!-- \u{0}\u{1B}"

    /// A fresh directory under the temporary folder.
    static func directory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A failing web-sso scenario whose traffic carries secrets and hostile markup, a passing
    /// one, an errored one and a skipped one.
    static func run(client: String = "reference", shard: String? = nil, catalog: [String]? = nil,
                    results: [ScenarioResult]? = nil) -> RunReport {
        let all = results ?? [failing(), passing(), errored(), skipped()]
        let ids = catalog ?? all.map(\.scenario)
        return RunReport(client: client, catalog: .of(ids: ids), shards: shard.map { [$0] } ?? [],
                         started: "2026-01-01T00:00:00Z", durationSeconds: 1.5, jobs: 2,
                         evaluatedChecks: ["encoding.form-percent-encoded", "flow.resource-obtained"], results: all)
    }

    static func report(_ runs: [RunReport]? = nil) -> ConformanceReport {
        ConformanceReport(runs: runs ?? [run()], secretsMasked: false,
                          generated: Date(timeIntervalSince1970: 1_767_225_600))
    }

    static func failing(_ id: String = "web-sso.hostile<script>") -> ScenarioResult {
        let form = "j_username=alice&j_password=\(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        let exchanges = [
            TraceExchange(sequence: 0, mock: "sp", request: TraceRequest(
                method: "GET", url: "http://127.0.0.1:1/secure?x=\(hostile)", headers: [TraceHeader("Accept", "*/*")], body: nil),
                response: TraceResponse(status: 302, headers: [
                    TraceHeader("Location", "http://127.0.0.1:2/idp?SAMLRequest=abc"),
                    TraceHeader("Set-Cookie", "_shibstate_1=SPSTATECOOKIE; Path=/; HttpOnly"),
                ], body: nil)),
            TraceExchange(sequence: 1, mock: "idp", request: TraceRequest(
                method: "POST", url: "http://127.0.0.1:2/idp/login", headers: [
                    TraceHeader("Cookie", "_idp_session=IDPSESSIONCOOKIE; other=OTHERCOOKIE"),
                    TraceHeader("Authorization", "Basic YWxpY2U6c2VjcmV0"),
                    TraceHeader("Content-Type", "application/x-www-form-urlencoded"),
                ], body: TraceBody(text: form, bytes: form.utf8.count)),
                response: TraceResponse(status: 200, headers: [TraceHeader("Content-Type", "text/html")],
                                        body: TraceBody(text: "<html><body>\(hostile) password was \(password)</body></html>", bytes: 80)),
                annotations: ["idp.login": hostile],
                messages: [DecodedMessage(location: "response.form", name: "SAMLResponse",
                                          xml: "<samlp:Response>\(hostile)<ds:SignatureValue/></samlp:Response>",
                                          relayState: hostile, findings: ["base64.line-wrapped: \(hostile)"])]),
            TraceExchange(sequence: 2, mock: "cas", request: TraceRequest(
                method: "GET", url: "http://127.0.0.1:3/cas/serviceValidate?ticket=ST-1-abcdefghijkl&service=x",
                headers: [TraceHeader("Authorization", "Bearer eyJhbGciOi.TOKENVALUE.sig")], body: nil),
                response: TraceResponse(status: 302, headers: [
                    TraceHeader("Location", "http://app/cb?access_token=ACCESSTOKEN123&patron_info=x"),
                ], body: TraceBody(text: "<wsse:Password Type=\"x\">\(password)</wsse:Password>", bytes: 60))),
            TraceExchange(sequence: 3, mock: "adfs", request: TraceRequest(
                method: "POST", url: "http://127.0.0.1:4/adfs/services/trust/13/usernamemixed", headers: [],
                body: TraceBody(text: "<o:Password>SOMEOTHERPASSWORD</o:Password>", bytes: 40)), response: nil),
        ]
        return ScenarioResult(
            scenario: id, flow: "web-sso", status: .fail, reason: "encoding.form-percent-encoded: \(hostile)",
            verdicts: [
                Verdict(check: "encoding.form-percent-encoded", level: .required, status: .fail,
                        reason: "a raw `+` in j_password \(hostile)",
                        evidence: [Evidence(exchange: 1, mock: "idp", detail: "the body \(hostile)",
                                            excerpt: "j_password=\(password)")]),
                Verdict(check: "flow.resource-obtained", level: .required, status: .pass, reason: "the secret appears"),
                Verdict(check: "flow.cookies-kept", level: .recommended, status: .fail, reason: "cookie dropped"),
                Verdict(check: "flow.consent-answered", level: .required, status: .notApplicable, reason: "no consent page"),
            ],
            seconds: 0.25, exchanges: exchanges.count,
            client: .init(status: 1, timedOut: false, outcome: "failure", error: "login failed for \(password)",
                          reportProblem: nil, stderrTail: "stderr \(hostile)"),
            trace: ScenarioTrace(exchanges: exchanges, masked: false, secrets: [password]),
            about: .init(title: "A hostile <b>title</b>", description: "What the scenario does \(hostile)", expected: "success",
                         reason: "the IdP is healthy"))
    }

    static func passing(_ id: String = "cas-rest.plain") -> ScenarioResult {
        ScenarioResult(scenario: id, flow: "cas-rest", status: .pass, reason: nil,
                       verdicts: [Verdict(check: "flow.resource-obtained", level: .required, status: .pass, reason: "ok")],
                       seconds: 0.1, exchanges: 1, client: nil,
                       trace: ScenarioTrace(exchanges: [TraceExchange(sequence: 0, mock: "cas", request: TraceRequest(
                        method: "POST", url: "http://127.0.0.1:3/cas/v1/tickets", headers: [], body: nil),
                        response: TraceResponse(status: 201, headers: [], body: nil))]))
    }

    static func errored(_ id: String = "ecp.timeout") -> ScenarioResult {
        ScenarioResult(scenario: id, flow: "ecp", status: .error, reason: "the client did not finish within 5 s",
                       verdicts: [Verdict(check: "flow.resource-obtained", level: .required, status: .fail, reason: "nothing")],
                       seconds: 5, exchanges: 0,
                       client: .init(status: nil, timedOut: true, outcome: nil, error: nil, reportProblem: nil, stderrTail: nil))
    }

    static func skipped(_ id: String = "adfs-wstrust.unsupported") -> ScenarioResult {
        ScenarioResult(scenario: id, flow: "adfs-wstrust", status: .skipped, reason: "the client does not support flow adfs-wstrust",
                       verdicts: [], seconds: 0, exchanges: 0)
    }

    /// Runs the validator script: `json` (JSON Schema) or `xsd`; returns its output when
    /// the document is valid, records an issue otherwise.
    static func validate(_ kind: String, schema: String, document: URL) async throws {
        let outcome = try await ClientProcess.run(python, [fixtures.appendingPathComponent("validate.py").path, kind, schema, document.path],
                                                  timeout: 120)
        #expect(outcome.status == 0, "\(document.lastPathComponent) against \(URL(fileURLWithPath: schema).lastPathComponent): \(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.stdout.contains("valid"))
    }
}
