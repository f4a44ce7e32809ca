import Foundation
import SAMLCore

/// A relying party trust as the mock AD FS resolves it: its identifier (the `AppliesTo`,
/// audience and `loginToRp=` value), its display name, where the passive flow posts the
/// SAMLResponse, and its issuance rules (which user attributes pass, which it adds).
struct ADFSRelyingParty: Sendable, Equatable {
    var identifier: String
    var name: String
    var acs: String
    /// Every AssertionConsumerService location the trust lists (SP-initiated requests must
    /// name one of them, MSIS3200 otherwise).
    var acsLocations: [String]
    var extraAttributes: [String: [String]]
    var releasedAttributes: [String]?
}

extension ADFSServer {
    /// Every relying party trust: the profile's `adfs.relying_parties`, the suite's mock SP,
    /// the circulation manager, and SP metadata given to the suite. The first with an
    /// identifier wins.
    var relyingParties: [ADFSRelyingParty] {
        var result = environment.profile.profile.adfs.relyingParties.map {
            ADFSRelyingParty(identifier: $0.identifier, name: $0.name, acs: $0.acs, acsLocations: [$0.acs],
                             extraAttributes: $0.attributes, releasedAttributes: $0.releasedAttributes)
        }
        let descriptors = [MockSP.metadata(environment: environment), CirculationManager.metadata(environment: environment)]
            + environment.explicitSPMetadata
        for descriptor in descriptors {
            guard let sp = descriptor.spSSODescriptor, !result.contains(where: { $0.identifier == descriptor.entityID }) else {
                continue
            }
            let post = sp.assertionConsumerServices.filter { $0.binding == SAMLBindingURI.httpPost }
            guard let endpoint = IndexedEndpoint.defaultEndpoint(in: post) else { continue }
            result.append(ADFSRelyingParty(identifier: descriptor.entityID, name: descriptor.entityID, acs: endpoint.location,
                                           acsLocations: sp.assertionConsumerServices.map(\.location),
                                           extraAttributes: [:], releasedAttributes: nil))
        }
        return result
    }

    /// The trust a SAML-P request (its Issuer) or `loginToRp=` names: identifiers compare exactly.
    func relyingParty(identifier: String) -> ADFSRelyingParty? {
        relyingParties.first { $0.identifier == identifier }
    }

    /// The trust a WS-Trust `AppliesTo` names. AD FS compares URL identifiers case-insensitively
    /// and, when none is equal, takes the longest identifier that is a path prefix of the
    /// address (so `https://app.example.org/a/b` finds the trust `https://app.example.org/`).
    func relyingParty(appliesTo address: String) -> ADFSRelyingParty? {
        let all = relyingParties
        if let exact = all.first(where: { $0.identifier == address }) { return exact }
        if let folded = all.first(where: { $0.identifier.caseInsensitiveCompare(address) == .orderedSame }) { return folded }
        guard address.lowercased().hasPrefix("http") else { return nil }
        let lower = address.lowercased()
        return all.filter { rp in
            let id = rp.identifier.lowercased()
            guard id.hasPrefix("http"), lower.hasPrefix(id) else { return false }
            return id.hasSuffix("/") || lower.dropFirst(id.count).first.map { "/?#".contains($0) } == true
        }.max { $0.identifier.count < $1.identifier.count }
    }
}
