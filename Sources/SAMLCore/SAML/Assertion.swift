import Foundation

/// `<saml:Assertion>`, saml-core-2.0-os §2.3.3.
///
/// Children are written in the schema's sequence: Issuer, (ds:Signature), Subject?,
/// Conditions?, (Advice — not modelled), then the statements (AuthnStatements first, then
/// AttributeStatements). The root always declares `xmlns:saml`, so the text is the same
/// standalone and inside a ``Response`` — sign it alone, embed it byte for byte.
///
/// ```swift
/// let assertion = Assertion.make(issuer: "https://idp.example.org/idp/shibboleth",
///     nameID: NameID("jdoe", format: NameIDFormat.transient),
///     audience: "https://sp.example.org/shibboleth",
///     recipient: "https://sp.example.org/Shibboleth.sso/SAML2/POST",
///     inResponseTo: "_req1", clock: FixedClock(now), ids: SeededIDGenerator(seed: 1))
/// let text = assertion.xml()
/// ```
public struct Assertion: SignableSAMLElement {
    public var id: String
    public var issueInstant: Date
    public var issuer: Issuer
    public var subject: Subject?
    public var conditions: Conditions?
    public var authnStatements: [AuthnStatement]
    public var attributeStatements: [AttributeStatement]

    public init(id: String, issueInstant: Date, issuer: Issuer, subject: Subject? = nil,
                conditions: Conditions? = nil, authnStatements: [AuthnStatement] = [],
                attributeStatements: [AttributeStatement] = []) {
        self.id = id
        self.issueInstant = issueInstant
        self.issuer = issuer
        self.subject = subject
        self.conditions = conditions
        self.authnStatements = authnStatements
        self.attributeStatements = attributeStatements
    }

    /// Every attribute of every attribute statement.
    public var attributes: [Attribute] { attributeStatements.flatMap(\.attributes) }

    /// A bearer assertion as the Web SSO profile wants it (saml-profiles-2.0-os §4.1.4.2):
    /// Subject with NameID and one bearer SubjectConfirmation (Recipient, NotOnOrAfter,
    /// InResponseTo), Conditions with an AudienceRestriction, an AuthnStatement, and an
    /// AttributeStatement when `attributes` is not empty.
    ///
    /// Times come from `clock` (truncated to whole seconds): IssueInstant, NotBefore and
    /// AuthnInstant are now, NotOnOrAfter is now + `lifetime`. IDs come from `ids`, in this
    /// order: the assertion ID, then the SessionIndex when `sessionIndex` is nil.
    public static func make(issuer: String, nameID: NameID, audience: String, recipient: String,
                            inResponseTo: String?, lifetime: TimeInterval = 300,
                            sessionIndex: String? = nil,
                            authnContextClassRef: String = AuthnContextClass.passwordProtectedTransport,
                            attributes: [Attribute] = [], clock: SAMLClock, ids: IDGenerator) -> Assertion {
        let now = SAMLDateTime.truncated(clock.now())
        let expiry = now.addingTimeInterval(lifetime.rounded(.down))
        let id = ids.next()
        let session = sessionIndex ?? ids.next()
        let confirmation = SubjectConfirmation(
            method: SubjectConfirmation.Method.bearer,
            data: SubjectConfirmationData(notOnOrAfter: expiry, recipient: recipient, inResponseTo: inResponseTo))
        return Assertion(
            id: id, issueInstant: now, issuer: Issuer(issuer),
            subject: Subject(nameID: nameID, confirmations: [confirmation]),
            conditions: Conditions(notBefore: now, notOnOrAfter: expiry,
                                   audienceRestrictions: [.init([audience])]),
            authnStatements: [AuthnStatement(authnInstant: now, sessionIndex: session,
                                             authnContextClassRef: authnContextClassRef)],
            attributeStatements: attributes.isEmpty ? [] : [AttributeStatement(attributes)])
    }

    public init(element: XMLElement) throws {
        let ns = SAMLNamespace.assertion
        try element.expect("Assertion", ns)
        try element.requireVersion2()
        id = try element.requiredAttribute("ID")
        issueInstant = try element.requiredDateAttribute("IssueInstant")
        // §2.3.3: Issuer is required; ds:Signature is skipped (the DSig module verifies it).
        issuer = try Issuer(element: element.requiredChild("Issuer", ns))
        subject = try element.optionalChild("Subject", ns).map(Subject.init(element:))
        conditions = try element.optionalChild("Conditions", ns).map(Conditions.init(element:))
        authnStatements = try element.children("AuthnStatement", ns).map(AuthnStatement.init(element:))
        attributeStatements = try element.children("AttributeStatement", ns).map(AttributeStatement.init(element:))
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?) {
        writer.open("saml:Assertion", [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "Version": "2.0",
            "ID": id,
            "IssueInstant": SAMLDateTime.string(from: issueInstant),
        ])
        issuer.write(to: &writer, declaringNamespaces: false)
        if let signature { writer.raw(signature) }
        subject?.write(to: &writer, declaringNamespaces: false)
        conditions?.write(to: &writer, declaringNamespaces: false)
        for statement in authnStatements { statement.write(to: &writer, declaringNamespaces: false) }
        for statement in attributeStatements { statement.write(to: &writer, declaringNamespaces: false) }
        writer.close("saml:Assertion")
    }
}
