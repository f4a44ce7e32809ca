import Foundation

/// `<saml:Conditions>`, saml-core-2.0-os §2.5.1: a validity window and restrictions.
///
/// Written in this order: AudienceRestriction*, OneTimeUse, ProxyRestriction (the schema
/// allows any order of its condition choice; this is the order IdPs use).
public struct Conditions: SAMLElementCodable {
    /// `<saml:AudienceRestriction>`, §2.5.1.4: the assertion is addressed to any one of
    /// these audiences (entityIDs).
    public struct AudienceRestriction: Sendable, Equatable {
        public var audiences: [String]
        public init(_ audiences: [String]) { self.audiences = audiences }
    }

    /// `<saml:ProxyRestriction>`, §2.5.1.6.
    public struct ProxyRestriction: Sendable, Equatable {
        public var count: Int?
        public var audiences: [String]
        public init(count: Int? = nil, audiences: [String] = []) {
            self.count = count
            self.audiences = audiences
        }
    }

    public var notBefore: Date?
    public var notOnOrAfter: Date?
    public var audienceRestrictions: [AudienceRestriction]
    /// `<saml:OneTimeUse>`, §2.5.1.5.
    public var oneTimeUse: Bool
    public var proxyRestriction: ProxyRestriction?

    public init(notBefore: Date? = nil, notOnOrAfter: Date? = nil,
                audienceRestrictions: [AudienceRestriction] = [], oneTimeUse: Bool = false,
                proxyRestriction: ProxyRestriction? = nil) {
        self.notBefore = notBefore
        self.notOnOrAfter = notOnOrAfter
        self.audienceRestrictions = audienceRestrictions
        self.oneTimeUse = oneTimeUse
        self.proxyRestriction = proxyRestriction
    }

    /// Every audience of every restriction.
    public var audiences: [String] { audienceRestrictions.flatMap(\.audiences) }

    public init(element: XMLElement) throws {
        let ns = SAMLNamespace.assertion
        try element.expect("Conditions", ns)
        notBefore = try element.dateAttribute("NotBefore")
        notOnOrAfter = try element.dateAttribute("NotOnOrAfter")
        audienceRestrictions = try element.children("AudienceRestriction", ns).map { restriction in
            let audiences = try restriction.children("Audience", ns).map { try $0.requiredTrimmedText() }
            // §2.5.1.4: AudienceRestriction contains one or more Audience elements.
            if audiences.isEmpty {
                throw restriction.error(.missingElement, "AudienceRestriction has no Audience (§2.5.1.4)")
            }
            return AudienceRestriction(audiences)
        }
        // §2.5.1.5 and §2.5.1.6: at most one OneTimeUse and one ProxyRestriction.
        oneTimeUse = try element.optionalChild("OneTimeUse", ns) != nil
        proxyRestriction = try element.optionalChild("ProxyRestriction", ns).map { proxy in
            ProxyRestriction(count: try proxy.intAttribute("Count"),
                             audiences: try proxy.children("Audience", ns).map { try $0.requiredTrimmedText() })
        }
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        let attributes: KeyValuePairs<String, String?> = [
            "xmlns:saml": declaringNamespaces ? SAMLNamespace.assertion : nil,
            "NotBefore": notBefore.map { SAMLDateTime.string(from: $0) },
            "NotOnOrAfter": notOnOrAfter.map { SAMLDateTime.string(from: $0) },
        ]
        if audienceRestrictions.isEmpty, !oneTimeUse, proxyRestriction == nil {
            writer.empty("saml:Conditions", attributes)
            return
        }
        writer.open("saml:Conditions", attributes)
        for restriction in audienceRestrictions {
            writer.open("saml:AudienceRestriction")
            for audience in restriction.audiences { writer.element("saml:Audience", text: audience) }
            writer.close("saml:AudienceRestriction")
        }
        if oneTimeUse { writer.empty("saml:OneTimeUse") }
        if let proxyRestriction {
            let count = proxyRestriction.count.map(String.init)
            if proxyRestriction.audiences.isEmpty {
                writer.empty("saml:ProxyRestriction", ["Count": count])
            } else {
                writer.open("saml:ProxyRestriction", ["Count": count])
                for audience in proxyRestriction.audiences { writer.element("saml:Audience", text: audience) }
                writer.close("saml:ProxyRestriction")
            }
        }
        writer.close("saml:Conditions")
    }
}
