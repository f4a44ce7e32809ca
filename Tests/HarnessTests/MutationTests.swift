import Foundation
import Testing
import TestSupport
@testable import Harness

/// The harness's verdicts bite: the reference client passes the whole catalog with no failed
/// verdict at all, and each buggy variant of it (one classic bug each,
/// `samlh-reference-client --variant NAME`) fails exactly the checks its bug trips — the
/// check that names the bug, plus the expectation where the bug costs the login — and no
/// others, on scenarios where the bug shows.
///
/// Not in the table (not caught by this build; see the note on issue 6):
/// `https-downgrade-followed` (the mocks serve no TLS, so no https→http redirect happens) and
/// `error-page-as-success` (no scenario ends on an IdP error page answered with 200).
@Suite(.serialized) struct MutationTests {
    static let client = HarnessBinary.url.deletingLastPathComponent().appendingPathComponent("samlh-reference-client").path

    struct Mutant: CustomTestStringConvertible, Sendable {
        let variant: String
        let scenarios: [String]
        let trips: Set<String>
        var testDescription: String { variant }
    }

    static let mutants: [Mutant] = [
        .init(variant: "form-not-encoded",
              scenarios: ["web-sso.shibboleth-form-login", "web-sso.percent-in-password", "cas-rest.form-encoded-password",
                          "web-sso.wrong-audience"],
              trips: ["encoding.form-percent-encoded", "encoding.utf8-credentials", "flow.failure-reported", "flow.resource-obtained"]),
        .init(variant: "base64-padding-stripped",
              scenarios: ["adfs-passive.forms-login", "opds-saml.base64-wrapped", "web-sso.shibboleth-form-login"],
              trips: ["encoding.base64-unaltered", "encoding.samlresponse-intact"]),
        .init(variant: "relaystate-dropped",
              scenarios: ["web-sso.shibboleth-form-login", "web-sso.deep-link", "ecp.shibboleth-login"],
              trips: ["encoding.relaystate-unaltered", "flow.post-form-submitted", "flow.relaystate-preserved",
                      "flow.resource-obtained"]),
        .init(variant: "cookies-not-kept",
              scenarios: ["web-sso.shibboleth-form-login", "cas-browser.sso-tgc-reuse", "http-basic.utf8-credentials"],
              trips: ["flow.cookies-kept", "flow.idp-session-reused", "flow.resource-obtained"]),
        .init(variant: "password-retried-forever",
              scenarios: ["web-sso.bad-password-loop", "http-basic.bad-password"],
              trips: ["flow.bad-password-bounded", "httpauth.challenge-answered", "flow.failure-reported"]),
        .init(variant: "basic-before-challenge",
              scenarios: ["http-basic.utf8-credentials", "http-digest.md5", "web-sso.idp-http-basic"],
              trips: ["security.no-preemptive-credentials", "security.password-only-to-idp"]),
        .init(variant: "credentials-to-other-host",
              scenarios: ["http-basic.redirect-to-other-host", "http-basic.utf8-credentials"],
              trips: ["security.no-credentials-to-other-host", "security.no-preemptive-credentials"]),
        .init(variant: "credentials-invalid-ignored",
              scenarios: ["opds-saml.token-revoked-after-borrow", "opds-saml.login-borrow-fulfil"],
              trips: ["flow.reauth-on-credentials-invalid", "flow.resource-obtained"]),
        .init(variant: "cas-ticket-reused",
              scenarios: ["cas-rest.ticket-reuse", "cas-rest.no-attributes"],
              trips: ["cas.service-ticket-single-use", "flow.no-duplicate-post", "flow.resource-obtained"]),
        .init(variant: "cas-wrong-service",
              scenarios: ["cas-rest.ticket-reuse", "cas-rest.service-with-query-exact"],
              trips: ["cas.service-url-exact", "flow.resource-obtained"]),
        .init(variant: "wstrust-password-unescaped",
              scenarios: ["adfs-wstrust.saml11-token", "adfs-wstrust.bad-password"],
              trips: ["flow.failure-reported", "flow.resource-obtained", "wstrust.credentials-xml-escaped",
                      "wstrust.envelope-well-formed"]),
        .init(variant: "ecp-consumer-url-unchecked",
              scenarios: ["ecp.consumer-url-mismatch", "ecp.shibboleth-login"],
              trips: ["ecp.consumer-url-matched", "flow.failure-reported"]),
        .init(variant: "unsigned-accepted",
              scenarios: ["ecp.response-unsigned", "ecp.shibboleth-login"],
              trips: ["security.signature-validated"]),
        .init(variant: "token-conditions-unchecked",
              scenarios: ["adfs-wstrust.token-expired", "adfs-wstrust.saml11-token"],
              trips: ["flow.failure-reported"]),
    ]

    static func run(_ command: String, _ scenarios: [Scenario], jobs: Int = 2) async throws -> [ScenarioResult] {
        let runner = ScenarioRunner(loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP),
                                    mockIdPDirectory: SuiteFixture.mockIdP,
                                    workDirectory: FileManager.default.temporaryDirectory)
        return await RunEngine(jobs: jobs, timeoutOverride: 15).run(scenarios, client: ExternalCommandClient(command: command),
                                                                    runner: runner) { _ in }
    }

    static func failed(_ results: [ScenarioResult]) -> Set<String> {
        Set(results.flatMap { $0.verdicts.filter { $0.status == .fail }.map(\.check) })
    }

    @Test func theReferenceClientPassesTheWholeCatalog() async throws {
        let catalog = CatalogTests.catalog.scenarios
        #expect(catalog.count >= 120)
        let results = try await Self.run("'\(Self.client)'", catalog)
        for result in results where result.status != .pass || result.verdicts.contains(where: { $0.status == .fail }) {
            Issue.record("\(result.scenario): \(result.status) \(result.reason ?? "") \(result.verdicts.filter { $0.status == .fail }.map(\.check))")
        }
        #expect(results.count == catalog.count)
        // Every check was evaluated somewhere, and judged something somewhere.
        let judged = Set(results.flatMap { $0.verdicts.filter { $0.status == .pass }.map(\.check) })
        #expect(results.allSatisfy { !$0.verdicts.contains { $0.status == .notEvaluated } })
        #expect(judged.count >= 45, "checks that passed something: \(judged.count)")
    }

    @Test(arguments: mutants)
    func eachVariantFailsExactlyTheChecksItsBugTrips(_ mutant: Mutant) async throws {
        let scenarios = CatalogTests.catalog.scenarios.filter { mutant.scenarios.contains($0.id) }
        #expect(scenarios.count == mutant.scenarios.count)
        let buggy = try await Self.run("'\(Self.client)' --variant \(mutant.variant)", scenarios)
        #expect(Self.failed(buggy) == mutant.trips, "\(mutant.variant): failed \(Self.failed(buggy).sorted())")
        #expect(buggy.contains { $0.status != .pass || $0.verdicts.contains { $0.status == .fail } })
    }

    @Test func everyVariantIsNamedAndTheUnknownOneRefused() async throws {
        let outcome = try await ClientProcess.run(Self.client, ["--variant", "no-such-bug"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("no variant `no-such-bug`"))
        #expect(Self.mutants.count >= 14)
    }
}
