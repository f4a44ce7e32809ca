import Foundation
import MockServers
import SAMLCore

/// `ecp.consumer-url-matched`: when the IdP's `ecp:Response AssertionConsumerServiceURL`
/// differs from the SP's `paos:Request responseConsumerURL`, the Response goes nowhere
/// (SAML 2.0 Profiles §4.2.4.5).
struct ECPConsumerURLMatchedCheck: Check {
    static let id = "ecp.consumer-url-matched"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        guard let paos = ECPTraffic.paos(in: context.entries) else {
            return .notApplicable("the SP never answered a PAOS request")
        }
        guard let (idpEntry, ecpResponse) = ECPTraffic.idpResponse(context, after: paos.entry.sequence) else {
            return .notApplicable("the IdP never answered an ecp:Response")
        }
        let consumer = paos.request.responseConsumerURL
        let acs = ecpResponse.assertionConsumerServiceURL
        let urls = [
            ProtocolTraffic.evidence(paos.entry, "paos:Request responseConsumerURL", excerpt: consumer),
            ProtocolTraffic.evidence(idpEntry, "ecp:Response AssertionConsumerServiceURL", excerpt: acs),
        ]
        let forwarded = context.entries.filter { $0.sequence > idpEntry.sequence && ECPTraffic.carriesResponse($0) }
        if acs != consumer {
            if !forwarded.isEmpty {
                return .fail("the URLs differ, yet the client posted the Response",
                             urls + forwarded.map { ProtocolTraffic.evidence($0, "the Response posted to \($0.request.url)") })
            }
            let fault = context.entries.first { $0.sequence > idpEntry.sequence && $0.annotations["sp.rejected"] == "ecp.client-fault" }
            let note = fault.map { " and sent the SP a SOAP fault (#\($0.sequence))" } ?? ""
            return .pass("the URLs differ and the client did not forward the Response\(note)", urls)
        }
        let astray = forwarded.filter { $0.request.url != consumer }
        if !astray.isEmpty {
            return .fail("the Response was posted somewhere else than responseConsumerURL",
                         urls + astray.map { ProtocolTraffic.evidence($0, "the Response posted to \($0.request.url)") })
        }
        let posted = forwarded.first.map { " and the Response went there (#\($0.sequence))" } ?? ""
        return .pass("responseConsumerURL and AssertionConsumerServiceURL agree\(posted)", urls)
    }
}
