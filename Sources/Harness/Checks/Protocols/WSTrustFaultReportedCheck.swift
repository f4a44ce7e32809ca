import Foundation
import MockServers

/// `wstrust.fault-reported`: a SOAP fault from AD FS is reported with its code, and not
/// retried in a loop (WS-Trust 1.3 §11; SOAP 1.2 Part 1 §5.4).
struct WSTrustFaultReportedCheck: Check {
    static let id = "wstrust.fault-reported"

    /// The most requests one fault may answer before the retries count as a loop.
    static let maxSameFault = 3

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let requests = WSTrustTraffic.requests(context.entries)
        let faulted = requests.filter { $0.annotations["adfs.fault"] != nil }
        guard let lastFault = faulted.last else { return .notApplicable("AD FS answered no fault") }
        var counts: [String: Int] = [:]
        for entry in faulted { counts[entry.annotations["adfs.fault"]!, default: 0] += 1 }
        if let (fault, count) = counts.first(where: { $0.value > Self.maxSameFault }) {
            let repeated = faulted.filter { $0.annotations["adfs.fault"] == fault }
            return .fail("the client sent \(count) RSTs that AD FS answered with the same \(fault) fault (a loop)",
                         repeated.map { ProtocolTraffic.evidence($0, "\(fault) again") })
        }
        if let success = requests.last, success.sequence > lastFault.sequence, success.annotations["adfs.fault"] == nil {
            return .notApplicable("after the fault at #\(lastFault.sequence) a later RST (#\(success.sequence)) got a token")
        }
        let subcode = lastFault.annotations["adfs.fault"]!
        let body = lastFault.response?.bodyText ?? ""
        let reason = WSTrustTraffic.reasonCode(body)
        let answer = ProtocolTraffic.evidence(lastFault, "AD FS answered \(subcode)\(reason.map { " (\($0))" } ?? "")",
                                              excerpt: ProtocolTraffic.excerpt(body, limit: 500))
        let execution = context.execution
        if execution.claimsSuccess {
            return .fail("AD FS answered a \(subcode) fault, yet the client reported success",
                         [answer, Evidence(detail: "the client's outcome", excerpt: execution.report?.outcome ?? "exit 0")])
        }
        // The 415 for a wrong content type is WCF's plain-text answer, not a SOAP fault.
        var names = [subcode] + (reason.map { [$0] } ?? [])
        if subcode == "content-type" { names += ["415", "content type", "content-type"] }
        guard names.contains(where: { ProtocolTraffic.names(execution.errorText, $0) }) else {
            return .fail("the client failed, but its error names neither \(names.joined(separator: " nor "))",
                         [answer, ProtocolTraffic.clientError(execution)])
        }
        return .pass("the client reported the \(subcode) fault", [answer, ProtocolTraffic.clientError(execution)])
    }
}
