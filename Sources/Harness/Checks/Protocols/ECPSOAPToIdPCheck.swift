import Foundation
import MockServers
import SAMLCore

/// `ecp.soap-to-idp`: the AuthnRequest goes to the IdP's SOAP endpoint in a SOAP 1.1 envelope,
/// `text/xml`, with HTTP Basic (SAML 2.0 Bindings §3.2.3; ECP 2.0 §2.3.4).
struct ECPSOAPToIdPCheck: Check {
    static let id = "ecp.soap-to-idp"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        guard let paos = ECPTraffic.paos(in: context.entries) else {
            return .notApplicable("the SP never answered a PAOS request")
        }
        let requests = ECPTraffic.idpRequests(context, after: paos.entry.sequence)
        guard !requests.isEmpty else {
            let elsewhere = context.entries.filter { $0.sequence > paos.entry.sequence && $0.mock == "idp" }
            guard let first = elsewhere.first else {
                return .notApplicable("the client sent nothing to the IdP after the PAOS request")
            }
            return .fail("the AuthnRequest never went to the IdP's SOAP endpoint \(ECPTraffic.idpPath(context))",
                         [ProtocolTraffic.evidence(first, "the client went here instead", excerpt: ProtocolTraffic.describe(first))])
        }
        var problems: [Evidence] = []
        for entry in requests {
            let type = entry.request.header("Content-Type")
            if ProtocolTraffic.mediaType(type) != "text/xml" {
                problems.append(ProtocolTraffic.evidence(entry, "Content-Type is \(type ?? "missing"), not text/xml (SOAP 1.1)"))
            }
            do {
                let envelope = try SOAPBinding.parse(entry.request.body)
                if envelope.bodyName != "AuthnRequest" || envelope.bodyNamespace != SAMLNamespace.protocol_ {
                    problems.append(ProtocolTraffic.evidence(entry, "the SOAP Body holds \(envelope.bodyName), not a samlp:AuthnRequest"))
                }
            } catch {
                problems.append(ProtocolTraffic.evidence(entry, "the body is not a SOAP 1.1 envelope: \(error)",
                                                         excerpt: entry.request.bodyText))
            }
            if let field = entry.request.header("Authorization"), HTTPAuthTraffic.scheme(field).lowercased() != "basic" {
                problems.append(ProtocolTraffic.evidence(entry, "credentials in the \(HTTPAuthTraffic.scheme(field)) scheme; the IdP takes HTTP Basic"))
            }
        }
        let basic = requests.first { $0.request.header("Authorization").map { HTTPAuthTraffic.scheme($0).lowercased() == "basic" } ?? false }
        if basic == nil {
            problems.append(ProtocolTraffic.evidence(requests[0], "no request to the IdP's ECP endpoint carried HTTP Basic credentials"))
        }
        if !problems.isEmpty {
            return .fail("the AuthnRequest did not go to the IdP as the SOAP binding says", problems)
        }
        return .pass("the AuthnRequest went to \(ECPTraffic.idpPath(context)) as SOAP 1.1 text/xml with HTTP Basic",
                     requests.map { ProtocolTraffic.evidence($0, "SOAP 1.1, \(ProtocolTraffic.mediaType($0.request.header("Content-Type")) ?? "")") })
    }
}
