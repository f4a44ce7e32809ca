/// `<samlp:Status>`, saml-core-2.0-os §3.2.2.1: StatusCode, StatusMessage?, StatusDetail?
/// (StatusDetail is not modelled).
///
/// ```swift
/// let failed = Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.authnFailed]),
///                     message: "Bad password")
/// ```
public struct Status: SAMLElementCodable {
    public var code: StatusCode
    /// `<samlp:StatusMessage>`, §3.2.2.3.
    public var message: String?

    public init(code: StatusCode, message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// `Success`, nothing nested.
    public static let success = Status(code: StatusCode(StatusCode.success))

    /// True when the top-level code is Success.
    public var isSuccess: Bool { code.value == StatusCode.success }

    public init(element: XMLElement) throws {
        try element.expect("Status", SAMLNamespace.protocol_)
        code = try StatusCode(element: element.requiredChild("StatusCode", SAMLNamespace.protocol_))
        message = try element.optionalChild("StatusMessage", SAMLNamespace.protocol_)?.text
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("samlp:Status", ["xmlns:samlp": declaringNamespaces ? SAMLNamespace.protocol_ : nil])
        code.write(to: &writer)
        if let message { writer.element("samlp:StatusMessage", text: message) }
        writer.close("samlp:Status")
    }
}
