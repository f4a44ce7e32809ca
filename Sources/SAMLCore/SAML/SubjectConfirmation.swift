/// `<saml:SubjectConfirmation>`, saml-core-2.0-os §2.4.1.1: a Method URI (§3 of
/// saml-profiles-2.0-os) and optional ``SubjectConfirmationData``.
public struct SubjectConfirmation: SAMLElementCodable {
    /// Confirmation method URIs, saml-profiles-2.0-os §3.
    public enum Method {
        /// §3.3: bearer (Web SSO).
        public static let bearer = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
        /// §3.1: holder-of-key.
        public static let holderOfKey = "urn:oasis:names:tc:SAML:2.0:cm:holder-of-key"
        /// §3.2: sender-vouches.
        public static let senderVouches = "urn:oasis:names:tc:SAML:2.0:cm:sender-vouches"
    }

    public var method: String
    public var data: SubjectConfirmationData?

    public init(method: String = Method.bearer, data: SubjectConfirmationData? = nil) {
        self.method = method
        self.data = data
    }

    public init(element: XMLElement) throws {
        try element.expect("SubjectConfirmation", SAMLNamespace.assertion)
        method = try element.requiredAttribute("Method")
        data = try element.optionalChild("SubjectConfirmationData", SAMLNamespace.assertion)
            .map(SubjectConfirmationData.init(element:))
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        let attributes: KeyValuePairs<String, String?> = [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "Method": method,
        ]
        guard let data else {
            writer.empty("saml:SubjectConfirmation", attributes)
            return
        }
        writer.open("saml:SubjectConfirmation", attributes)
        data.write(to: &writer, declaringNamespaces: false)
        writer.close("saml:SubjectConfirmation")
    }
}
