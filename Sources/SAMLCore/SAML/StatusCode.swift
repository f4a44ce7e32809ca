/// `<samlp:StatusCode>`, saml-core-2.0-os §3.2.2.2: a top-level code, optionally refined by
/// nested StatusCodes (`nested[0]` is the child of the top-level code, `nested[1]` its child…).
///
/// ```swift
/// StatusCode(StatusCode.requester, nested: [StatusCode.authnFailed])
/// ```
public struct StatusCode: Sendable, Equatable {
    /// The top-level code URI (one of the first four constants below).
    public var value: String
    /// Second-level and deeper code URIs, outermost first.
    public var nested: [String]

    public init(_ value: String, nested: [String] = []) {
        self.value = value
        self.nested = nested
    }

    // §3.2.2.2 top-level codes.
    public static let success = "urn:oasis:names:tc:SAML:2.0:status:Success"
    public static let requester = "urn:oasis:names:tc:SAML:2.0:status:Requester"
    public static let responder = "urn:oasis:names:tc:SAML:2.0:status:Responder"
    public static let versionMismatch = "urn:oasis:names:tc:SAML:2.0:status:VersionMismatch"

    // §3.2.2.2 second-level codes.
    public static let authnFailed = "urn:oasis:names:tc:SAML:2.0:status:AuthnFailed"
    public static let invalidAttrNameOrValue = "urn:oasis:names:tc:SAML:2.0:status:InvalidAttrNameOrValue"
    public static let invalidNameIDPolicy = "urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy"
    public static let noAuthnContext = "urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext"
    public static let noAvailableIDP = "urn:oasis:names:tc:SAML:2.0:status:NoAvailableIDP"
    public static let noPassive = "urn:oasis:names:tc:SAML:2.0:status:NoPassive"
    public static let noSupportedIDP = "urn:oasis:names:tc:SAML:2.0:status:NoSupportedIDP"
    public static let partialLogout = "urn:oasis:names:tc:SAML:2.0:status:PartialLogout"
    public static let proxyCountExceeded = "urn:oasis:names:tc:SAML:2.0:status:ProxyCountExceeded"
    public static let requestDenied = "urn:oasis:names:tc:SAML:2.0:status:RequestDenied"
    public static let requestUnsupported = "urn:oasis:names:tc:SAML:2.0:status:RequestUnsupported"
    public static let requestVersionDeprecated = "urn:oasis:names:tc:SAML:2.0:status:RequestVersionDeprecated"
    public static let requestVersionTooHigh = "urn:oasis:names:tc:SAML:2.0:status:RequestVersionTooHigh"
    public static let requestVersionTooLow = "urn:oasis:names:tc:SAML:2.0:status:RequestVersionTooLow"
    public static let resourceNotRecognized = "urn:oasis:names:tc:SAML:2.0:status:ResourceNotRecognized"
    public static let tooManyResponses = "urn:oasis:names:tc:SAML:2.0:status:TooManyResponses"
    public static let unknownAttrProfile = "urn:oasis:names:tc:SAML:2.0:status:UnknownAttrProfile"
    public static let unknownPrincipal = "urn:oasis:names:tc:SAML:2.0:status:UnknownPrincipal"
    public static let unsupportedBinding = "urn:oasis:names:tc:SAML:2.0:status:UnsupportedBinding"

    /// §3.2.2.2: the top-level code must be one of the four the spec defines. Parsing does
    /// not enforce it (the harness reports what arrived); checks can.
    public var hasStandardTopLevelValue: Bool {
        [Self.success, Self.requester, Self.responder, Self.versionMismatch].contains(value)
    }

    init(element: XMLElement) throws {
        try element.expect("StatusCode", SAMLNamespace.protocol_)
        value = try element.requiredAttribute("Value")
        var chain: [String] = []
        var current = try element.optionalChild("StatusCode", SAMLNamespace.protocol_)
        while let code = current {
            chain.append(try code.requiredAttribute("Value"))
            current = try code.optionalChild("StatusCode", SAMLNamespace.protocol_)
        }
        nested = chain
    }

    func write(to writer: inout XMLWriter) {
        let codes = [value] + nested
        for (i, code) in codes.enumerated() {
            if i == codes.count - 1 {
                writer.empty("samlp:StatusCode", ["Value": code])
            } else {
                writer.open("samlp:StatusCode", ["Value": code])
            }
        }
        for _ in codes.dropLast() { writer.close("samlp:StatusCode") }
    }
}
