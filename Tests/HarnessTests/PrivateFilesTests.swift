import Foundation
import Testing
import TestSupport
@testable import Harness

#if canImport(Glibc)
import Glibc
#endif

/// Every file the harness writes with keys, unredacted traffic or unmasked results is 0600 (its
/// folder 0700 where the folder is the harness's own), right after it is written; through
/// ``SAMLCore/PrivateFile`` it was never wider (PrivateFileTests proves the helper).
@Suite struct PrivateFilesTests {
    static func directory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : 0o7777
    }

    /// Under `umask 000` (a shell that lets every file be world-writable) the private key is
    /// still 0600; the certificate beside it follows the umask.
    @Test func keysWritesThePrivateKeySixHundredEvenUnderUmaskZero() async throws {
        let directory = try Self.directory("keys")
        let command = "umask 000 && exec " + [HarnessBinary.url.path, "keys", "--algorithm", "ec-p256", "--out-dir", directory.path,
                                              "--name", "sp"].map(ClientProcessRunner.shellQuoted).joined(separator: " ")
        let outcome = try await ClientProcess.run("/bin/sh", ["-c", command])
        #expect(outcome.status == 0, "\(outcome.stdout) \(outcome.stderr)")
        let key = directory.appendingPathComponent("sp-key.pem").path
        #expect(Self.mode(key) == 0o600)
        #expect(try String(contentsOfFile: key, encoding: .utf8).contains("PRIVATE KEY"))
        #expect(Self.mode(directory.appendingPathComponent("sp-cert.pem").path) == 0o666, "the certificate is public")
    }

    @Test func serveHarOutIsSixHundred() async throws {
        let har = try Self.directory("serve").appendingPathComponent("traffic.har").path
        let serve = try await ServeProcess.start(["--no-console", "--har-out", har])
        let metadata = try #require(serve.url("idp", "metadata"))
        _ = try await ClientProcess.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", metadata])
        let (status, stderr) = await serve.stop()
        #expect(status == 0, "\(stderr)")
        #expect(Self.mode(har) == 0o600)
        #expect(try String(contentsOfFile: har, encoding: .utf8).contains("\"entries\""))
    }

    /// `import-har` without `--redact` keeps the recording's passwords: 0600. With `--redact`
    /// the scenario is for sharing and keeps the usual mode.
    @Test func importHarUnredactedIsSixHundred() async throws {
        let fixture = SuiteFixture.repository.appendingPathComponent("Tests/HarnessTests/Fixtures/recorded/shibboleth-login.chrome.har")
        let directory = try Self.directory("import")
        let unredacted = directory.appendingPathComponent("kept.yaml").path
        let kept = try await HarnessBinary.run(["import-har", fixture.path, "--out", unredacted])
        #expect(kept.status == 0, "\(kept.stdout) \(kept.stderr)")
        #expect(Self.mode(unredacted) == 0o600)
        let redacted = directory.appendingPathComponent("shared.yaml").path
        let shared = try await HarnessBinary.run(["import-har", fixture.path, "--out", redacted, "--redact"])
        #expect(shared.status == 0, "\(shared.stdout) \(shared.stderr)")
        #expect(Self.mode(redacted) == 0o666 & ~Self.umaskValue(), "a redacted scenario keeps the umask's mode")
    }

    /// This process's umask, read without changing it (`Umask:` in /proc/self/status).
    static func umaskValue() -> mode_t {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        return line.flatMap { mode_t($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022
    }

    /// Reports with `--show-secrets`: the folder 0700, every file 0600 (results.jsonl from its
    /// creation). Masked reports keep the usual modes.
    @Test func reportsWithSecretsShownArePrivate() throws {
        let base = try Self.directory("reports")
        let shown = base.appendingPathComponent("shown")
        let header = RunHeader(client: "reference", scenarios: 1, catalog: ["web-sso.hostile<script>"], shard: nil, jobs: 1,
                               started: "2026-01-01T00:00:00Z", evaluatedChecks: [])
        let recorder = try RunRecorder(directory: shown, header: header, catalog: .of(ids: ["web-sso.hostile<script>"]),
                                       showSecrets: true)
        #expect(Self.mode(shown.path) == 0o700)
        #expect(Self.mode(recorder.resultsFile.path) == 0o600)
        let result = ReportFixture.failing()
        recorder.record(result)
        let files = try recorder.finish([result], seconds: 1)
        #expect(files.count == ReportFormat.allCases.count)
        for file in files + [recorder.resultsFile] {
            #expect(Self.mode(file.path) == 0o600, "\(file.lastPathComponent)")
        }
        #expect(try String(contentsOf: recorder.resultsFile, encoding: .utf8).contains("alice"))
        // An existing folder of the user's, written again with secrets shown, is made 0700.
        let again = base.appendingPathComponent("again")
        try FileManager.default.createDirectory(at: again, withIntermediateDirectories: false)
        chmod(again.path, 0o755)
        for file in try ReportWriter.write(ReportFixture.report(), formats: ReportFormat.allCases, to: again, showSecrets: true) {
            #expect(Self.mode(file.path) == 0o600, "\(file.lastPathComponent)")
        }
        #expect(Self.mode(again.path) == 0o700)
        // Masked: not forced.
        let masked = base.appendingPathComponent("masked")
        try ReportWriter.write(ReportFixture.report(), formats: [.json], to: masked, showSecrets: false)
        #expect(Self.mode(masked.appendingPathComponent(ReportFormat.json.fileName).path) == 0o666 & ~Self.umaskValue())
    }
}
