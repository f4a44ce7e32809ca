import Foundation
import MockServers
import SAMLCore

/// The SP under attack: where its HTTP-POST ACS is and what its entityID is (the Audience the
/// valid Responses carry).
public struct AttackTarget: Sendable, Codable, Equatable {
    public var acsURL: String
    public var spEntityID: String

    /// Checks the ACS is an absolute http(s) URL with a host.
    public init(acsURL: String, spEntityID: String) throws {
        guard let components = URLComponents(string: acsURL),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty else {
            throw AttackSPError.usage("the ACS URL must be an absolute http:// or https:// URL with a host, not \"\(acsURL)\"")
        }
        self.acsURL = acsURL
        self.spEntityID = spEntityID
    }

    /// The target an SP's metadata names: its entityID and its HTTP-POST ACS (the default one,
    /// else the lowest index; saml-metadata-2.0-os §2.2.3). `entityID` picks one SP in an
    /// aggregate.
    public static func fromMetadata(_ bytes: [UInt8], source: String, entityID: String? = nil) throws -> AttackTarget {
        let descriptors: [EntityDescriptor]
        do {
            descriptors = try LoadedProfile.parseMetadata(bytes, source: source)
        } catch {
            throw AttackSPError.usage("\(source): not SAML metadata: \(error)")
        }
        let sps = descriptors.filter { $0.spSSODescriptor != nil && (entityID == nil || $0.entityID == entityID) }
        guard let sp = sps.first, let descriptor = sp.spSSODescriptor else {
            throw AttackSPError.usage("\(source): no SPSSODescriptor\(entityID.map { " for \($0)" } ?? "")")
        }
        if sps.count > 1, entityID == nil {
            throw AttackSPError.usage("\(source) describes \(sps.count) SPs; pick one with --sp-entity-id (\(sps.map(\.entityID).joined(separator: ", ")))")
        }
        let posts = descriptor.assertionConsumerServices.filter { $0.binding == SAMLBindingURI.httpPost }
        guard let acs = posts.first(where: { $0.isDefault == true }) ?? posts.min(by: { $0.index < $1.index }) else {
            throw AttackSPError.usage("\(source): \(sp.entityID) has no HTTP-POST AssertionConsumerService")
        }
        return try AttackTarget(acsURL: acs.location, spEntityID: sp.entityID)
    }
}

/// Why `attack-sp` could not judge the SP (exit 2), as opposed to finding it vulnerable.
public enum AttackSPError: Error, CustomStringConvertible, Sendable {
    case usage(String)
    /// The valid baseline Response was not accepted: the SP does not trust the mock IdP, or
    /// the success pattern does not match its welcome page.
    case baselineRejected(String)
    /// A source of identity (``AttackIdentitySources``) given by the user does not show the
    /// baseline's user: it could not tell the victim from the signed subject either.
    case identitySource(String)
    case tooManyRedirects(Int, String)

    public var description: String {
        switch self {
        case .usage(let message): message
        case .baselineRejected(let evidence):
            "the valid baseline Response was not accepted, so no attack can be judged: \(evidence). Check that the SP trusts the mock IdP (its entityID and certificate, see --idp-metadata-out), accepts unsolicited Responses at this ACS, and that --success-pattern matches the page it shows after a login"
        case .identitySource(let message):
            "cannot tell who is logged in: \(message)"
        case .tooManyRedirects(let count, let url): "more than \(count) redirects (last \(url))"
        }
    }
}
