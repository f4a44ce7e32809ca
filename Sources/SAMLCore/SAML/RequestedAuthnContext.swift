/// `<samlp:RequestedAuthnContext>`, saml-core-2.0-os §3.3.2.2.1: the authentication
/// context classes the requester accepts, compared as `comparison` says.
/// (AuthnContextDeclRef is not modelled.)
public struct RequestedAuthnContext: SAMLElementCodable {
    /// The Comparison attribute; absent means `exact` (§3.3.2.2.1).
    public enum Comparison: String, Sendable {
        case exact, minimum, maximum, better
    }

    public var comparison: Comparison?
    public var classRefs: [String]

    public init(classRefs: [String], comparison: Comparison? = nil) {
        self.classRefs = classRefs
        self.comparison = comparison
    }

    public init(element: XMLElement) throws {
        try element.expect("RequestedAuthnContext", SAMLNamespace.protocol_)
        if let raw = element.attribute("Comparison") {
            guard let value = Comparison(rawValue: raw) else {
                throw element.error(.invalidAttribute, "'\(raw)' is not exact, minimum, maximum or better",
                                    attribute: "Comparison")
            }
            comparison = value
        } else {
            comparison = nil
        }
        classRefs = try element.children("AuthnContextClassRef", SAMLNamespace.assertion)
            .map { try $0.requiredTrimmedText() }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("samlp:RequestedAuthnContext", [
            "xmlns:samlp": declaringNamespaces ? SAMLNamespace.protocol_ : nil,
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "Comparison": comparison?.rawValue,
        ])
        for ref in classRefs { writer.element("saml:AuthnContextClassRef", text: ref) }
        writer.close("samlp:RequestedAuthnContext")
    }
}
