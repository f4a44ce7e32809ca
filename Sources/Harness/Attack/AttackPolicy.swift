import Foundation

/// An acceptance that is a documented setting of the SP's product, not a flaw of it: the
/// product says it accepts this by default and names the setting that refuses it. `attack-sp`
/// reports it as `policy`, apart from real vulnerabilities, with that setting.
public struct AttackPolicy: Sendable, Codable, Equatable {
    /// The product (`shibboleth-sp`).
    public var product: String
    /// The setting that changes the outcome, where it is set.
    public var setting: String
    /// What the default is and what to set instead.
    public var change: String
    /// Where the product documents it.
    public var reference: String
}

/// The SP products whose documented policies `attack-sp` knows (`--sp-product`).
public enum SPProduct: String, Sendable, Codable, CaseIterable {
    /// Shibboleth SP 3 (mod_shib + shibd).
    case shibbolethSP = "shibboleth-sp"
    /// OneLogin's python3-saml toolkit.
    case python3SAML = "python3-saml"

    /// The documented policy behind accepting `attackID`, if there is one. Attacks that
    /// forge an identity never have one: acting on forged content is always a flaw.
    public func policy(for attackID: String) -> AttackPolicy? {
        switch (self, attackID) {
        case (.shibbolethSP, "sha1-downgrade"):
            AttackPolicy(
                product: rawValue,
                setting: "<ExcludedAlgorithms> in security-policy.xml",
                change: "the packaged <ExcludedAlgorithms excludeDefaults=\"true\"/> excludes only the MD5 algorithms and RSA-1.5 key transport, so rsa-sha1 / sha1 signatures verify; list http://www.w3.org/2000/09/xmldsig#rsa-sha1 and http://www.w3.org/2000/09/xmldsig#sha1 inside <ExcludedAlgorithms> to refuse them",
                reference: "https://shibboleth.atlassian.net/wiki/spaces/SP3/pages/2065334425 (SecurityPolicies: <ExcludedAlgorithms>)")
        case (.shibbolethSP, "forged-in-response-to"):
            AttackPolicy(
                product: rawValue,
                setting: "checkCorrelation of the Bearer rule (<PolicyRule type=\"Bearer\"/>) in security-policy.xml",
                change: "checkCorrelation defaults to false: InResponseTo is not compared with a request this SP sent; set <PolicyRule type=\"Bearer\" checkCorrelation=\"true\"/> in the policy in use (blockUnsolicited=\"true\" also refuses unsolicited Responses)",
                reference: "https://wiki.shibboleth.net/confluence/display/SP3/Bearer+Rule")
        case (.python3SAML, "sha1-downgrade"):
            AttackPolicy(
                product: rawValue,
                setting: "security.rejectDeprecatedAlgorithm in the settings",
                change: "rejectDeprecatedAlgorithm defaults to false; set it to true to refuse SHA-1 signatures and digests",
                reference: "https://github.com/SAML-Toolkits/python3-saml#settings (advanced_settings.json: security)")
        case (.python3SAML, "forged-in-response-to"):
            AttackPolicy(
                product: rawValue,
                setting: "security.rejectUnsolicitedResponsesWithInResponseTo, and the request ID passed to is_valid",
                change: "rejectUnsolicitedResponsesWithInResponseTo defaults to false and InResponseTo is compared only with a request ID the application passes in; set it to true and pass the ID of the AuthnRequest sent",
                reference: "https://github.com/SAML-Toolkits/python3-saml#settings (advanced_settings.json: security)")
        default:
            nil
        }
    }

    /// The product an SP reveals by its cookies: Shibboleth SP names its session cookie
    /// `_shibsession_<application hash>`.
    public static func detect(cookieNames: [String]) -> SPProduct? {
        cookieNames.contains { $0.hasPrefix("_shibsession_") } ? .shibbolethSP : nil
    }
}
