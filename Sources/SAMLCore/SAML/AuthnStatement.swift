import Foundation

/// `<saml:AuthnStatement>`, saml-core-2.0-os §2.7.2: the subject authenticated at
/// AuthnInstant, by the means named in `<saml:AuthnContext>` (§2.7.2.2).
public struct AuthnStatement: SAMLElementCodable {
    public var authnInstant: Date
    public var sessionIndex: String?
    public var sessionNotOnOrAfter: Date?
    /// `AuthnContext/AuthnContextClassRef` (see ``AuthnContextClass``).
    public var authnContextClassRef: String?

    public init(authnInstant: Date, sessionIndex: String? = nil, sessionNotOnOrAfter: Date? = nil,
                authnContextClassRef: String? = AuthnContextClass.passwordProtectedTransport) {
        self.authnInstant = authnInstant
        self.sessionIndex = sessionIndex
        self.sessionNotOnOrAfter = sessionNotOnOrAfter
        self.authnContextClassRef = authnContextClassRef
    }

    public init(element: XMLElement) throws {
        let ns = SAMLNamespace.assertion
        try element.expect("AuthnStatement", ns)
        authnInstant = try element.requiredDateAttribute("AuthnInstant")
        sessionIndex = element.attribute("SessionIndex")
        sessionNotOnOrAfter = try element.dateAttribute("SessionNotOnOrAfter")
        // §2.7.2: AuthnContext is required.
        let context = try element.requiredChild("AuthnContext", ns)
        authnContextClassRef = try context.optionalChild("AuthnContextClassRef", ns)?.requiredTrimmedText()
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        // §2.7.2: SubjectLocality?, AuthnContext.
        writer.open("saml:AuthnStatement", [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "AuthnInstant": SAMLDateTime.string(from: authnInstant),
            "SessionIndex": sessionIndex,
            "SessionNotOnOrAfter": sessionNotOnOrAfter.map { SAMLDateTime.string(from: $0) },
        ])
        if let authnContextClassRef {
            writer.open("saml:AuthnContext")
            writer.element("saml:AuthnContextClassRef", text: authnContextClassRef)
            writer.close("saml:AuthnContext")
        } else {
            writer.empty("saml:AuthnContext")
        }
        writer.close("saml:AuthnStatement")
    }
}
