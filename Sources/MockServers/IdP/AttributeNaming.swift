import SAMLCore

/// Turns a test user's attributes into SAML Attributes named the way Shibboleth IdP releases
/// them: the `urn:oid:` name with the uri NameFormat and the LDAP name as FriendlyName
/// (REFEDS/InCommon attribute profile; eduPerson 2021 and RFC 4519 OIDs).
enum AttributeNaming {
    static let oids: [String: String] = [
        "uid": "urn:oid:0.9.2342.19200300.100.1.1",
        "mail": "urn:oid:0.9.2342.19200300.100.1.3",
        "cn": "urn:oid:2.5.4.3",
        "sn": "urn:oid:2.5.4.4",
        "givenName": "urn:oid:2.5.4.42",
        "displayName": "urn:oid:2.16.840.1.113730.3.1.241",
        "eduPersonAffiliation": "urn:oid:1.3.6.1.4.1.5923.1.1.1.1",
        "eduPersonPrincipalName": "urn:oid:1.3.6.1.4.1.5923.1.1.1.6",
        "eduPersonScopedAffiliation": "urn:oid:1.3.6.1.4.1.5923.1.1.1.9",
        "eduPersonTargetedID": "urn:oid:1.3.6.1.4.1.5923.1.1.1.10",
        "eduPersonEntitlement": "urn:oid:1.3.6.1.4.1.5923.1.1.1.7",
        "memberOf": "urn:oid:1.2.840.113556.1.2.102",
    ]

    /// The user's attributes, sorted by friendly name so the output is stable.
    static func attributes(for user: TestUser) -> [Attribute] {
        user.attributes.keys.sorted().map { name in
            let values = user.attributes[name] ?? []
            if name.hasPrefix("urn:") || name.hasPrefix("http") {
                return Attribute(name: name, nameFormat: Attribute.NameFormat.uri, strings: values)
            }
            if let oid = oids[name] {
                return Attribute(name: oid, nameFormat: Attribute.NameFormat.uri, friendlyName: name, strings: values)
            }
            return Attribute(name: name, nameFormat: Attribute.NameFormat.basic, strings: values)
        }
    }

    /// The friendly name of an attribute as released (for SP-side checks and pages).
    static func friendlyName(of attribute: Attribute) -> String {
        if let friendly = attribute.friendlyName { return friendly }
        return oids.first { $0.value == attribute.name }?.key ?? attribute.name
    }
}
