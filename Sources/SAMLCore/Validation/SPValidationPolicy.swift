import Foundation

/// One rule an SP applies to a Response, in the manner of swift-certificates'
/// `VerifierPolicy`: a small named type with a stable id that says why it refused.
public protocol SPValidationPolicy: Sendable {
    /// Stable id of the rule, e.g. `audience`.
    var id: String { get }
    /// One line: what the rule enforces and where the spec says so.
    var purpose: String { get }
    /// Nil when the response passes this rule.
    func check(_ context: SPValidationContext) -> ValidationFailure?
}

/// What the policies see: the parsed Response, the one assertion the SP consumes (after
/// decryption, after the signature checks), the configuration and the current time.
public struct SPValidationContext: Sendable {
    public let configuration: SPValidator.Configuration
    public let response: Response
    public let assertion: Assertion
    public let now: Date
    /// True when the Response element itself carried a valid trusted signature.
    public let responseWasSigned: Bool
    /// Lines of the Response and of the consumed Assertion in the input, for messages.
    public let responseLine: Int
    public let assertionLine: Int
}
