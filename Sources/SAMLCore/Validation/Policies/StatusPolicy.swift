/// saml-core-2.0-os §3.2.2.2: a Response whose top-level StatusCode is not Success carries
/// no usable assertion; the nested code says why (AuthnFailed, NoPassive, RequestDenied…).
public struct StatusPolicy: SPValidationPolicy {
    public init() {}
    public let id = "status"
    public let purpose = "top-level StatusCode must be Success (saml-core-2.0-os §3.2.2.2)"

    public func check(_ context: SPValidationContext) -> ValidationFailure? {
        Self.failure(for: context.response.status, line: context.responseLine)
    }

    static func failure(for status: Status, line: Int?) -> ValidationFailure? {
        guard !status.isSuccess else { return nil }
        var text = "top-level StatusCode is \(status.code.value)"
        if !status.code.nested.isEmpty { text += ", nested \(status.code.nested.joined(separator: " / "))" }
        if let message = status.message, !message.isEmpty { text += ", StatusMessage \"\(message)\"" }
        return ValidationFailure(.statusNotSuccess, text, line: line)
    }
}
