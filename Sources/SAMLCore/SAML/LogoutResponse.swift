import Foundation

/// `<samlp:LogoutResponse>`, saml-core-2.0-os §3.7.2 (StatusResponseType, §3.2.2):
/// Issuer?, (ds:Signature), (Extensions), Status.
public struct LogoutResponse: SignableSAMLElement {
    public var id: String
    public var inResponseTo: String?
    public var issueInstant: Date
    public var destination: String?
    public var consent: String?
    public var issuer: Issuer?
    public var status: Status

    public init(id: String, inResponseTo: String? = nil, issueInstant: Date, destination: String? = nil,
                consent: String? = nil, issuer: Issuer? = nil, status: Status = .success) {
        self.id = id
        self.inResponseTo = inResponseTo
        self.issueInstant = issueInstant
        self.destination = destination
        self.consent = consent
        self.issuer = issuer
        self.status = status
    }

    /// A response issued now by `clock` with an ID from `ids`.
    public static func make(issuer: String, destination: String?, inResponseTo: String?,
                            status: Status = .success, clock: SAMLClock, ids: IDGenerator) -> LogoutResponse {
        LogoutResponse(id: ids.next(), inResponseTo: inResponseTo, issueInstant: SAMLDateTime.truncated(clock.now()),
                       destination: destination, issuer: Issuer(issuer), status: status)
    }

    public init(element: XMLElement) throws {
        try element.expect("LogoutResponse", SAMLNamespace.protocol_)
        try element.requireVersion2()
        id = try element.requiredAttribute("ID")
        inResponseTo = element.attribute("InResponseTo")
        issueInstant = try element.requiredDateAttribute("IssueInstant")
        destination = element.attribute("Destination")
        consent = element.attribute("Consent")
        issuer = try element.optionalChild("Issuer", SAMLNamespace.assertion).map(Issuer.init(element:))
        status = try Status(element: element.requiredChild("Status", SAMLNamespace.protocol_))
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?) {
        writer.open("samlp:LogoutResponse", [
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
        writer.close("samlp:LogoutResponse")
    }
}
