import Foundation
import MockServers
import SAMLCore

/// `ecp.paos-headers`: the first request to the SP advertises ECP with `Accept:
/// application/vnd.paos+xml` and a `PAOS` header naming the ECP service (SAML 2.0 Profiles
/// §4.2.3.1; ECP 2.0 §2.3.1).
struct ECPPAOSHeadersCheck: Check {
    static let id = "ecp.paos-headers"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let initial = context.entries.filter { $0.mock == "sp" && $0.annotations["sp.sso"] != nil }
        guard let first = initial.first else {
            return .notApplicable("the client never asked the SP for a protected resource without a session")
        }
        let wrong = initial.filter { !PAOSHTTP.announcesECP(accept: $0.request.header("Accept"), paos: $0.request.header(PAOSHTTP.paosHeaderName)) }
        if !wrong.isEmpty {
            return .fail("\(wrong.count) request(s) to the SP did not advertise ECP (the SP answered with a browser redirect)",
                         wrong.map { headers($0, "expected Accept with \(PAOSHTTP.contentType) and PAOS: \(PAOSHTTP.paosHeader)") })
        }
        return .pass("the request to the SP advertised ECP; the SP answered a PAOS request", [headers(first, "Accept and PAOS")])
    }

    private func headers(_ entry: TrafficEntry, _ detail: String) -> Evidence {
        let accept = entry.request.header("Accept") ?? "(none)"
        let paos = entry.request.header(PAOSHTTP.paosHeaderName) ?? "(none)"
        return ProtocolTraffic.evidence(entry, detail, excerpt: "Accept: \(accept)\nPAOS: \(paos)")
    }
}
