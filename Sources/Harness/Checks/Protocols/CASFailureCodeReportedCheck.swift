import Foundation
import MockServers

/// `cas.failure-code-reported`: a failed validation is reported with CAS's code
/// (INVALID_TICKET, INVALID_SERVICE…), never as success (CAS Protocol 3.0 §2.5.3).
struct CASFailureCodeReportedCheck: Check {
    static let id = "cas.failure-code-reported"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        guard let last = CASTraffic.validations(context.entries).last else {
            return .notApplicable("no ticket was validated")
        }
        guard !last.succeeded else {
            return .notApplicable("the run's last validation (#\(last.entry.sequence)) succeeded")
        }
        let code = last.result
        let answer = ProtocolTraffic.evidence(last.entry, "CAS answered \(code)",
                                              excerpt: last.entry.response.map { ProtocolTraffic.excerpt($0.bodyText, limit: 400) })
        let execution = context.execution
        if execution.claimsSuccess {
            return .fail("the validation failed with \(code), yet the client reported success",
                         [answer, Evidence(detail: "the client's outcome", excerpt: execution.report?.outcome ?? "exit 0")])
        }
        let text = execution.errorText
        if ProtocolTraffic.names(text, code) {
            return .pass("the client reported the failure naming \(code)", [answer, ProtocolTraffic.clientError(execution)])
        }
        // CAS 1 answers `no` without a code, and samlValidate a SAML 1.1 RequestDenied status.
        if last.isCAS1 {
            return .pass("the client reported the failure (CAS 1 `no` carries no code)", [answer, ProtocolTraffic.clientError(execution)])
        }
        if last.isSAML, ProtocolTraffic.names(text, "RequestDenied") {
            return .pass("the client reported the samlValidate RequestDenied", [answer, ProtocolTraffic.clientError(execution)])
        }
        return .fail("the client failed, but its error does not name \(code)", [answer, ProtocolTraffic.clientError(execution)])
    }
}
