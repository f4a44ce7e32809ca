import Foundation
import MockServers
import SAMLCore

/// The exchanges of an ECP run (SAML 2.0 Profiles §4.2): the SP's PAOS request, the client's
/// SOAP requests to the IdP, the IdP's `ecp:Response`, and what went back to the SP.
enum ECPTraffic {
    /// The SP's PAOS answer and what it asked for.
    struct PAOS {
        var entry: TrafficEntry
        var request: PAOSRequest
    }

    /// The first PAOS request the SP answered, parsed.
    static func paos(in entries: [TrafficEntry]) -> PAOS? {
        for entry in entries where entry.mock == "sp" && entry.annotations["sp.sso"] == "paos" {
            if let body = entry.response?.body, let request = try? PAOSRequest.parse(body) {
                return PAOS(entry: entry, request: request)
            }
        }
        return nil
    }

    /// The path of the IdP's SOAP (ECP) endpoint: the one the client was given, else Shibboleth's.
    static func idpPath(_ context: CheckContext) -> String {
        context.target.parameters["IDP_ECP_URL"].flatMap { URLComponents(string: $0)?.percentEncodedPath } ?? MockIdP.ecpPath
    }

    /// Requests to the IdP's ECP endpoint after `sequence`.
    static func idpRequests(_ context: CheckContext, after sequence: Int) -> [TrafficEntry] {
        let path = idpPath(context)
        return context.entries.filter { $0.sequence > sequence && $0.mock == "idp" && $0.request.path == path }
    }

    /// The IdP's `ecp:Response` answer after `sequence`, parsed.
    static func idpResponse(_ context: CheckContext, after sequence: Int) -> (TrafficEntry, ECPResponse)? {
        for entry in idpRequests(context, after: sequence) where entry.response?.status == 200 {
            if let body = entry.response?.body, let parsed = try? ECPResponse.parse(body) { return (entry, parsed) }
        }
        return nil
    }

    /// Whether a request carries a SAML Response: a SOAP envelope around `samlp:Response`, or
    /// a form with `SAMLResponse`.
    static func carriesResponse(_ entry: TrafficEntry) -> Bool {
        guard entry.request.method == "POST", !entry.request.body.isEmpty else { return false }
        if entry.request.formValue("SAMLResponse") != nil { return true }
        if let envelope = try? SOAPBinding.parse(entry.request.body) {
            return envelope.bodyName == "Response" && envelope.bodyNamespace == SAMLNamespace.protocol_
        }
        // Not a SOAP 1.1 envelope (SOAP 1.2, a bare Response, a broken wrapper): a Response
        // forwarded in it is still a Response forwarded.
        let text = entry.request.bodyText
        return text.contains(SAMLNamespace.protocol_) && text.range(of: #"<([A-Za-z_][\w.-]*:)?Response[\s>]"#, options: .regularExpression) != nil
    }

    /// The text of a header block.
    static func text(of block: SOAPEnvelope.HeaderBlock) -> String? {
        (try? XMLDocument(parsing: block.xml))?.root.text
    }
}
