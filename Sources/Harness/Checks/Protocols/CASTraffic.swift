import Foundation
import MockServers
import SAMLCore

/// The tickets of a CAS run as the traffic shows them: where each service or proxy ticket was
/// issued and for which service the client asked, and every validation of one (at
/// `/cas/…Validate`, `/cas/samlValidate`, or by the CAS-protected application at `/app/`).
enum CASTraffic {
    /// A ticket issued to the client.
    struct Issue {
        var entry: TrafficEntry
        var ticket: String
        /// The service the client asked the ticket for, as it named it.
        var requestedService: String?
        /// The service the server bound it to, when the mock says it differs.
        var boundService: String?
    }

    /// A validation of a ticket.
    struct Validation {
        var entry: TrafficEntry
        var ticket: String
        /// The service the validation named (decoded), nil when it named none.
        var service: String?
        /// `success` or the CAS error code (`cas.validate`).
        var result: String
        var succeeded: Bool { result == "success" }
        /// Whether the validation was made by the application at `/app/` for the client.
        var byApplication: Bool { entry.request.path.hasPrefix("/app") }
        var isCAS1: Bool { entry.annotations["cas.protocol"] == "1" }
        var isSAML: Bool { entry.annotations["cas.saml"] != nil }
        /// Whether the server counted the presentation as the ticket's use (Apereo checks a
        /// pgtUrl before it uses the ticket).
        var consumedTicket: Bool {
            !["refused", "unreachable", "not-called"].contains(entry.annotations["cas.proxy-callback"] ?? "")
        }
    }

    /// Every ticket issued in the run, in order.
    static func issues(_ entries: [TrafficEntry]) -> [Issue] {
        entries.compactMap { entry -> Issue? in
            guard entry.mock == "cas", let ticket = entry.annotations["cas.ticket"], entry.annotations["cas.validate"] == nil else {
                return nil
            }
            let bound = entry.annotations["cas.bound-service"]
            if entry.annotations["cas.rest"] == "st-issued" {
                return Issue(entry: entry, ticket: ticket, requestedService: entry.request.formValue("service"), boundService: bound)
            }
            if entry.annotations["cas.proxy"] == "success" {
                return Issue(entry: entry, ticket: ticket, requestedService: entry.request.queryValue("targetService"), boundService: nil)
            }
            if let location = entry.response?.header("Location") {
                return Issue(entry: entry, ticket: ticket, requestedService: removingTicket(ticket, from: location), boundService: bound)
            }
            return nil
        }
    }

    /// Every validation in the run, in order.
    static func validations(_ entries: [TrafficEntry]) -> [Validation] {
        entries.compactMap { entry -> Validation? in
            guard entry.mock == "cas", let result = entry.annotations["cas.validate"] else { return nil }
            let request = entry.request
            let ticket = entry.annotations["cas.ticket"] ?? request.queryValue("ticket") ?? ""
            let service: String?
            if request.path.hasPrefix("/app") {
                service = applicationService(request)
            } else if entry.annotations["cas.saml"] != nil {
                service = request.queryValue("TARGET")
            } else {
                service = request.queryValue("service")
            }
            return Validation(entry: entry, ticket: ticket, service: service, result: result)
        }
    }

    /// The service a CAS client filter names itself with: its URL without `ticket` (the Java CAS
    /// client's `constructServiceUrl`, which the mock application follows).
    static func applicationService(_ request: MockRequest) -> String {
        let path = request.path == "/app" ? "/app/" : request.path
        let kept = request.query.filter { $0.name != "ticket" }.map(\.raw)
        return request.origin + path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    /// The service of a `302 service?ticket=ST-…` Location (CAS Protocol 3.0 §2.2.4).
    static func removingTicket(_ ticket: String, from location: String) -> String {
        for separator in ["&", "?"] {
            if let range = location.range(of: separator + "ticket=" + ticket) {
                return String(location[..<range.lowerBound]) + String(location[range.upperBound...])
            }
        }
        return location
    }
}
