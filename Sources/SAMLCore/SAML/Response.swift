import Foundation

/// `<samlp:Response>`, saml-core-2.0-os §3.3.3 (StatusResponseType, §3.2.2).
///
/// Children are written in the schema's sequence: Issuer?, (ds:Signature), (Extensions —
/// not modelled), Status, then Assertion / EncryptedAssertion. Assertions can be embedded
/// from the Swift values (``xml()``) or as already-signed text, byte for byte
/// (``xml(assertionsXML:signature:)``); encrypted assertions are always kept as text.
///
/// ```swift
/// let signedAssertion = try signer.sign(assertion.xml())      // elsewhere, with xmlsec
/// let text = response.xml(assertionsXML: [signedAssertion])
/// ```
public struct Response: SAMLElementCodable {
    public var id: String
    public var inResponseTo: String?
    public var issueInstant: Date
    public var destination: String?
    public var consent: String?
    public var issuer: Issuer?
    public var status: Status
    public var assertions: [Assertion]
    /// Each `<saml:EncryptedAssertion>` as standalone XML text (namespaces re-declared on
    /// its root when read from a larger document).
    public var encryptedAssertions: [String]

    public init(id: String, inResponseTo: String? = nil, issueInstant: Date, destination: String? = nil,
                consent: String? = nil, issuer: Issuer? = nil, status: Status = .success,
                assertions: [Assertion] = [], encryptedAssertions: [String] = []) {
        self.id = id
        self.inResponseTo = inResponseTo
        self.issueInstant = issueInstant
        self.destination = destination
        self.consent = consent
        self.issuer = issuer
        self.status = status
        self.assertions = assertions
        self.encryptedAssertions = encryptedAssertions
    }

    /// A response issued now by `clock`, with an ID from `ids` (drawn once, when called).
    public static func make(issuer: String, destination: String?, inResponseTo: String?,
                            status: Status = .success, assertions: [Assertion] = [],
                            clock: SAMLClock, ids: IDGenerator) -> Response {
        Response(id: ids.next(), inResponseTo: inResponseTo, issueInstant: SAMLDateTime.truncated(clock.now()),
                 destination: destination, issuer: Issuer(issuer), status: status, assertions: assertions)
    }

    public init(element: XMLElement) throws {
        let ns = SAMLNamespace.protocol_
        try element.expect("Response", ns)
        try element.requireVersion2()
        id = try element.requiredAttribute("ID")
        inResponseTo = element.attribute("InResponseTo")
        issueInstant = try element.requiredDateAttribute("IssueInstant")
        destination = element.attribute("Destination")
        consent = element.attribute("Consent")
        issuer = try element.optionalChild("Issuer", SAMLNamespace.assertion).map(Issuer.init(element:))
        status = try Status(element: element.requiredChild("Status", ns))
        assertions = try element.children("Assertion", SAMLNamespace.assertion).map(Assertion.init(element:))
        encryptedAssertions = element.children("EncryptedAssertion", SAMLNamespace.assertion)
            .map { $0.standaloneSerialization() }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        write(to: &writer, declaringNamespaces: declaringNamespaces, signature: nil,
              assertionsXML: assertions.map { $0.xml() })
    }

    /// The response with `signature` (a `ds:Signature` element or template) right after
    /// Issuer (§3.2.2), assertions from the Swift values.
    public func xml(signature: String?) -> String {
        xml(assertionsXML: assertions.map { $0.xml() }, signature: signature)
    }

    /// The response with `assertionsXML` embedded byte for byte in place of ``assertions``
    /// (each a complete `<saml:Assertion>`, typically already signed), then the encrypted
    /// assertions, and `signature` right after Issuer.
    public func xml(assertionsXML: [String], signature: String? = nil) -> String {
        var writer = XMLWriter()
        write(to: &writer, declaringNamespaces: true, signature: signature, assertionsXML: assertionsXML)
        return writer.output
    }

    func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?, assertionsXML: [String]) {
        writer.open("samlp:Response", [
            "xmlns:samlp": declaringNamespaces ? SAMLNamespace.protocol_ : nil,
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "ID": id,
            "InResponseTo": inResponseTo,
            "Version": "2.0",
            "IssueInstant": SAMLDateTime.string(from: issueInstant),
            "Destination": destination,
            "Consent": consent,
        ])
        issuer?.write(to: &writer, declaringNamespaces: false)
        if let signature { writer.raw(signature) }
        status.write(to: &writer, declaringNamespaces: false)
        for assertion in assertionsXML { writer.raw(assertion) }
        for encrypted in encryptedAssertions { writer.raw(encrypted) }
        writer.close("samlp:Response")
    }
}
