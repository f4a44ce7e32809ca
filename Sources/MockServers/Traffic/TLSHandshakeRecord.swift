import Foundation

/// A TLS connection to an https mock that carried no HTTP request: the client refused the
/// server's certificate (its alert), failed the handshake another way, or closed the
/// connection without asking anything. Recorded in the ``TrafficLog`` as an exchange of its
/// own (``TrafficEntry/handshake``), in HAR and in the report's trace.
public struct TLSHandshakeRecord: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The client sent this alert (RFC 8446 §6.2 name: `unknown_ca`, `bad_certificate`,
        /// `certificate_expired`…) and the handshake ended.
        case alert(String)
        /// The handshake failed on the server's side (e.g. `protocol_version`: the client
        /// offered no version the server speaks).
        case failed(String)
        /// The handshake completed; the client closed without sending a request.
        case closedAfterHandshake
        /// The client closed during the handshake without an alert.
        case closedDuringHandshake
    }

    public let outcome: Outcome
    /// The negotiated version (`TLS 1.3`…), when the handshake completed.
    public let protocolVersion: String?
    /// The fault the listener presented (nil: the good certificate).
    public let fault: TLSFault?
    /// The TLS stack's own words for the failure (BoringSSL's reason), when there was one.
    public let detail: String?

    public init(outcome: Outcome, protocolVersion: String? = nil, fault: TLSFault? = nil, detail: String? = nil) {
        self.outcome = outcome
        self.protocolVersion = protocolVersion
        self.fault = fault
        self.detail = detail
    }

    /// True when the client, not the server, ended the connection before any request.
    public var refusedByClient: Bool {
        switch outcome {
        case .alert, .closedAfterHandshake, .closedDuringHandshake: true
        case .failed: false
        }
    }

    /// One line for logs, evidence and the trace.
    public var summary: String {
        let what: String = switch outcome {
        case .alert(let name): "the client sent the TLS alert \(name) and ended the handshake"
        case .failed(let reason): "the handshake failed (\(reason))"
        case .closedAfterHandshake: "the client completed the handshake\(protocolVersion.map { " (\($0))" } ?? "") and closed the connection without a request"
        case .closedDuringHandshake: "the client closed the connection during the handshake, without an alert"
        }
        return what + (fault.map { "; the server: \($0.statement)" } ?? "")
    }

    /// The alert name or failure kind, for HAR (`_tls.outcome`).
    public var outcomeName: String {
        switch outcome {
        case .alert(let name): "alert:\(name)"
        case .failed(let reason): "failed:\(reason)"
        case .closedAfterHandshake: "closed-after-handshake"
        case .closedDuringHandshake: "closed-during-handshake"
        }
    }

    /// Reads the TLS alert out of a BoringSSL error text (`…SSLV3_ALERT_CERTIFICATE_EXPIRED…`,
    /// `…TLSV1_ALERT_UNKNOWN_CA…`): the alert's RFC name, or nil when the error is not an alert
    /// the peer sent.
    public static func alertName(in errorText: String) -> String? {
        for prefix in ["SSLV3_ALERT_", "TLSV1_ALERT_"] {
            guard let range = errorText.range(of: prefix) else { continue }
            let name = errorText[range.upperBound...].prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
            guard !name.isEmpty else { continue }
            return name.lowercased()
        }
        return nil
    }

    /// BoringSSL's reason code in an error text (`UNSUPPORTED_PROTOCOL`, `NO_SHARED_CIPHER`…).
    public static func reason(in errorText: String) -> String? {
        guard let range = errorText.range(of: "OPENSSL_internal:") else { return nil }
        let name = errorText[range.upperBound...].prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
        return name.isEmpty ? nil : String(name)
    }
}
