import Foundation
import SAMLCore

/// What the SP did with one attack.
public enum AttackOutcome: String, Sendable, Codable, CaseIterable {
    /// Refused (good).
    case rejected
    /// Accepted, but as the whole NameID: a correct answer to `nameid-comment` (good).
    case readWhole = "read-whole"
    /// Logged in as the subject the IdP signed: the SP ignored the forged content (good).
    case ignoredForgery = "ignored-forgery"
    /// Accepted, as a documented setting of the SP's product says it does by default; the
    /// result names the setting that refuses it (``AttackResult/policy``). Not a flaw of the
    /// product, but worth changing: exit status 0 unless `--fail-on-policy`.
    case policy
    /// The SP acted on the forged Response (logged in the forged identity, or accepted what it
    /// must refuse): it is vulnerable.
    case accepted = "ACCEPTED"
    /// Could not be told: e.g. a login whose user nothing shows, a replay whose first post
    /// was refused, or a transport error.
    case inconclusive

    /// Good outcomes keep the exit status 0.
    public var isGood: Bool { self == .rejected || self == .readWhole || self == .ignoredForgery || self == .policy }
}

/// The evidence behind a verdict: what the SP answered last.
public struct AttackEvidence: Sendable, Codable, Equatable {
    public var status: Int?
    public var finalURL: String?
    /// The matched success / failure text, or an excerpt of the answer, or the error.
    public var detail: String

    public init(status: Int?, finalURL: String?, detail: String) {
        self.status = status
        self.finalURL = finalURL
        self.detail = detail
    }
}

/// One line of the report.
public struct AttackResult: Sendable, Codable, Equatable {
    public var id: String
    public var summary: String
    public var reference: String
    public var outcome: AttackOutcome
    /// The reason code a strict SP gives (SAMLCore's SPValidator), for comparison.
    public var strictReason: String?
    public var evidence: AttackEvidence
    /// Who the SP logged in, and which source said so (`alice@example.org (sp-log)`), when known.
    public var loggedInAs: String?
    /// For `policy`: the product's documented setting behind the acceptance.
    public var policy: AttackPolicy?

    public init(id: String, summary: String, reference: String, outcome: AttackOutcome, strictReason: String?,
                evidence: AttackEvidence, loggedInAs: String? = nil, policy: AttackPolicy? = nil) {
        self.id = id
        self.summary = summary
        self.reference = reference
        self.outcome = outcome
        self.strictReason = strictReason
        self.evidence = evidence
        self.loggedInAs = loggedInAs
        self.policy = policy
    }
}

/// Decides "accepted" from the SP's last answer: the success pattern matches its body, the
/// failure pattern (when given) does not, and the status is not an error (< 400).
public struct AttackJudge: Sendable {
    public let successPattern: String
    public let failurePattern: String?

    public init(successPattern: String, failurePattern: String?) throws {
        for pattern in [successPattern] + (failurePattern.map { [$0] } ?? []) {
            do { _ = try NSRegularExpression(pattern: pattern) } catch {
                throw AttackSPError.usage("\"\(pattern)\" is not a valid regular expression: \(error)")
            }
        }
        self.successPattern = successPattern
        self.failurePattern = failurePattern
    }

    /// True with the matched text when the answer shows a login; false with the reason.
    public func accepted(_ outcome: AttackBrowser.Outcome) -> (Bool, String) {
        if let failurePattern, let match = Self.firstMatch(failurePattern, in: outcome.body) {
            return (false, "failure pattern matched \"\(match)\": \(Self.excerpt(outcome.body))")
        }
        guard let match = Self.firstMatch(successPattern, in: outcome.body) else {
            return (false, outcome.leftOrigin.map { "redirected off the SP to \($0)" } ?? Self.excerpt(outcome.body))
        }
        if outcome.status >= 400 {
            return (false, "success pattern matched \"\(match)\" but status \(outcome.status)")
        }
        return (true, "matched \"\(match)\"")
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range, in: text) else { return nil }
        return String(text[range].prefix(120))
    }

    /// The first words of a page, tags dropped, for the report.
    static func excerpt(_ body: String) -> String {
        let text = IdentityText.decodeEntities(body.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression))
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.isEmpty ? "(empty body)" : String(text.prefix(160))
    }
}
