import Foundation
import Yams

/// Writes the `replay` scenario of an imported chain: a complete scenario (id, title,
/// description, tags, checks, seed) with the chain under `replay:`, as YAML a person can read
/// and edit — multi-line bodies and XML as literal blocks (`|`), Unicode unescaped.
public enum RecordedScenarioWriter {
    /// The checks a replay scenario runs.
    public static let checks = ["flow.resource-obtained", "encoding.samlresponse-intact", "flow.cookies-kept"]

    /// The scenario around `chain`.
    public static func scenario(for chain: RecordedChain, id: String, redacted: Bool) -> Scenario {
        let hosts = chain.origins.map { RecordedURL($0.url)?.host ?? $0.url }
        let idp = chain.origins.first { $0.role == .idp }.flatMap { RecordedURL($0.url)?.host }
        let start = chain.origins.first.flatMap { RecordedURL($0.url)?.host } ?? "recorded"
        var title = "Recorded login at \(start)" + (idp.map { " via \($0)" } ?? "")
        if title.count > 120 { title = String(title.prefix(117)) + "…" }
        let format = chain.source.format == .har ? "a browser HAR" : "a SAML-tracer export"
        var description = "Imported by `samlharness import-har` from \(format) (\(chain.source.file)"
        description += chain.source.creator.map { ", written by \($0)" } ?? ""
        description += ") on \(chain.source.imported)"
        description += chain.source.recorded.map { "; recorded \($0)" } ?? ""
        description += ". \(chain.entries.count) exchanges over \(hosts.joined(separator: ", ")), replayed live "
            + "on loopback"
        description += chain.resign ? ", SAML Responses re-timed and re-signed with the harness test key." : "."
        if redacted { description += " Passwords, tokens, cookie values, session IDs and personal attributes "
            + "were redacted." }
        var tags = ["recorded", chain.source.format == .har ? "har" : "saml-tracer"]
        if redacted { tags.append("redacted") }
        if chain.messages.contains(where: { $0.binding == .soap }) {
            tags.append("ecp")
        } else if chain.messages.contains(where: { $0.kind == .response }) {
            tags.append("web-sso")
        }
        if let failure = failure(of: chain) {
            description += " The recorded login failed: \(failure.what), and no SAML Response was issued."
            tags += failure.tags + ["negative"]
            return Scenario(
                id: id, title: String(("Recorded failed login at " + title.dropFirst("Recorded login at ".count)).prefix(120)),
                description: description, tags: tags, flow: .replay,
                expect: .init(outcome: .failure, error: failure.error, reason: failure.reason),
                checks: failure.checks, seed: seed(for: id), replay: chain)
        }
        tags.append("positive")
        var uses = checks.map { CheckUse(id: $0) }
        // A RelayState given with a Response (POST) or in the SP's ecp:RelayState (PAOS).
        if chain.messages.contains(where: { $0.relayState != nil && ($0.kind == .response || $0.binding == .soap) }) {
            uses.append(CheckUse(id: "flow.relaystate-preserved"))
        }
        return Scenario(
            id: id, title: title, description: description, tags: tags, flow: .replay,
            expect: .init(outcome: .success, reason: "the recorded login completed; the replay answers the same way"),
            checks: uses, seed: seed(for: id), replay: chain)
    }

    /// How a recorded login failed, as its negative scenario says it.
    struct Failure {
        var what: String
        var tags: [String]
        var error: String
        var reason: String
        var checks: [CheckUse]
    }

    /// A refused password (the login form again) or an error answer at the end, with no
    /// Response issued; nil for a recording of a login that went through.
    static func failure(of chain: RecordedChain) -> Failure? {
        let failed = [CheckUse(id: "flow.failure-reported"), CheckUse(id: "flow.no-false-success")]
        if isFailedLogin(chain) {
            return Failure(what: "the login form came back after the password was posted", tags: ["bad-password"],
                           error: "password",
                           reason: "the recorded IdP answered the password with its login form again and issued no "
                               + "Response; a client must stop and report the failure",
                           checks: failed + [CheckUse(id: "flow.bad-password-bounded", params: ["max_attempts": .integer(3)])])
        }
        if let refused = refusedAnswer(chain) {
            let status = refused.response.status
            return Failure(what: "entry \(refused.number) was answered \(status)", tags: [], error: String(status),
                           reason: "the recorded server answered \(status) and issued no Response; a client that sends "
                               + "what was recorded meets the same answer and must report it",
                           checks: failed)
        }
        return nil
    }

    /// A recording of a login that failed: a password was posted, the answer showed the login
    /// form again, and no SAML Response was ever issued.
    static func isFailedLogin(_ chain: RecordedChain) -> Bool {
        guard !chain.messages.contains(where: { $0.kind == .response }) else { return false }
        return chain.entries.contains { entry in
            entry.request.method == "POST" && (entry.request.form ?? []).contains(where: ImportBuilder.isPasswordField)
                && showsLoginForm(entry.response)
        }
    }

    /// The entry whose error answer ended a recording that issued no SAML Response (a client
    /// the IdP refused), if the recording is such a one.
    static func refusedAnswer(_ chain: RecordedChain) -> RecordedChain.Entry? {
        guard !chain.messages.contains(where: { $0.kind == .response }), let last = chain.entries.last,
              last.response.status >= 400 else { return nil }
        return last
    }

    /// Whether a recorded answer is a page with a password field (a login form).
    static func showsLoginForm(_ response: RecordedChain.Response) -> Bool {
        guard (200..<300).contains(response.status), response.bodyBase64 != true, let body = response.body else { return false }
        return hasPasswordInput(body)
    }

    /// Whether an HTML text has an `<input type="password">`.
    static func hasPasswordInput(_ html: String) -> Bool {
        html.range(of: #"<input[^>]*type\s*=\s*["']?password"#, options: [.regularExpression, .caseInsensitive]) != nil
    }

    /// A stable seed from the scenario id (FNV-1a 64, within JSON's exact integer range).
    static func seed(for id: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in "recorded:\(id)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash & 0x1F_FFFF_FFFF_FFFF
    }

    /// The scenario as YAML.
    public static func yaml(_ scenario: Scenario) throws -> String {
        let encoder = YAMLEncoder()
        encoder.options.allowUnicode = true
        encoder.options.newLineScalarStyle = .literal
        encoder.options.width = -1
        encoder.options.indent = 2
        let header = """
        # A recorded chain, imported by `samlharness import-har`; replay it with
        # `samlharness serve --scenario FILE`. The format is described in docs/recorded-chains.md:
        # ⟦name⟧ is a placeholder (`⟦⟦` is a literal `⟦`); recorded origins are rewritten at replay.

        """
        return header + (try encoder.encode(scenario))
    }
}
