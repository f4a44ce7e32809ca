import ArgumentParser
import Foundation
import Logging
import MockServers
import SAMLCore

/// The main job until the runner exists: proves on this machine that SAMLCore produces and
/// checks SAML bytes correctly, and writes what it did to a report a person can read.
struct SelfCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selfcheck",
        abstract: "Build a signed Response with the test key, verify it with SAMLCore and the xmlsec1 CLI, diagnose damaged copies, and log in through the mock servers.",
        discussion: "Writes selfcheck.md, selfcheck.json and the Response files into --report-dir. Exit 0 when every step behaved as expected."
    )

    @Option(help: "Directory for the report.")
    var reportDir: String = "Reports/selfcheck"

    @Option(help: "Directory holding the test keys.")
    var keys: String = "MockIdP/keys"

    struct Step: Codable {
        let name: String
        let expected: String
        let observed: String
        let passed: Bool
    }

    func run() async throws {
        let idp = "https://idp.example.org/idp/shibboleth"
        let sp = "https://sp.example.org/shibboleth"
        let acs = "https://sp.example.org/Shibboleth.sso/SAML2/POST"
        let key = try PrivateKey(contentsOf: URL(fileURLWithPath: "\(keys)/idp-key.pem"))
        let cert = try Certificate(contentsOf: URL(fileURLWithPath: "\(keys)/idp-cert.pem"))
        let certPath = "\(keys)/idp-cert.pem"
        try FileManager.default.createDirectory(atPath: reportDir, withIntermediateDirectories: true)
        var steps: [Step] = []
        func record(_ name: String, expected: String, observed: String, _ passed: Bool) {
            steps.append(Step(name: name, expected: expected, observed: observed, passed: passed))
            print("\(passed ? "PASS" : "FAIL")  \(name)\n      expected: \(expected)\n      observed: \(observed)")
        }

        // 1. A signed Response (Assertion and Response signed), issued now, deterministic IDs.
        let factory = SignedResponseFactory(idpEntityID: idp, signer: XMLSigner(key: key, certificate: cert))
        let login = SignedResponseFactory.Login(
            nameID: NameID("alice@example.org", format: NameIDFormat.emailAddress), spEntityID: sp, acsURL: acs,
            inResponseTo: "_selfcheck-request",
            attributes: [Attribute(name: "urn:oid:0.9.2342.19200300.100.1.3", friendlyName: "mail", strings: ["alice@example.org"])])
        let clock = FixedClock(SAMLDateTime.truncated(Date()))
        let edge = try EncodingEdgeCaseResponse.make(factory: factory, login: login, padding: .one, clock: clock, seed: 2026)
        let responsePath = "\(reportDir)/response.xml"
        try edge.xml.write(toFile: responsePath, atomically: true, encoding: .utf8)
        try edge.base64.write(toFile: "\(reportDir)/response.b64", atomically: true, encoding: .utf8)
        record("build a signed Response (RSA-SHA256, exclusive c14n, Assertion and Response signed)",
               expected: "base64 form contains '+' and '/' and ends with '='",
               observed: "\(edge.xml.utf8.count) bytes of XML, base64 \(edge.base64.count) chars, candidate #\(edge.candidate), '+' \(edge.base64.filter { $0 == "+" }.count)×, '/' \(edge.base64.filter { $0 == "/" }.count)×, ends '\(edge.base64.suffix(2))'",
               edge.base64.contains("+") && edge.base64.contains("/") && edge.base64.hasSuffix("="))

        // 2. SAMLCore's strict SP validation.
        let validator = SPValidator(configuration: .init(idpEntityID: idp, idpKeys: [cert.publicKey], spEntityID: sp, acsURL: acs,
                                                         requestID: "_selfcheck-request", clock: clock))
        let verdict = Self.describe(validator.validate(Array(edge.xml.utf8)))
        record("SAMLCore SPValidator accepts it", expected: "valid: nameid=alice@example.org …", observed: verdict,
               verdict.hasPrefix("valid: nameid=alice@example.org"))

        // 3. The xmlsec1 command-line tool, an independent verifier.
        let xmlsecArgs = ["--verify", "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:Response",
                          "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion",
                          "--enabled-reference-uris", "same-doc", "--pubkey-cert-pem", certPath]
        let cli = Self.runTool("xmlsec1", xmlsecArgs + [responsePath])
        record("xmlsec1 --verify accepts the Response signature", expected: "exit 0 (OK)", observed: cli.summary, cli.status == 0)

        // 4. One byte changed: both must refuse.
        let tampered = edge.xml.replacingOccurrences(of: ">alice@example.org<", with: ">alicf@example.org<")
        let tamperedPath = "\(reportDir)/response-tampered.xml"
        try tampered.write(toFile: tamperedPath, atomically: true, encoding: .utf8)
        let tamperedVerdict = Self.describe(validator.validate(Array(tampered.utf8)))
        record("SAMLCore refuses a one-byte change to the NameID", expected: "invalid: signature.invalid: …",
               observed: tamperedVerdict, tamperedVerdict.hasPrefix("invalid: signature.invalid"))
        let cliTampered = Self.runTool("xmlsec1", xmlsecArgs + [tamperedPath])
        record("xmlsec1 refuses the one-byte change", expected: "non-zero exit", observed: cliTampered.summary,
               cliTampered.status != 0 && cliTampered.status != 127)

        // 5. Encoding damage a careless client does, and what the diagnoser says.
        let damages: [(String, String, String)] = [
            ("form body not percent-encoded ('+' → space)", edge.base64.replacingOccurrences(of: "+", with: " "), "encoding.plus-as-space"),
            ("base64 padding stripped", String(edge.base64.reversed().drop { $0 == "=" }.reversed()), "encoding.padding-stripped"),
            ("value URL-encoded twice", PercentEncoding.formEncode(PercentEncoding.formEncode(edge.base64)), "encoding.double-url-encoded"),
            ("value left URL-encoded", PercentEncoding.formEncode(edge.base64), "encoding.still-url-encoded"),
        ]
        var diagnoses: [String] = []
        for (what, value, code) in damages {
            let diagnosis = EncodingDiagnoser.diagnose(value, binding: .post, expected: edge.base64)
            let first = diagnosis.finding(code)
            diagnoses.append("### \(what)\n\n```\n\(diagnosis.report)\n```\n")
            record("diagnose: \(what)", expected: code, observed: first.map { "\($0.code): \($0.message)" } ?? diagnosis.codes.joined(separator: ", "),
                   first != nil)
        }

        // 6. The mock servers: a whole Web SSO login over loopback, then the same with a knob.
        try await mockServerSteps(record)

        let passed = steps.allSatisfy(\.passed)
        try Self.writeReports(steps: steps, diagnoses: diagnoses, base64: edge.base64, dir: reportDir, passed: passed)
        print("\n\(steps.filter(\.passed).count) passed, \(steps.filter { !$0.passed }.count) failed — report: \(reportDir)/selfcheck.md")
        if !passed { throw ExitCode(1) }
    }

    /// Starts the mocks with the `shibboleth` profile and logs in through them as a browser
    /// would (SP redirect, IdP form, consent, auto-post, `/secure`); then switches on the
    /// `wrong-audience` knob and checks the mock SP refuses the next login.
    func mockServerSteps(_ record: (String, String, String, Bool) -> Void) async throws {
        var logger = Logger(label: "samlharness.selfcheck")
        logger.logLevel = .error
        let mockIdP = URL(fileURLWithPath: keys).deletingLastPathComponent()
        let profile = try LoadedProfile.load(named: "shibboleth", from: mockIdP)
        let suite = try await MockSuite.start(profile: profile, mockIdPDirectory: mockIdP, logger: logger)
        let client = LoadHTTPClient()
        let user = profile.profile.users[0]
        let driver = LoadDriver(client: client, flow: .webSSO, ready: suite.readyInfo(), user: user)
        do {
            let outcome = try await driver.login()
            let issued = suite.log.entries.compactMap { $0.annotations["sp.secret"] }.last
            record("mock servers: Web SSO through the mock IdP (form, consent, auto-post) and SP over loopback",
                   "/secure answers the secret the SP issued for this login",
                   "\(outcome.requests) requests, \(Int(outcome.seconds * 1000)) ms, secret \(outcome.secret)",
                   outcome.secret == issued)
        } catch {
            record("mock servers: Web SSO through the mock IdP and SP over loopback", "the session's secret", "\(error)", false)
        }
        suite.environment.setKnobs([.wrongAudience])
        let refused = (try? await LoadDriver(client: client, flow: .webSSO, ready: suite.readyInfo(), user: user).login()) == nil
        let reason = suite.log.entries.last { $0.annotations["sp.rejected"] != nil }?.annotations["sp.rejected"]
        record("mock servers: with the wrong-audience knob the mock SP refuses the login",
               "audience.mismatch", reason ?? "accepted", refused && reason == "audience.mismatch")
        await client.shutdown()
        await suite.stop()
    }

    static func describe(_ result: Result<ValidatedAssertion, ValidationFailure>) -> String {
        switch result {
        case .success(let a): "valid: nameid=\(a.nameID.value) attributes=\(VerifyResponseCommand.attributesJSON(a.attributes))"
        case .failure(let f): "invalid: \(f)"
        }
    }

    struct ToolOutcome {
        let status: Int32
        let output: String
        var summary: String { "exit \(status): \(output.split(separator: "\n").last.map(String.init) ?? "")" }
    }

    static func runTool(_ name: String, _ arguments: [String]) -> ToolOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return ToolOutcome(status: 127, output: "\(name) not found: \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolOutcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    static func writeReports(steps: [Step], diagnoses: [String], base64: String, dir: String, passed: Bool) throws {
        var md = "# SAMLHarness self-check\n\n"
        md += "Result: **\(passed ? "PASS" : "FAIL")** — \(steps.filter(\.passed).count) of \(steps.count) steps as expected.\n\n"
        md += "| step | expected | observed | |\n|---|---|---|---|\n"
        for s in steps {
            let cell = { (t: String) in t.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }
            md += "| \(cell(s.name)) | \(cell(s.expected)) | \(cell(s.observed)) | \(s.passed ? "✅" : "❌") |\n"
        }
        md += "\nThe signed Response is `response.xml` (its base64 value, as a client must post it: `response.b64`).\n\n"
        md += "## Encoding diagnoses of damaged copies\n\n" + diagnoses.joined(separator: "\n")
        try md.write(toFile: "\(dir)/selfcheck.md", atomically: true, encoding: .utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        struct Report: Codable { let passed: Bool; let steps: [Step] }
        try encoder.encode(Report(passed: passed, steps: steps)).write(to: URL(fileURLWithPath: "\(dir)/selfcheck.json"))
    }
}
