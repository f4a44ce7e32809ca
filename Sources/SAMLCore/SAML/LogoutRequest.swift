import Foundation

/// `<samlp:LogoutRequest>`, saml-core-2.0-os §3.7.1.
///
/// Children in the schema's sequence: Issuer, (ds:Signature), (Extensions),
/// (BaseID | NameID | EncryptedID) — NameID only is modelled and is required — then
/// SessionIndex*.
public struct LogoutRequest: SignableSAMLElement {
    /// Reason URIs, §3.7.3.
    public enum Reason {
        public static let user = "urn:oasis:names:tc:SAML:2.0:logout:user"
        public static let admin = "urn:oasis:names:tc:SAML:2.0:logout:admin"
    }

    public var id: String
    public var issueInstant: Date
    public var destination: String?
    public var consent: String?
    public var notOnOrAfter: Date?
    public var reason: String?
    public var issuer: Issuer?
    public var nameID: NameID
    public var sessionIndexes: [String]

    public init(id: String, issueInstant: Date, destination: String? = nil, consent: String? = nil,
                notOnOrAfter: Date? = nil, reason: String? = nil, issuer: Issuer? = nil,
                nameID: NameID, sessionIndexes: [String] = []) {
        self.id = id
        self.issueInstant = issueInstant
        self.destination = destination
        self.consent = consent
        self.notOnOrAfter = notOnOrAfter
        self.reason = reason
        self.issuer = issuer
        self.nameID = nameID
        self.sessionIndexes = sessionIndexes
    }

    /// A request issued now by `clock` with an ID from `ids`.
    public static func make(issuer: String, destination: String?, nameID: NameID, sessionIndexes: [String] = [],
                            reason: String? = Reason.user, clock: SAMLClock, ids: IDGenerator) -> LogoutRequest {
        LogoutRequest(id: ids.next(), issueInstant: SAMLDateTime.truncated(clock.now()), destination: destination,
                      reason: reason, issuer: Issuer(issuer), nameID: nameID, sessionIndexes: sessionIndexes)
    }

    public init(element: XMLElement) throws {
        let ns = SAMLNamespace.protocol_
        try element.expect("LogoutRequest", ns)
        try element.requireVersion2()
        id = try element.requiredAttribute("ID")
        issueInstant = try element.requiredDateAttribute("IssueInstant")
        destination = element.attribute("Destination")
        consent = element.attribute("Consent")
        notOnOrAfter = try element.dateAttribute("NotOnOrAfter")
        reason = element.attribute("Reason")
        issuer = try element.optionalChild("Issuer", SAMLNamespace.assertion).map(Issuer.init(element:))
        nameID = try NameID(element: element.requiredChild("NameID", SAMLNamespace.assertion))
        sessionIndexes = element.children("SessionIndex", ns).map { $0.text }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool, signature: String?) {
        writer.open("samlp:LogoutRequest", [
            "xmlns:samlp": declaringNamespaces ? SAMLNamespace.protocol_ : nil,
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "ID": id,
            "Version": "2.0",
            "IssueInstant": SAMLDateTime.string(from: issueInstant),
            "Destination": destination,
            "Consent": consent,
            "NotOnOrAfter": notOnOrAfter.map { SAMLDateTime.string(from: $0) },
            "Reason": reason,
        ])
        issuer?.write(to: &writer, declaringNamespaces: false)
        if let signature { writer.raw(signature) }
        nameID.write(to: &writer, declaringNamespaces: false)
        for index in sessionIndexes { writer.element("samlp:SessionIndex", text: index) }
        writer.close("samlp:LogoutRequest")
    }
}
