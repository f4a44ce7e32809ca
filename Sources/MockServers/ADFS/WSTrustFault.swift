import Foundation
import SAMLCore

/// A SOAP 1.2 fault as AD FS (WCF + WIF) answers it on the usernamemixed endpoints:
/// `s:Code/s:Value` Sender or Receiver, one `s:Subcode` naming the WS-Security, WS-Trust or
/// WS-Addressing fault, and the English reason text with its `IDxxxx`/`MSISxxxx` number.
///
/// Real answers seen in the field (sources in docs/adfs.md): a wrong password gives
/// `s:Sender` / `a:FailedAuthentication` (WS-Security namespace) / "ID3242: The security
/// token could not be authenticated or authorized." with HTTP 500.
struct WSTrustFault: Error, Sendable {
    enum Code: String, Sendable {
        case sender = "s:Sender"
        case receiver = "s:Receiver"
    }

    var code: Code
    /// Namespace and local name of the subcode (written as `a:Local` with `xmlns:a` on the Value).
    var subcodeNamespace: String
    var subcode: String
    var reason: String
    var httpStatus: Int
    /// Why, for the traffic log (`adfs.fault-detail`); never sent to the client.
    var detail: String
    /// What the client is told beyond the reason, in the fault's `s:Detail` (only for a
    /// message that could not be read at all, where nothing else would name the problem).
    var clientDetail: String? = nil

    // MARK: - The faults AD FS sends

    /// The UsernameToken's user is unknown or its password wrong (WIF ID3242).
    static func failedAuthentication(_ detail: String) -> WSTrustFault {
        WSTrustFault(code: .sender, subcodeNamespace: WSTrustNamespace.wsse, subcode: "FailedAuthentication",
                     reason: "ID3242: The security token could not be authenticated or authorized.",
                     httpStatus: 500, detail: detail)
    }

    /// The security header is missing or unusable, or its timestamp is stale: WCF's security
    /// channel answers before AD FS sees the request.
    static func invalidSecurity(_ detail: String) -> WSTrustFault {
        WSTrustFault(code: .sender, subcodeNamespace: WSTrustNamespace.wsse, subcode: "InvalidSecurity",
                     reason: "An error occurred when verifying security for the message.", httpStatus: 500, detail: detail)
    }

    /// The RST is not one AD FS can read (WIF ID3035).
    static func invalidRequest(_ version: WSTrustVersion, _ detail: String) -> WSTrustFault {
        WSTrustFault(code: .sender, subcodeNamespace: version.namespace, subcode: "InvalidRequest",
                     reason: "ID3035: The request was not valid or is malformed.", httpStatus: 500, detail: detail)
    }

    /// The envelope is not well-formed XML: the message cannot even be decoded, HTTP 400.
    static func malformed(_ version: WSTrustVersion, _ detail: String) -> WSTrustFault {
        var fault = invalidRequest(version, detail)
        fault.httpStatus = 400
        fault.clientDetail = detail
        return fault
    }

    /// `AppliesTo` names no relying party trust (WIF ID3082; AD FS logs MSIS7007).
    static func unknownScope(_ version: WSTrustVersion, appliesTo: String) -> WSTrustFault {
        WSTrustFault(code: .sender, subcodeNamespace: version.namespace, subcode: "InvalidRequest",
                     reason: "ID3082: The request scope is not valid or is unsupported.", httpStatus: 500,
                     detail: "MSIS7007: The requested relying party trust '\(appliesTo)' is unspecified or unsupported.")
    }

    /// AD FS failed the request for its own reasons (issuance rules, a policy): MSIS3127.
    static func requestFailed(_ version: WSTrustVersion, _ detail: String) -> WSTrustFault {
        WSTrustFault(code: .receiver, subcodeNamespace: version.namespace, subcode: "RequestFailed",
                     reason: "MSIS3127: The specified request failed.", httpStatus: 500, detail: detail)
    }

    /// The `wsa:Action` is not this endpoint's (WCF's ContractFilter mismatch).
    static func actionNotSupported(_ action: String) -> WSTrustFault {
        WSTrustFault(code: .sender, subcodeNamespace: WSTrustNamespace.addressing, subcode: "ActionNotSupported",
                     reason: "The message with Action '\(action)' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher. This may be because of either a contract mismatch (mismatched Actions between sender and receiver) or a binding/security mismatch between the sender and the receiver.  Check that sender and receiver have the same contract and the same binding (including security requirements, e.g. Message, Transport, None).",
                     httpStatus: 500, detail: "wsa:Action \(action)")
    }

    /// The name the traffic log uses (`adfs.fault`).
    var annotation: String { subcode }
}
