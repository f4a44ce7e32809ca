import Foundation
import Testing
import TestSupport
@testable import Harness

/// The harness's verdicts bite. The reference client and each buggy variant of it (one
/// classic bug each, `samlh-reference-client --variant NAME`) run through the WHOLE catalog:
/// the reference client gets no failed verdict anywhere; each variant fails exactly the checks
/// its bug trips — the check that names the bug, plus the checks where the bug costs the
/// login (`consequences`, each explained) — and no others. Every variant is caught: the
/// mutation score is 22/22.
///
/// The runs go in parallel (at most `Limiter.slots` catalogs at a time, two scenarios each)
/// at `--time-scale 0.5`.
@Suite struct MutationTests {
    static let client = HarnessBinary.url.deletingLastPathComponent().appendingPathComponent("samlh-reference-client").path

    struct Mutant: CustomTestStringConvertible, Sendable {
        let variant: String
        /// The check that names the bug.
        let names: String
        /// Checks that fail as a consequence of the bug somewhere in the catalog, and why.
        let consequences: [String: String]
        /// Scenarios where the bug may leave the client stopped (status `error`): flooding
        /// the mocks, or out of time.
        var errors: Set<String> = []
        /// Checks the bug may also trip, depending on where a looping client happens to be
        /// stopped (a CAS ticket issued just before the end is never validated), and why.
        var mayTrip: [String: String] = [:]
        var trips: Set<String> { Set(consequences.keys).union([names]) }
        var testDescription: String { variant }
    }

    static let mutants: [Mutant] = [
        .init(variant: "form-not-encoded", names: "encoding.form-percent-encoded", consequences: [
            "encoding.utf8-credentials": "a non-ASCII password goes out raw, not as UTF-8 percent-escapes",
            "encoding.samlresponse-intact": "`+` in the posted SAMLResponse arrives as a space",
            "encoding.base64-unaltered": "the same, seen on the base64 text",
            "flow.resource-obtained": "the IdP refuses the mangled password or the SP the mangled Response",
            "flow.failure-reported": "negative scenarios fail for the mangling, not for the reason they test",
        ]),
        .init(variant: "base64-padding-stripped", names: "encoding.base64-unaltered", consequences: [
            "encoding.samlresponse-intact": "the posted SAMLResponse is not the one served",
            "flow.resource-obtained": "the replayed SP of the recorded chain refuses the unpadded Response",
        ]),
        .init(variant: "relaystate-dropped", names: "flow.relaystate-preserved", consequences: [
            "encoding.relaystate-unaltered": "the RelayState served never comes back",
            "flow.post-form-submitted": "the auto-post form is not submitted as served",
            "flow.resource-obtained": "the SP refuses a Response without its RelayState",
            "flow.failure-reported": "negative scenarios fail for the missing RelayState, not for what they test",
        ]),
        .init(variant: "cookies-not-kept", names: "flow.cookies-kept", consequences: [
            "flow.idp-session-reused": "no IdP session cookie, so no single sign-on",
            "flow.resource-obtained": "no session cookie at the SP or IdP, so no login completes",
            "flow.failure-reported": "negative scenarios fail for the lost session, not for what they test",
            "flow.no-false-success": "an IdP-initiated Basic login lands on the SP's home page (homeURL) without the session cookie, and the client takes the page for success",
            "adfs.form-login-posted": "AD FS's forms sign-in needs its MSISSamlRequest cookie",
            "ecp.paos-headers": "without the SP's cookie its /secure answers a browser redirect to a request with no PAOS header",
            "httpauth.challenge-answered": "the IdP's Basic login challenges again when its session cookie is missing",
        ], errors: ["adfs-passive.slow"],  // each new sign-in waits out the slow AD FS again: may time out
           mayTrip: ["cas.ticket-validated-promptly": "cas-browser.slow-login loops without cookies; a ticket issued just before the client gives up is never validated"]),
        .init(variant: "password-retried-forever", names: "flow.bad-password-bounded", consequences: [
            "flow.failure-reported": "the client never stops to report the refused password",
            "httpauth.challenge-answered": "a challenge answered more than once with the same refused credentials",
            "ntlm.bad-credentials-bounded": "a refused NTLM handshake started over and over until the time runs out",
        ], errors: ["ecp.bad-password", "http-basic.bad-password", "http-digest.bad-password", "http-digest.sha256-bad-password",
                    "proxy.origin-bad-password", "web-sso.idp-basic-bad-password", "http-ntlm.bad-password",
                    "http-ntlm.always-rechallenge", "http-ntlm.challenge-on-closed-connection"]),
        .init(variant: "basic-before-challenge", names: "security.no-preemptive-credentials", consequences: [
            "security.password-only-to-idp": "the password goes to the SP and the circulation manager, not only the IdP",
            "httpauth.challenge-answered": "credentials sent before the challenge they should answer",
            "security.no-credentials-to-other-host": "the credentials go to hosts that never challenged (the SP, the circulation manager)",
        ]),
        .init(variant: "credentials-to-other-host", names: "security.no-credentials-to-other-host", consequences: [
            "security.no-preemptive-credentials": "the credentials reach the other host before it challenged",
            "flow.failure-reported": "with the first host's credentials the other host serves its page, where the client had to stop",
        ]),
        .init(variant: "https-downgrade-followed", names: "security.no-https-downgrade", consequences: [
            "flow.failure-reported": "the client reaches the resource over http where it had to stop",
        ]),
        .init(variant: "credentials-invalid-ignored", names: "flow.reauth-on-credentials-invalid", consequences: [
            "flow.resource-obtained": "without the new login the book is never fulfilled",
        ]),
        .init(variant: "cas-ticket-reused", names: "cas.service-ticket-single-use", consequences: [
            "flow.no-duplicate-post": "the same validation sent twice",
            "flow.resource-obtained": "the second validation of a single-use ticket fails",
        ]),
        .init(variant: "cas-wrong-service", names: "cas.service-url-exact", consequences: [
            "flow.resource-obtained": "the server refuses the ticket for another service",
            "flow.failure-reported": "where the server itself rewrites the service, the wrong one happens to match",
        ]),
        .init(variant: "wstrust-password-unescaped", names: "wstrust.credentials-xml-escaped", consequences: [
            "wstrust.envelope-well-formed": "`<` or `&` in the password breaks the envelope",
            "flow.resource-obtained": "AD FS answers a fault to the broken envelope",
            "flow.failure-reported": "negative scenarios fail for the broken envelope, not for what they test",
        ]),
        .init(variant: "ecp-consumer-url-unchecked", names: "ecp.consumer-url-matched", consequences: [
            "flow.failure-reported": "the Response goes to the IdP's consumer URL instead of stopping",
        ]),
        .init(variant: "error-page-as-success", names: "flow.no-false-success", consequences: [
            "flow.failure-reported": "an IdP error page answered 200 is reported as the resource",
        ]),
        .init(variant: "unsigned-accepted", names: "security.signature-validated", consequences: [:]),
        .init(variant: "token-conditions-unchecked", names: "flow.failure-reported", consequences: [
            "security.assertion-conditions-validated": "it declares it checks a token's validity window (time-conditions), yet took the expired token",
        ]),
        .init(variant: "trust-all-certificates", names: "security.tls-certificate-validated", consequences: [
            "flow.failure-reported": "past the certificate it should have refused, the login succeeds where it had to fail",
        ]),
        .init(variant: "trust-self-signed", names: "security.tls-certificate-validated", consequences: [
            "flow.failure-reported": "past the self-signed certificate, the login succeeds where it had to fail",
        ]),
        .init(variant: "ntlm-v1", names: "ntlm.v2-only", consequences: [
            "flow.resource-obtained": "the servers accept NTLMv2 only (LmCompatibilityLevel 5) and refuse the NTLMv1 response",
            "flow.failure-reported": "the NTLMv1-only server gets what it asked for: the downgrade succeeds where it had to fail",
        ]),
        .init(variant: "ntlm-new-connection", names: "ntlm.handshake-correct", consequences: [
            "flow.resource-obtained": "the AUTHENTICATE on a new connection meets a server that sent it no CHALLENGE",
        ]),
        .init(variant: "ntlm-no-domain", names: "ntlm.handshake-correct", consequences: [:]),
        .init(variant: "ntlm-token-carried", names: "ntlm.credentials-scoped", consequences: [
            "ntlm.handshake-correct": "the carried AUTHENTICATE answers no CHALLENGE of the host it reaches",
            "security.no-credentials-to-other-host": "the carried token is the user's credentials at a host that never asked (judged in every http-ntlm scenario)",
        ]),
    ]

    /// At most this many catalog runs at once (each with two scenarios in parallel).
    actor Limiter {
        static let shared = Limiter()
        static let slots = 3
        private var free = slots
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }

    static func run(_ command: String, _ scenarios: [Scenario], jobs: Int = 2) async throws -> [ScenarioResult] {
        var runner = ScenarioRunner(loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP),
                                    mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        // A client that floods is stopped after 300 requests here (2000 by default): the
        // catalog's longest honest login makes about 40.
        runner.maxExchanges = 300
        runner.recordsTrace = false
        // The deliberate waits at half (a dead IdP holds a client 5 s, not 10 s): the verdicts
        // are the same. A quarter (a 2.5 s request timeout) left a debug client too little on a
        // loaded machine once every scenario also judged its flow's security and encoding checks
        // (issue 35): honest answers timed out in web-sso.relaystate-* about once a table.
        runner.timeScale = 0.5
        // The table runs without a Kerberos realm, whatever the shell exported: the three
        // Kerberos scenarios are skipped (KerberosRealmTests runs them with one).
        runner.kerberos = nil
        await Limiter.shared.acquire()
        let results = await RunEngine(jobs: jobs).run(scenarios, client: ExternalCommandClient(command: command), runner: runner) { _ in }
        await Limiter.shared.release()
        return results
    }

    static func failed(_ results: [ScenarioResult]) -> Set<String> {
        Set(results.filter { !crashed($0) }.flatMap { $0.verdicts.filter { $0.status == .fail }.map(\.check) })
    }

    /// Whether the reference client died by a signal. None may: it once died by SIGSEGV
    /// (status 139) on a connection reset mid-body under heavy load, inside libdispatch under
    /// FoundationNetworking's sockets (scripts/repro/urlsession-reset-crash.swift); its plain
    /// http now goes over SwiftNIO (`NIOHTTPTransport`, docs/reference-client.md). A crashed
    /// result is left out of the exact comparison, so the failure names the crash (scenario
    /// and signal) rather than the verdicts it cost.
    static func crashed(_ result: ScenarioResult) -> Bool {
        // SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV: not the runner's SIGTERM/SIGKILL
        // at a timeout, which the table's `errors` cover.
        guard let status = result.client?.status, result.client?.timedOut != true else { return false }
        return signalNames[status] != nil
    }

    static let signalNames: [Int32: String] = [132: "SIGILL", 133: "SIGTRAP", 134: "SIGABRT", 135: "SIGBUS", 136: "SIGFPE", 139: "SIGSEGV"]

    /// "web-sso.idp-connection-reset (SIGSEGV, status 139)" for each crashed result.
    static func crashes(in results: [ScenarioResult]) -> [String] {
        results.filter(crashed).map { result in
            let status = result.client?.status ?? 0
            return "\(result.scenario) (\(signalNames[status] ?? "signal \(status - 128)"), status \(status))"
        }
    }

    /// How many proxy scenarios of one catalog run may end at the proxy's first 407 (see
    /// ``proxyGaveUp(_:)``).
    static let maxProxyGaveUp = 2

    /// Which scenarios failed each of `checks`, and why: a timing verdict under load says
    /// where to look (`flow.timeout-clean` in web-sso.x: "the client waited about …").
    static func `where`(_ checks: Set<String>, failedIn results: [ScenarioResult]) -> String {
        results.filter { !crashed($0) }.flatMap { result in
            result.verdicts.filter { $0.status == .fail && checks.contains($0.check) }
                .map { "\(result.scenario): \($0.check): \($0.reason)" }
        }.joined(separator: "; ")
    }

    /// Whether the client never answered the forward proxy's 407 at all (issue 35: the run is
    /// an error, "the situation … never arose"). On a loaded machine (four catalogs beside
    /// another build) FoundationNetworking's handling of a 407 (HTTPSession's cancellation
    /// trap) has ended the request before the proxy credentials went, about once in a full
    /// table, whatever the variant: like a crash above, the reference client's platform, not the
    /// variant's bug; before issue 35 the same runs were a `flow.resource-obtained` failure
    /// hidden among a variant's consequences. At most ``maxProxyGaveUp`` per catalog run.
    static func proxyGaveUp(_ result: ScenarioResult) -> Bool {
        guard result.status == .error, let reason = result.reason else { return false }
        return reason.contains("the proxy answered every request with 407") && reason.contains("never sent Proxy-Authorization")
    }

    @Test func theReferenceClientPassesTheWholeCatalog() async throws {
        let catalog = CatalogTests.catalog.scenarios
        #expect(catalog.count >= 200)
        let results = try await Self.run("'\(Self.client)'", catalog)
        // The Kerberos scenarios need a realm (SAMLH_KERBEROS), which this table runs without:
        // skipped, saying so (KerberosRealmTests runs them with one).
        let needRealm = Set(catalog.filter { $0.options?.kerberos == true }.map(\.id))
        #expect(needRealm.count == 3)
        #expect(results.filter(Self.proxyGaveUp).count <= Self.maxProxyGaveUp)
        #expect(Self.crashes(in: results).isEmpty, "the client crashed in \(Self.crashes(in: results).joined(separator: ", "))")
        for result in results where !(needRealm.contains(result.scenario) && result.status == .skipped) && !Self.proxyGaveUp(result)
            && (result.status != .pass || result.verdicts.contains(where: { $0.status == .fail })) {
            Issue.record("\(result.scenario): \(result.status) \(result.reason ?? "") \(result.verdicts.filter { $0.status == .fail }.map(\.check))")
        }
        #expect(Set(results.filter { $0.status == .skipped }.map(\.scenario)) == needRealm)
        #expect(results.count == catalog.count)
        // Every check was evaluated somewhere, and judged something somewhere.
        let judged = Set(results.flatMap { $0.verdicts.filter { $0.status == .pass }.map(\.check) })
        #expect(results.allSatisfy { !$0.verdicts.contains { $0.status == .notEvaluated } })
        #expect(judged.count >= 45, "checks that passed something: \(judged.count)")
    }

    @Test(arguments: mutants)
    func eachVariantFailsExactlyTheChecksItsBugTripsOverTheWholeCatalog(_ mutant: Mutant) async throws {
        let catalog = CatalogTests.catalog.scenarios
        let buggy = try await Self.run("'\(Self.client)' --variant \(mutant.variant)", catalog)
        #expect(buggy.count == catalog.count)
        let crashes = Self.crashes(in: buggy)
        #expect(crashes.isEmpty, "\(mutant.variant): the client crashed in \(crashes.joined(separator: ", "))")
        let failed = Self.failed(buggy)
        #expect(failed.contains(mutant.names), "\(mutant.variant) was not caught by \(mutant.names)")
        let unexpected = failed.subtracting(mutant.trips).subtracting(mutant.mayTrip.keys)
        #expect(unexpected.isEmpty && mutant.trips.isSubset(of: failed), """
            \(mutant.variant): unexpected \(unexpected.sorted()) (in \(Self.where(unexpected, failedIn: buggy))), \
            never tripped \(mutant.trips.subtracting(failed).sorted())
            """)
        // A bug may leave the client stopped only where the table says, and only for
        // flooding or for running out of time.
        let gaveUp = buggy.filter(Self.proxyGaveUp)
        #expect(gaveUp.count <= Self.maxProxyGaveUp, "\(mutant.variant): \(gaveUp.count) proxy scenarios never got past the 407")
        let errors = buggy.filter { $0.status == .error && !Self.proxyGaveUp($0) }
        #expect(Set(errors.map(\.scenario)).isSubset(of: mutant.errors),
                "\(mutant.variant): errors \(errors.map { "\($0.scenario): \($0.reason ?? "")" })")
        for error in errors {
            let reason = error.reason ?? ""
            #expect(reason.contains("more than 300 requests") || reason.contains("did not finish within"), "\(error.scenario): \(reason)")
        }
    }

    @Test func everyVariantIsNamedAndTheUnknownOneRefused() async throws {
        let outcome = try await ClientProcess.run(Self.client, ["--variant", "no-such-bug"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("no variant `no-such-bug`"))
        #expect(Set(Self.mutants.map(\.variant)).count == Self.mutants.count)
        #expect(Self.mutants.count >= 16)
    }
}
