import SAMLCore

/// The claims AD FS issues for a user, from the profile's user attributes: the Active
/// Directory attributes mapped to the claim types AD FS's LDAP claim rules emit (AD FS
/// "Claim Descriptions"), URI-named attributes passed as they are.
enum ADFSClaims {
    static let upn = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn"
    static let email = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"
    static let name = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"
    static let givenName = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"
    static let surname = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"
    static let commonName = "http://schemas.xmlsoap.org/claims/CommonName"
    static let group = "http://schemas.xmlsoap.org/claims/Group"
    static let role = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role"
    /// Where a user attribute that has no standard claim type goes.
    static let otherPrefix = "http://schemas.xmlsoap.org/claims/"

    static let byAttribute: [String: String] = [
        "upn": upn, "eduPersonPrincipalName": upn, "mail": email, "uid": name, "givenName": givenName,
        "sn": surname, "cn": commonName, "displayName": commonName, "memberOf": group,
        "eduPersonAffiliation": role,
    ]

    /// The claim type for a user attribute name.
    static func claimType(for attribute: String) -> String {
        if attribute.hasPrefix("http://") || attribute.hasPrefix("https://") || attribute.hasPrefix("urn:") {
            return attribute
        }
        return byAttribute[attribute] ?? otherPrefix + attribute
    }

    /// The user's UPN: `upn`, else `eduPersonPrincipalName`, else the NameID, else the username.
    static func upn(of user: TestUser) -> String {
        user.attributes["upn"]?.first ?? user.attributes["eduPersonPrincipalName"]?.first ?? user.nameID ?? user.username
    }

    /// Claim type → values issued to `rp`, sorted by claim type so tokens are byte-stable.
    /// A trust with `released_attributes` passes only those user attributes; the trust's own
    /// attributes are added last. `missing` (the `attribute-missing` knob) drops a claim by
    /// attribute name or claim type.
    static func claims(for user: TestUser, rp: ADFSRelyingParty, missing: Set<String> = []) -> [(type: String, values: [String])] {
        var claims: [String: [String]] = [:]
        let released = rp.releasedAttributes.map(Set.init)
        if released == nil || released?.contains("upn") == true {
            claims[upn] = [upn(of: user)]
        }
        // By attribute name: two attributes can map to one claim type (`cn`, `displayName`),
        // and their values must come out in the same order on every run.
        for (attribute, values) in user.attributes.sorted(by: { $0.key < $1.key }) where released?.contains(attribute) ?? true {
            guard !missing.contains(attribute) else { continue }
            let type = claimType(for: attribute)
            if type == upn { continue }
            claims[type, default: []] += values
        }
        for (attribute, values) in rp.extraAttributes.sorted(by: { $0.key < $1.key }) {
            claims[claimType(for: attribute), default: []] += values
        }
        return claims.filter { !missing.contains($0.key) && !$0.value.isEmpty }
            .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
