import Foundation
import Harness
import TestSupport
import Testing

/// `samlharness attack-sp` against an SP that SAMLCore has no part in: python3-saml 1.16
/// (OneLogin's toolkit, settings at their defaults) behind a minimal http.server SP,
/// Tests/Interop/pysaml_sp_server.py. The table is pinned as observed — findings about
/// python3-saml, not a claim that it is invulnerable — so any change in its behaviour (or in
/// the catalog) is noticed. docs/attack-sp.md discusses each finding.
@Suite(.serialized, .enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
struct AttackPySAMLTests {
    static let observed = [
        "xsw1 rejected", "xsw2 rejected", "xsw3 rejected", "xsw4 rejected", "xsw5 rejected", "xsw6 rejected",
        "xsw7 rejected", "xsw8 rejected", "nameid-comment read-whole", "signature-exclusion rejected",
        "keyinfo-cert-confusion rejected", "reference-other-id rejected", "duplicate-ids rejected",
        // python3-saml lets xmlsec run any transform: a digest over nothing verifies.
        "transform-xslt ACCEPTED", "transform-xpath ACCEPTED",
        // rejectDeprecatedAlgorithm is off by default.
        "sha1-downgrade ACCEPTED",
        // python3-saml keeps no replay cache; the application must.
        "replay ACCEPTED",
        "wrong-audience rejected", "wrong-recipient rejected", "wrong-destination rejected", "expired rejected",
        // InResponseTo is only compared with a request ID the application passes in.
        "forged-in-response-to ACCEPTED",
        "doctype-smuggled-assertion rejected", "assertion-in-extensions rejected", "second-assertion rejected",
    ]

    @Test func attackSPAgainstPython3SAML() async throws {
        let keys = SuiteFixture.mockIdP.appendingPathComponent("keys")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("attack-pysaml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let q = ClientProcessRunner.shellQuoted
        let idp = "https://idp.samlharness.test/idp/shibboleth"
        let sp = "https://sp.pysaml.test/sp"
        // The SP's ready line (its port) comes through a FIFO: read as soon as it is listening.
        let script = """
        mkfifo \(q(work.path))/port || exit 3
        \(q(ClientProcess.venvPython)) \(q(ClientProcess.script("pysaml_sp_server.py"))) \
          --idp-cert \(q(keys.appendingPathComponent("idp-cert.pem").path)) --idp-entity-id \(q(idp)) \
          --sp-entity-id \(q(sp)) >\(q(work.path))/port 2>\(q(work.path))/sp.log &
        server=$!
        read port <\(q(work.path))/port
        if [ -z "$port" ]; then echo "the python3-saml SP did not start:" >&2; cat \(q(work.path))/sp.log >&2; exit 3; fi
        \(q(HarnessBinary.url.path)) attack-sp --acs "http://127.0.0.1:$port/acs" --sp-entity-id \(q(sp)) \
          --idp-entity-id \(q(idp)) --success-pattern 'WELCOME' --failure-pattern 'REJECTED' \
          --json-out \(q(work.path))/report.json --mockidp-dir \(q(SuiteFixture.mockIdP.path))
        status=$?
        kill $server
        exit $status
        """
        let outcome = try await ClientProcess.run("/bin/sh", ["-c", script], timeout: 180)
        #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
        let report = try JSONDecoder().decode(AttackReport.self, from: Data(contentsOf: work.appendingPathComponent("report.json")))
        #expect(report.verdictLines == Self.observed, "\(outcome.stdout)")
        #expect(report.baseline.detail == "matched \"WELCOME\"; logged in as alice@example.org (page)")
        // The transforms are ACCEPTED because python3-saml logged the victim in (its page says whom).
        #expect(report.results.first { $0.id == "transform-xslt" }?.loggedInAs == "admin@example.org (page)")
        let comment = try #require(report.results.first { $0.id == "nameid-comment" })
        #expect(comment.evidence.detail.contains("whole NameID admin@example.org.attacker.example"))
        let exclusion = try #require(report.results.first { $0.id == "signature-exclusion" })
        #expect(exclusion.evidence.detail.contains("No Signature found"))
        #expect(outcome.stdout.contains("VULNERABLE to: transform-xslt, transform-xpath, sha1-downgrade, replay, forged-in-response-to"))
        print(outcome.stdout)
    }
}
