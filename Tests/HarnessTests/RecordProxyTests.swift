import Foundation
import MockServers
import Testing
import TestSupport
import X509

@testable import Recording

/// `samlharness record` end to end: the mocks on https (the real TLS a device meets), the
/// recorder as a user runs it, a real client logging in through it, SIGINT, then the HAR and
/// the scenario it wrote — replayed and walked by a client through `samlharness run`.
@Suite(.serialized) struct RecordProxyTests {
    /// The harness's local test CA (scripts/setup-tls.sh): trusted system-wide in CI, so the
    /// reference client (URLSession → libcurl → the system store) trusts the proxy's leaves.
    static var caDirectory: URL { MockTLS.defaultDirectory() }
    static var caFile: String { caDirectory.appendingPathComponent("ca.pem").path }
    static let alicePassword = "correct horse+battery=staple&100% Ünïcødé"

    struct Recorded {
        var status: Int32
        var stdout: String
        var stderr: String
        var harPath: String
        var outPath: String
        var har: [String: Any]
        var entries: [[String: Any]] { ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? [] }
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts the mocks (`serve KNOBS`) and the recorder, lets `drive` use them, stops the
    /// recorder with SIGINT and reads what it wrote.
    static func record(knobs: [String] = ["--knob", "tls"], arguments: [String] = ["--allow-host", "127.0.0.1"],
                       id: String = "recorded-login",
                       drive: (_ serve: ServeProcess, _ recorder: ServeProcess) async throws -> Void) async throws -> Recorded {
        let directory = try temporaryDirectory()
        let out = directory.appendingPathComponent("\(id).yaml").path
        let har = directory.appendingPathComponent("\(id).har").path
        let serve = try await ServeProcess.start(knobs + ["--no-console"])
        defer { serve.terminate() }
        let recorder = try await ServeProcess.start(["--listen", "127.0.0.1:0", "--ca-dir", caDirectory.path, "--out", out, "--har", har]
                                                    + arguments, command: "record")
        do {
            try await drive(serve, recorder)
        } catch {
            await recorder.stop(signal: SIGINT)
            throw error
        }
        let (status, stderr) = await recorder.stop(signal: SIGINT)
        let data = (try? Data(contentsOf: URL(fileURLWithPath: har))) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return Recorded(status: status, stdout: recorder.stdoutAfterReady, stderr: stderr, harPath: har, outPath: out, har: object)
    }

    static var referenceClient: String {
        HarnessBinary.url.deletingLastPathComponent().appendingPathComponent("samlh-reference-client").path
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// The recording's HAR and scenario: private files, every exchange intercepted and its
    /// upstream verified, the SAML Response posted, the password absent from the scenario.
    static func expectGoodRecording(_ recorded: Recorded, password: String) throws {
        #expect(recorded.status == 0, "record exit \(recorded.status): \(recorded.stderr)\n\(recorded.stdout)")
        #expect(mode(recorded.harPath) == 0o600)
        #expect(mode(recorded.outPath) == 0o600)
        let entries = recorded.entries
        #expect(entries.count >= 5, "\(entries.count) entries")
        for entry in entries {
            let request = entry["request"] as? [String: Any] ?? [:]
            let url = request["url"] as? String ?? ""
            let notes = entry["_annotations"] as? [String: String] ?? [:]
            #expect(url.hasPrefix("https://127.0.0.1:"), "\(url)")
            #expect(notes["record.transport"] == "intercepted", "\(url): \(notes)")
            #expect(notes["record.upstream-tls"] == "verified", "\(url): \(notes)")
            #expect(entry["serverIPAddress"] as? String == "127.0.0.1")
            #expect(entry["connection"] is String)
        }
        let posted = entries.compactMap { (($0["request"] as? [String: Any])?["postData"] as? [String: Any])?["text"] as? String }
        #expect(posted.contains { $0.contains("SAMLResponse=") }, "no SAMLResponse POST in the recording")
        let yaml = try String(contentsOfFile: recorded.outPath, encoding: .utf8)
        #expect(!yaml.contains(password), "the scenario keeps the password")
        #expect(yaml.contains("flow: replay"))
        #expect(recorded.stdout.contains("wrote \(recorded.outPath)"), "\(recorded.stdout)")
    }

    /// The recorded scenario, replayed by `samlharness run` and walked by the reference client.
    static func expectReplayWalked(_ recorded: Recorded) async throws {
        let reports = try temporaryDirectory()
        let run = try await HarnessBinary.run(["run", "--builtin", "reference", "--scenarios", recorded.outPath,
                                               "--report-dir", reports.path], timeout: 120)
        #expect(run.status == 0, "run: \(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("1 pass, 0 fail, 0 error"), "\(run.stdout)")
    }

    // MARK: - The three clients

    @Test func referenceClientLoginRecordedReplaysAndIsWalked() async throws {
        let recorded = try await Self.record { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            let start = try #require(serve.url("sp", "secure"))
            let result = FileManager.default.temporaryDirectory.appendingPathComponent("ref-\(UUID().uuidString).json")
            let outcome = try await ClientProcess.run("/usr/bin/env", [
                "https_proxy=\(proxy)", "http_proxy=\(proxy)", "no_proxy=", "SAMLH_FLOW=web-sso", "SAMLH_START_URL=\(start)",
                "SAMLH_USERNAME=alice", "SAMLH_PASSWORD=\(Self.alicePassword)", "SAMLH_RESULT_FILE=\(result.path)",
                Self.referenceClient,
            ], timeout: 90)
            #expect(outcome.status == 0, "reference client: \(outcome.stdout) \(outcome.stderr)")
        }
        try Self.expectGoodRecording(recorded, password: Self.alicePassword)
        try await Self.expectReplayWalked(recorded)
    }

    @Test func pythonRequestsLoginRecordedReplaysAndIsWalked() async throws {
        try #require(ClientProcess.interopAvailable, "the interop venv (scripts/setup-interop.sh)")
        let recorded = try await Self.record(id: "requests-login") { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            let start = try #require(serve.url("sp", "secure"))
            let result = FileManager.default.temporaryDirectory.appendingPathComponent("py-\(UUID().uuidString).json")
            // The client names the proxy itself (its session ignores HTTPS_PROXY); SAMLH_CA_FILE
            // is the CA the proxy's leaves come from.
            let outcome = try await ClientProcess.run("/usr/bin/env", [
                "SAMLH_VIA_PROXY=\(proxy)", "SAMLH_CA_FILE=\(Self.caFile)",
                "SAMLH_FLOW=web-sso", "SAMLH_START_URL=\(start)", "SAMLH_USERNAME=alice",
                "SAMLH_PASSWORD=\(Self.alicePassword)", "SAMLH_RESULT_FILE=\(result.path)",
                ClientProcess.venvPython, ClientProcess.script("samlh_requests_client.py"),
            ], timeout: 90)
            #expect(outcome.status == 0, "python-requests: \(outcome.stdout) \(outcome.stderr)")
        }
        try Self.expectGoodRecording(recorded, password: Self.alicePassword)
        let agents = recorded.entries.compactMap { entry in
            ((entry["request"] as? [String: Any])?["headers"] as? [[String: String]])?
                .first { $0["name"]?.lowercased() == "user-agent" }?["value"]
        }
        #expect(agents.allSatisfy { $0.hasPrefix("python-requests/") }, "\(Set(agents))")
        try await Self.expectReplayWalked(recorded)
    }

    static var browserPython: String {
        ClientProcess.repository.appendingPathComponent(".venv-browser/bin/python").path
    }

    @Test func headlessChromiumLoginRecordedReplaysAndIsWalked() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.browserPython)
                     || ProcessInfo.processInfo.environment["CI"] != nil, "scripts/setup-browser-tests.sh")
        // --others refuse: Chromium's own background requests (update and autofill services)
        // go to the proxy too, and nothing in a test leaves loopback.
        let recorded = try await Self.record(arguments: ["--allow-host", "127.0.0.1", "--others", "refuse"],
                                             id: "chromium-login") { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            let spki = try #require(recorder.ready["leaf_spki_sha256"] as? String)
            let start = try #require(serve.url("sp", "secure"))
            let result = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString).json")
            // Chromium trusts the proxy's leaf key by its SPKI hash (not the system store).
            let outcome = try await ClientProcess.run("/usr/bin/env", [
                "SAMLH_BROWSER_PROXY=\(proxy)", "SAMLH_BROWSER_SPKI=\(spki)", "SAMLH_START_URL=\(start)",
                "SAMLH_USERNAME=alice", "SAMLH_PASSWORD=\(Self.alicePassword)", "SAMLH_RESULT_FILE=\(result.path)",
                Self.browserPython, ClientProcess.script("browser_login_client.py"),
            ], timeout: 120)
            #expect(outcome.status == 0, "chromium: \(outcome.stdout) \(outcome.stderr)")
        }
        try Self.expectGoodRecording(recorded, password: Self.alicePassword)
        let agents = recorded.entries.compactMap { entry in
            ((entry["request"] as? [String: Any])?["headers"] as? [[String: String]])?
                .first { $0["name"]?.lowercased() == "user-agent" }?["value"]
        }
        #expect(!agents.isEmpty && agents.allSatisfy { $0.contains("HeadlessChrome") }, "\(Set(agents))")
        try await Self.expectReplayWalked(recorded)
    }

    // MARK: - Upstream certificates

    static func curl(_ arguments: [String]) async throws -> ClientProcess.Outcome {
        // An empty --capath: Debian's curl reads /etc/ssl/certs even with --cacert.
        let empty = try temporaryDirectory().path
        return try await ClientProcess.run("/usr/bin/curl", ["-sS", "--max-time", "20", "--capath", empty] + arguments)
    }

    @Test func anUpstreamCertificateTheSystemDoesNotTrustIsReportedNotAccepted() async throws {
        var idp = ""
        let recorded = try await Self.record(knobs: ["--knob", "tls", "--knob", "tls-unknown-ca=idp"], id: "untrusted-idp") { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            idp = try #require(serve.url("idp", "metadata"))
            let outcome = try await Self.curl(["--proxy", proxy, "--cacert", Self.caFile, "-w", "\n%{http_code}", idp])
            #expect(outcome.stdout.hasSuffix("\n502"), "curl: \(outcome.stdout) \(outcome.stderr)")
            #expect(outcome.stdout.contains("failed verification"), "\(outcome.stdout)")
            #expect(outcome.stdout.contains("not in the trust store"), "\(outcome.stdout)")
        }
        let key = try #require(URLComponents(string: idp)).port.map { "127.0.0.1:\($0)" } ?? ""
        #expect(recorded.stdout.contains("UPSTREAM CERTIFICATE FAILED: \(key)"), "\(recorded.stdout)")
        #expect(recorded.stderr.contains("\(key) presented a certificate that failed verification"), "\(recorded.stderr)")
        let notes = recorded.entries.first?["_annotations"] as? [String: String] ?? [:]
        #expect(notes["record.upstream-error"]?.hasPrefix("certificate refused:") == true, "\(notes)")
        #expect((recorded.entries.first?["response"] as? [String: Any])?["status"] as? Int == 502)
    }

    @Test func insecureUpstreamForwardsButMarksEveryExchange() async throws {
        let recorded = try await Self.record(knobs: ["--knob", "tls", "--knob", "tls-expired=idp"],
                                             arguments: ["--allow-host", "127.0.0.1", "--insecure-upstream"],
                                             id: "insecure-idp") { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            let idp = try #require(serve.url("idp", "metadata"))
            let outcome = try await Self.curl(["--proxy", proxy, "--cacert", Self.caFile, "-o", "/dev/null", "-w", "%{http_code}", idp])
            #expect(outcome.stdout == "200", "curl: \(outcome.stdout) \(outcome.stderr)")
        }
        let notes = recorded.entries.first?["_annotations"] as? [String: String] ?? [:]
        #expect(notes["record.upstream-tls"]?.hasPrefix("NOT verified (--insecure-upstream): it expired on 2021-01-01") == true, "\(notes)")
        #expect(recorded.stdout.contains("forwarded anyway: --insecure-upstream"), "\(recorded.stdout)")
    }

    // MARK: - Scope

    @Test func hostsNotAllowedAreTunnelledUntouchedAndNotRecorded() async throws {
        let recorded = try await Self.record(arguments: ["--allow-host", "idp.example.org"], id: "nothing-allowed") { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            let start = try #require(serve.url("sp", "secure"))
            // The tunnel is not read: curl meets the mock's own certificate, from the test CA.
            let https = try await Self.curl(["--proxy", proxy, "--cacert", Self.caFile, "-o", "/dev/null", "-w", "%{http_code}", start])
            #expect(https.stdout == "302", "curl: \(https.stdout) \(https.stderr)")
            let page = try await Self.curl(["--proxy", proxy, "http://samlharness.record/ca.crt"])
            #expect(!page.stdout.isEmpty)
        }
        #expect(recorded.status == 1, "\(recorded.stdout) \(recorded.stderr)")
        #expect(recorded.stderr.contains("nothing was recorded"), "\(recorded.stderr)")
        #expect(recorded.stdout.contains("passed through unrecorded: 127.0.0.1:"), "\(recorded.stdout)")
        #expect(recorded.entries.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: recorded.outPath))
    }

    @Test func othersRefuseAnswers403AndTheCAPageHandsOutOnlyTheCertificate() async throws {
        _ = try await Self.record(arguments: ["--allow-host", "idp.example.org", "--others", "refuse"], id: "refused") { serve, recorder in
            let proxy = try #require(recorder.ready["proxy"] as? String)
            let start = try #require(serve.url("sp", "secure"))
            let https = try await Self.curl(["--proxy", proxy, "--cacert", Self.caFile, start])
            #expect(https.status != 0)
            #expect(https.stderr.contains("403"), "\(https.stderr)")
            let plain = try await Self.curl(["--proxy", proxy, "-w", "\n%{http_code}", try #require(serve.url("auth", "base")) + "/"])
            #expect(plain.stdout.hasSuffix("\n403"), "\(plain.stdout)")
            #expect(plain.stdout.contains("not on the allow-list (idp.example.org)"))
            let page = try await Self.curl([proxy + "/"])
            #expect(page.stdout.contains("idp.example.org") && page.stdout.contains("/ca.crt"))
            #expect(!page.stdout.contains("PRIVATE KEY"))
            let der = try await ClientProcess.run("/bin/sh", ["-c", "curl -sS '\(proxy)/ca.crt' | openssl x509 -inform DER -noout -fingerprint -sha256"])
            let fingerprint = try #require(recorder.ready["ca_sha256"] as? String)
            #expect(der.stdout.contains(fingerprint), "\(der.stdout) vs \(fingerprint)")
            let key = try await Self.curl([proxy + "/ca.key"])
            #expect(!key.stdout.contains("PRIVATE KEY") && key.stdout.contains("404"))
        }
    }

    // MARK: - Bad input

    @Test func badRequestsGetClearAnswersNotCrashes() async throws {
        let recorded = try await Self.record(arguments: ["--allow-host", "127.0.0.1", "--max-body-mib", "1"], id: "bad-input") { serve, recorder in
            let proxyURL = try #require(recorder.ready["proxy"] as? String)
            let port = try #require(URLComponents(string: proxyURL)?.port)
            let garbage = try await RawHTTPExchange.send(port: port, head: "GARBAGE\r\n\r\n")
            #expect(garbage.statusLine == "HTTP/1.1 400 Bad Request", "\(garbage.text)")
            let connect = try await RawHTTPExchange.send(port: port, head: "CONNECT no-port-here HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(connect.statusLine.hasPrefix("HTTP/1.1 400"), "\(connect.text)")
            #expect(connect.text.contains("CONNECT needs host:port"))
            let sp = try #require(serve.url("sp", "base")).replacingOccurrences(of: "https://", with: "http://")
            let big = try await RawHTTPExchange.send(
                port: port, head: "POST \(sp)/Shibboleth.sso/SAML2/POST HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 << 20)\r\n\r\n",
                bodyBytes: 2 << 20)
            #expect(big.statusLine.hasPrefix("HTTP/1.1 413"), "\(big.statusLine)")
            #expect(big.header("Connection") == ["close"])
            #expect(big.error == 0 && big.sent > 2 << 20, "the whole body read, then an orderly close (errno \(big.error))")
            // Over the limit with the body still coming: the 413 comes at once, before the rest
            // (a client that writes its whole body before reading gets it), not at the body's end.
            let early = try await RawHTTPExchange.send(
                port: port, head: "POST \(sp)/Shibboleth.sso/SAML2/POST HTTP/1.1\r\nHost: x\r\nContent-Length: \(20 << 20)\r\n\r\n",
                bodyBytes: 2 << 20, readSeconds: 3)
            #expect(early.statusLine.hasPrefix("HTTP/1.1 413"), "\(early.text.prefix(200))")
            // An allowed origin that does not answer: 502 naming it, the exchange recorded.
            let closed = try await RawHTTPExchange.send(
                port: port, head: "GET http://127.0.0.1:1/x HTTP/1.1\r\nHost: 127.0.0.1:1\r\nConnection: close\r\n\r\n")
            #expect(closed.statusLine.hasPrefix("HTTP/1.1 502"), "\(closed.text)")
            #expect(closed.text.contains("could not get an answer from 127.0.0.1:1"))
        }
        let notes = recorded.entries.compactMap { $0["_annotations"] as? [String: String] }
        #expect(notes.contains { $0["record.upstream-error"]?.contains("could not connect") == true }, "\(notes)")
    }

    // MARK: - The CA and its leaves

    @Test func aNewRecordingCAIsPrivateAndItsLeavesVerify() async throws {
        let directory = try Self.temporaryDirectory().appendingPathComponent("ca")
        let ca = try RecordingCA.loadOrCreate(at: directory)
        #expect(ca.created)
        #expect(Self.mode(directory.path) == 0o700)
        #expect(Self.mode(ca.keyURL.path) == 0o600)
        let again = try RecordingCA.loadOrCreate(at: directory)
        #expect(!again.created && again.fingerprintSHA256 == ca.fingerprintSHA256)
        for host in ["idp.example.org", "127.0.0.1", "::1"] {
            let pem = try ca.leafPEM(for: host)
            let leaf = try Certificate(pemEncoded: pem)
            let names = try #require(try leaf.extensions.subjectAlternativeNames)
            #expect(names.count == 1)
            #expect(leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) <= 31 * 86400)
            let file = directory.deletingLastPathComponent().appendingPathComponent("leaf.pem")
            try pem.write(to: file, atomically: true, encoding: .utf8)
            let verify = try await ClientProcess.run("/usr/bin/openssl", [
                "verify", "-CAfile", ca.certificateURL.path, "-purpose", "sslserver",
                host.contains(".") && !host.first!.isNumber ? "-verify_hostname" : "-verify_ip", host, file.path,
            ])
            #expect(verify.status == 0 && verify.stdout.contains(": OK"), "\(host): \(verify.stdout) \(verify.stderr)")
        }
        try FileManager.default.removeItem(at: ca.keyURL)
        #expect(throws: RecordingCA.Failure.self) { try RecordingCA.loadOrCreate(at: directory) }
        #expect(try RecordingCA.remove(at: directory))
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func recordingCAShowMakesPrintsAndRemoveDeletesButSparesTheTestCA() async throws {
        let directory = try Self.temporaryDirectory().appendingPathComponent("rca")
        let show = try await HarnessBinary.run(["recording-ca", "show", "--ca-dir", directory.path])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("(made now)") && show.stdout.contains("-----BEGIN CERTIFICATE-----"))
        #expect(!show.stdout.contains("PRIVATE KEY"))
        let fingerprint = try RecordingCA.load(from: directory).fingerprintSHA256
        #expect(show.stdout.contains("sha256: \(fingerprint)"))
        let again = try await HarnessBinary.run(["recording-ca", "show", "--ca-dir", directory.path])
        #expect(!again.stdout.contains("(made now)") && again.stdout.contains(fingerprint))
        let remove = try await HarnessBinary.run(["recording-ca", "remove", "--ca-dir", directory.path])
        #expect(remove.status == 0 && remove.stdout.contains("removed the recording CA"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("ca.key").path))
        // The harness's local test CA (setup-tls.sh's, with its ca.cnf) is not this command's to delete.
        let testCA = try await HarnessBinary.run(["recording-ca", "remove", "--ca-dir", Self.caDirectory.path])
        #expect(testCA.status == 1 && testCA.stderr.contains("setup-tls.sh --uninstall"), "\(testCA.stderr)")
        #expect(FileManager.default.fileExists(atPath: Self.caDirectory.appendingPathComponent("ca.key").path))
    }

    @Test func usageErrorsNameTheOption() async throws {
        let out = try Self.temporaryDirectory().appendingPathComponent("usage-check.yaml").path
        let none = try await HarnessBinary.run(["record", "--out", out])
        #expect(none.status == 2 && none.stderr.contains("--allow-host: name at least one host"), "\(none.stderr)")
        let url = try await HarnessBinary.run(["record", "--allow-host", "https://idp.example.org", "--out", out])
        #expect(url.status == 2 && url.stderr.contains("not a URL"), "\(url.stderr)")
        let listen = try await HarnessBinary.run(["record", "--allow-host", "idp.example.org", "--listen", "nowhere", "--out", out])
        #expect(listen.status == 2 && listen.stderr.contains("--listen nowhere"), "\(listen.stderr)")
    }

    @Test func allowHostPatterns() throws {
        let exact = try HostPattern("IdP.Example.org")
        #expect(exact.matches(host: "idp.example.org", port: 443) && exact.matches(host: "IDP.EXAMPLE.ORG.", port: 8443))
        #expect(!exact.matches(host: "evil-idp.example.org", port: 443))
        let wildcard = try HostPattern("*.example.org")
        #expect(wildcard.matches(host: "a.b.example.org", port: 443) && !wildcard.matches(host: "example.org", port: 443))
        #expect(!wildcard.matches(host: "example.org.evil.net", port: 443))
        let ported = try HostPattern("127.0.0.1:8443")
        #expect(ported.matches(host: "127.0.0.1", port: 8443) && !ported.matches(host: "127.0.0.1", port: 443))
        let v6 = try HostPattern("[::1]:8443")
        #expect(v6.matches(host: "[::1]", port: 8443) && v6.description == "[::1]:8443")
        for bad in ["https://idp.example.org", "", "idp.example.org:99999", "*idp.example.org", "a b"] {
            #expect(throws: HostPattern.Invalid.self, "\(bad)") { try HostPattern(bad) }
        }
    }
}

/// `samlharness record` in front of REAL products on loopback: the Debian SimpleSAMLphp 1.19 IdP
/// (`php -S`) and a Shibboleth SP 3.4 (Apache + mod_shib), started by
/// `scripts/record-real-chains.sh start` (plain http, as that script serves them: the SP on
/// `localhost`, the IdP on `127.0.0.1`). Each client logs in through the recorder; each recording
/// imports, replays, and is walked by the reference client through `samlharness run`.
@Suite(.serialized) struct RecordRealProductsTests {
    static let username = "peer-alice"
    static let password = "peer pass+1=ok&%"

    /// Starts the products; returns their start URL.
    static func startProducts() async throws -> String {
        let script = ClientProcess.repository.appendingPathComponent("scripts/record-real-chains.sh").path
        let started = try await ClientProcess.run("/bin/bash", [script, "start"], timeout: 300)
        try #require(started.status == 0, "record-real-chains.sh start: \(started.stdout) \(started.stderr)")
        let start = started.stdout.split(separator: "\n").first { $0.hasPrefix("START=") }.map { String($0.dropFirst(6)) }
        return try #require(start, "no START= in \(started.stdout)")
    }

    static func stopProducts() async {
        let script = ClientProcess.repository.appendingPathComponent("scripts/record-real-chains.sh").path
        _ = try? await ClientProcess.run("/bin/bash", [script, "stop"], timeout: 60)
    }

    static func recordAndWalk(id: String, client: @escaping (_ start: String, _ proxy: String) -> [String]) async throws {
        let start = try await startProducts()
        let directory = try RecordProxyTests.temporaryDirectory()
        let out = directory.appendingPathComponent("\(id).yaml").path
        let har = directory.appendingPathComponent("\(id).har").path
        let recorder: ServeProcess
        do {
            recorder = try await ServeProcess.start(["--listen", "127.0.0.1:0", "--allow-host", "localhost", "--allow-host", "127.0.0.1",
                                                     "--others", "refuse", "--ca-dir", directory.appendingPathComponent("ca").path,
                                                     "--out", out, "--har", har], command: "record")
        } catch {
            await stopProducts()
            throw error
        }
        let proxy = recorder.ready["proxy"] as? String ?? ""
        let result = directory.appendingPathComponent("client.json").path
        let outcome = try await ClientProcess.run("/usr/bin/env", [
            "SAMLH_FLOW=web-sso", "SAMLH_START_URL=\(start)", "SAMLH_USERNAME=\(username)", "SAMLH_PASSWORD=\(password)",
            "SAMLH_RESULT_FILE=\(result)",
        ] + client(start, proxy), timeout: 120)
        let (status, stderr) = await recorder.stop(signal: SIGINT)
        await stopProducts()
        // The recorder's stderr lists every exchange (method, URL, status): the trace of a failure.
        #expect(outcome.status == 0, "\(id) client: \(outcome.stdout) \(outcome.stderr)\nrecorded:\n\(stderr)")
        #expect(status == 0, "record: \(stderr) \(recorder.stdoutAfterReady)")
        let text = try String(contentsOfFile: har, encoding: .utf8)
        #expect(text.contains("/simplesaml/module.php/core/loginuserpass.php"), "SimpleSAMLphp's login form not recorded")
        #expect(text.contains("/Shibboleth.sso/SAML2/POST"), "the Shibboleth SP's ACS not recorded")
        #expect(recorder.stdoutAfterReady.contains("recorded") && recorder.stdoutAfterReady.contains("with localhost:"))
        let yaml = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!yaml.contains(password))
        let reports = try RecordProxyTests.temporaryDirectory()
        let run = try await HarnessBinary.run(["run", "--builtin", "reference", "--scenarios", out, "--report-dir", reports.path],
                                              timeout: 120)
        #expect(run.stdout.contains("1 pass, 0 fail, 0 error"), "walk of \(id): \(run.stdout) \(run.stderr)")
    }

    @Test func referenceClientThroughRecorderAtSimpleSAMLphpAndShibboleth() async throws {
        try await Self.recordAndWalk(id: "real-reference") { _, proxy in
            ["http_proxy=\(proxy)", "https_proxy=\(proxy)", "no_proxy=", RecordProxyTests.referenceClient]
        }
    }

    @Test func pythonRequestsThroughRecorderAtSimpleSAMLphpAndShibboleth() async throws {
        try #require(ClientProcess.interopAvailable, "the interop venv (scripts/setup-interop.sh)")
        try await Self.recordAndWalk(id: "real-requests") { _, proxy in
            ["SAMLH_VIA_PROXY=\(proxy)", ClientProcess.venvPython, ClientProcess.script("samlh_requests_client.py")]
        }
    }

    @Test func headlessChromiumThroughRecorderAtSimpleSAMLphpAndShibboleth() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: RecordProxyTests.browserPython)
                     || ProcessInfo.processInfo.environment["CI"] != nil, "scripts/setup-browser-tests.sh")
        try await Self.recordAndWalk(id: "real-chromium") { _, proxy in
            ["SAMLH_BROWSER_PROXY=\(proxy)", RecordProxyTests.browserPython, ClientProcess.script("browser_login_client.py")]
        }
    }
}
