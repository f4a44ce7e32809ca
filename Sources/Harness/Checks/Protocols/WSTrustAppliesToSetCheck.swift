import Foundation
import MockServers
import SAMLCore

/// `wstrust.applies-to-set`: the RST names the relying party in `wsp:AppliesTo` (WS-Trust 1.3
/// §4.1).
struct WSTrustAppliesToSetCheck: Check {
    static let id = "wstrust.applies-to-set"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let expected = context.target.parameters["ADFS_APPLIES_TO"]
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for entry in WSTrustTraffic.requests(context.entries) {
            guard case .success(let document) = ProtocolTraffic.parseXML(entry.request.body) else { continue }
            let body = document.root.firstChild("Body", WSTrustTraffic.soap12)
            let rst = WSTrustTraffic.child(body, "RequestSecurityToken", [WSTrustTraffic.trust13, WSTrustTraffic.trust2005])
            let reference = WSTrustTraffic.child(WSTrustTraffic.child(rst, "AppliesTo", WSTrustTraffic.policy), "EndpointReference",
                                                 WSTrustTraffic.addressing)
            let address = WSTrustTraffic.child(reference, "Address", WSTrustTraffic.addressing)?.text
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard let address, !address.isEmpty else {
                problems.append(ProtocolTraffic.evidence(entry, rst == nil ? "the Body holds no RequestSecurityToken"
                                                             : "no wsp:AppliesTo/wsa:EndpointReference/wsa:Address in the RST"))
                continue
            }
            if let expected, address != expected {
                problems.append(ProtocolTraffic.evidence(entry, "wsp:AppliesTo names another relying party than the one the client was given",
                                                         excerpt: "sent:     \(address)\nexpected: \(expected)"))
            } else {
                fine.append(ProtocolTraffic.evidence(entry, "wsp:AppliesTo names the relying party", excerpt: address))
            }
        }
        if !problems.isEmpty {
            return .fail("the RST does not name the relying party", problems)
        }
        guard !fine.isEmpty else { return .notApplicable("no readable RequestSecurityToken was sent to AD FS") }
        return .pass("every RST names the relying party in wsp:AppliesTo", fine)
    }
}
