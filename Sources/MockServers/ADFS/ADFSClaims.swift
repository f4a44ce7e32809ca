import Foundation
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
    /// AWS's role claim: each value a comma-separated pair of a role ARN and a SAML provider ARN.
    static let awsRole = "https://aws.amazon.com/SAML/Attributes/Role"

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
    /// attribute name or claim type. AWS Role values are written in `roleOrder`.
    static func claims(for user: TestUser, rp: ADFSRelyingParty, missing: Set<String> = [],
                       roleOrder: ADFSKnob.RoleOrder = .providerFirst) -> [(type: String, values: [String])] {
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
        if let roles = claims[awsRole] { claims[awsRole] = roles.map { ordered($0, roleOrder) } }
        return claims.filter { !missing.contains($0.key) && !$0.value.isEmpty }
            .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A Role value with its two ARNs in `order`; a value that is not one role ARN and one
    /// SAML provider ARN is left as it is.
    static func ordered(_ value: String, _ order: ADFSKnob.RoleOrder) -> String {
        let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return value }
        let isProvider = parts.map { $0.contains(":saml-provider/") }
        let isRole = parts.map { $0.contains(":role/") }
        let (provider, role): (String, String)
        if isProvider[0] && isRole[1] {
            (provider, role) = (parts[0], parts[1])
        } else if isRole[0] && isProvider[1] {
            (provider, role) = (parts[1], parts[0])
        } else {
            return value
        }
        return order == .providerFirst ? provider + "," + role : role + "," + provider
    }

    /// The `adfs-role-order` knob among `knobs` (provider first without it).
    static func roleOrder(_ knobs: [Knob]) -> ADFSKnob.RoleOrder {
        for case .adfs(.roleOrder(let order)) in knobs { return order }
        return .providerFirst
    }
}
