import Foundation
import Testing
import TestSupport

/// Negotiate with Kerberos against a real MIT KDC (Debian's krb5-kdc run from a directory of
/// its own by scripts/setup-kerberos.sh): the runner gets the client its ticket with kinit, the
/// mocks accept the AP-REQ through GSS-API with the realm's keytab, and the checks read the
/// service principal from the bytes the client sent. Clients: real curl (`--negotiate -u :`)
/// and the reference client (which speaks no Kerberos, and is caught by the checks for it).
@Suite(.serialized) struct KerberosRealmTests {
    static let scenarios = ["Scenarios/http-auth/http-ntlm.kerberos-login.yaml", "Scenarios/http-auth/http-ntlm.kerberos-preferred.yaml"]

    /// The realm, made once per test process in a temporary directory and its KDC started
    /// (`setup-kerberos.sh start` on a thread of its own, never blocking the pool).
    static var realm: Result<String, RealmFailure> {
        get async { await realmTask.value }
    }

    private static let realmTask = Task { () -> Result<String, RealmFailure> in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-krb5-\(getpid())").path
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/krb5kdc") else {
            return .failure(RealmFailure(description: "krb5kdc is not installed: bash scripts/setup-kerberos.sh install"))
        }
        do {
            let started = try await ClientProcess.run("/bin/bash", ["scripts/setup-kerberos.sh", "start", directory], timeout: 60)
            guard started.status == 0 else {
                return .failure(RealmFailure(description: "setup-kerberos.sh start failed: \(started.stdout) \(started.stderr)"))
            }
        } catch {
            return .failure(RealmFailure(description: "\(error)"))
        }
        // The KDC ends with this test process (its pid file names it), and the realm's directory
        // (its keys and the users' passwords) goes with it.
        atexit {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-krb5-\(getpid())")
            let path = directory.appendingPathComponent("kdc.pid").path
            if let text = try? String(contentsOfFile: path, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, SIGTERM)
            }
            try? FileManager.default.removeItem(at: directory)
        }
        return .success(directory)
    }

    struct RealmFailure: Error, CustomStringConvertible { let description: String }

    static func run(_ client: [String], realm: String?, _ scenarios: [String] = scenarios) async throws -> (ClientProcess.Outcome, [[String: Any]]) {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("krb-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: reports) }
        var arguments = [HarnessBinary.url.path, "run"] + scenarios.flatMap { ["--scenarios", $0] } + client
        arguments += ["--report-dir", reports.path, "--format", "json", "--show-secrets"]
        // The mocks in-process read SAMLH_KERBEROS from the environment, as the runner does.
        let outcome = try await ClientProcess.run("/usr/bin/env", (realm.map { ["SAMLH_KERBEROS=\($0)"] } ?? ["-u", "SAMLH_KERBEROS"]) + arguments,
                                                  timeout: 120)
        let lines = (try? String(contentsOf: reports.appendingPathComponent("results.jsonl"), encoding: .utf8)) ?? ""
        let results = lines.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["scenario"] != nil && $0["status"] != nil }
        return (outcome, results)
    }

    static func verdicts(_ result: [String: Any]) -> [String: [String: Any]] {
        var byCheck: [String: [String: Any]] = [:]
        for verdict in result["verdicts"] as? [[String: Any]] ?? [] { byCheck[verdict["check"] as? String ?? ""] = verdict }
        return byCheck
    }

    @Test func curlLogsInWithItsTicketAndTheCheckReadsTheServicePrincipal() async throws {
        let directory = try await Self.realm.get()
        let (outcome, results) = try await Self.run(["--client", "sh Tests/RealClients/curl.sh"], realm: directory)
        #expect(results.count == 2, "\(outcome.stdout)\(outcome.stderr)")
        for result in results {
            #expect(result["status"] as? String == "pass", "\(result["scenario"] ?? "?"): \(result["reason"] ?? "")")
            let preferred = Self.verdicts(result)["ntlm.kerberos-preferred"]
            #expect(preferred?["status"] as? String == "pass")
            #expect("\(preferred ?? [:])".contains("HTTP/127.0.0.1@EXAMPLE.ORG"))
        }
    }

    @Test func aClientWithoutKerberosIsRefusedWhereNTLMIsBlockedAndCaughtFallingBack() async throws {
        let directory = try await Self.realm.get()
        let (outcome, results) = try await Self.run(["--builtin", "reference"], realm: directory)
        let byID = Dictionary(uniqueKeysWithValues: results.map { ($0["scenario"] as? String ?? "", $0) })
        let blocked = try #require(byID["http-ntlm.kerberos-login"], "\(outcome.stdout)\(outcome.stderr)")
        // Kerberos is the scenario's optional feature (`optional:`): a client without it is
        // `unsupported`, not `fail` (issue 35), its failed checks still in the verdicts.
        #expect(blocked["status"] as? String == "unsupported")
        #expect(Self.verdicts(blocked)["flow.resource-obtained"]?["status"] as? String == "fail")
        let fallback = try #require(byID["http-ntlm.kerberos-preferred"])
        #expect(fallback["status"] as? String == "unsupported")
        let preferred = try #require(Self.verdicts(fallback)["ntlm.kerberos-preferred"])
        #expect(preferred["status"] as? String == "fail")
        #expect("\(preferred)".contains("NTLM inside Negotiate"))
        // The NTLM login itself succeeded: only the downgrade is the fault.
        #expect(Self.verdicts(fallback)["flow.resource-obtained"]?["status"] as? String == "pass")
    }

    @Test func withoutARealmTheScenariosAreSkippedSayingWhy() async throws {
        let (_, results) = try await Self.run(["--builtin", "reference"], realm: nil)
        #expect(results.count == 2)
        for result in results {
            #expect(result["status"] as? String == "skipped")
            #expect((result["reason"] as? String ?? "").contains("setup-kerberos.sh"))
        }
    }

    /// The mock is a real acceptor: the same AP-REQ sent twice meets MIT's replay cache, and a
    /// successful login carries the mutual-authentication token back.
    @Test func aReplayedTicketIsRefusedByTheReplayCache() async throws {
        let directory = try await Self.realm.get()
        let serve = try await ServeProcess.start(["--profile", "windows", "--no-console"], environment: ["SAMLH_KERBEROS": directory])
        defer { serve.terminate() }
        let url = try #require(serve.url("auth", "negotiate"))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("krb-cc-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let env = ["KRB5_CONFIG=\(directory)/krb5.conf", "KRB5CCNAME=FILE:\(cache)"]
        let kinit = try await ClientProcess.run("/usr/bin/env", env + ["kinit", "alice@EXAMPLE.ORG"], timeout: 30,
                                                stdin: "W1nter+2026=&%:@ ok\n")
        #expect(kinit.status == 0, "\(kinit.stderr)")
        let first = try await ClientProcess.run("/usr/bin/env", env + ["curl", "-sv", "--negotiate", "-u", ":", url], timeout: 30)
        #expect(first.stdout.contains("AUTH-"), "\(first.stderr)")
        let sent = try #require(first.stderr.components(separatedBy: .newlines).first { $0.hasPrefix("> Authorization: Negotiate ") },
                                "\(first.stderr.prefix(3000))")
        #expect(first.stderr.contains("< WWW-Authenticate: Negotiate "), "no mutual-authentication token came back")
        let header = sent.dropFirst(2).trimmingCharacters(in: .whitespacesAndNewlines)
        let again = try await ClientProcess.run("/usr/bin/curl", ["-s", "-H", header, "-w", "\n%{http_code}", url], timeout: 30)
        #expect(again.stdout.hasSuffix("401"))
        #expect(again.stdout.contains("Request is a replay"), "\(again.stdout)")
    }
}
