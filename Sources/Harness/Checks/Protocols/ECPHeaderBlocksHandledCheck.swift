import Foundation
import MockServers
import SAMLCore

/// `ecp.header-blocks-handled`: the SP's header blocks are removed before the AuthnRequest
/// goes to the IdP, and `ecp:RelayState` comes back to the SP (SAML 2.0 Profiles §4.2.4.2,
/// §4.2.4.4).
struct ECPHeaderBlocksHandledCheck: Check {
    static let id = "ecp.header-blocks-handled"

    /// The header blocks the SP addresses to the ECP, by namespace and local name.
    private static let spBlocks: [(namespace: String, name: String, label: String)] = [
        (SAMLNamespace.paos, "Request", "paos:Request"),
        (SAMLNamespace.ecp, "Request", "ecp:Request"),
        (SAMLNamespace.ecp, "RelayState", "ecp:RelayState"),
    ]

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        guard let paos = ECPTraffic.paos(in: context.entries) else {
            return .notApplicable("the SP never answered a PAOS request")
        }
        let toIdP = ECPTraffic.idpRequests(context, after: paos.entry.sequence)
        guard !toIdP.isEmpty else { return .notApplicable("the AuthnRequest never reached the IdP's ECP endpoint") }
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for entry in toIdP {
            guard let envelope = try? SOAPBinding.parse(entry.request.body) else { continue }
            let kept = Self.spBlocks.filter { envelope.headerBlock($0.name, $0.namespace) != nil }.map(\.label)
            if kept.isEmpty {
                fine.append(ProtocolTraffic.evidence(entry, "no SP header block forwarded to the IdP"))
            } else {
                problems.append(ProtocolTraffic.evidence(entry, "the SP's \(kept.joined(separator: ", ")) forwarded to the IdP",
                                                         excerpt: entry.request.bodyText))
            }
        }
        let toSP = context.entries.filter {
            $0.sequence > paos.entry.sequence && $0.mock == "sp" && $0.request.method == "POST"
                && $0.request.url == paos.request.responseConsumerURL
        }
        for entry in toSP {
            guard let envelope = try? SOAPBinding.parse(entry.request.body), envelope.fault == nil else { continue }
            guard let relayState = paos.request.relayState else { continue }
            let returned = envelope.headerBlock("RelayState", SAMLNamespace.ecp).flatMap(ECPTraffic.text(of:))
            if returned == relayState {
                fine.append(ProtocolTraffic.evidence(entry, "ecp:RelayState returned unchanged", excerpt: relayState))
            } else {
                problems.append(ProtocolTraffic.evidence(
                    entry, returned == nil ? "no ecp:RelayState returned to the SP (the SP sent one at #\(paos.entry.sequence))"
                        : "ecp:RelayState changed on the way back (the SP sent it at #\(paos.entry.sequence))",
                    excerpt: "sent: \(relayState)\nreturned: \(returned ?? "(none)")"))
            }
        }
        if !problems.isEmpty {
            return .fail("the ECP header blocks were not handled as the profile says", problems)
        }
        guard !fine.isEmpty else { return .notApplicable("no SOAP envelope went to the IdP or back to the SP") }
        return .pass("the SP's header blocks stayed with the client and ecp:RelayState came back", fine)
    }
}
