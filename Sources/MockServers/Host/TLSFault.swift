import Foundation

/// A certificate (or protocol) a client must refuse, served by one of the mocks under a
/// `tls-FAULT=MOCK[,MOCK…]` knob. The certificates are made once per machine by
/// `scripts/setup-tls.sh` under `$SAMLH_TLS_DIR/faults/FAULT/` (never trusted anywhere);
/// docs/tls.md says what each one is and how clients should trust the test CA instead.
public enum TLSFault: String, Sendable, CaseIterable, Hashable {
    /// Issued by a second CA the client was never told about.
    case unknownCA = "unknown-ca"
    /// A self-signed leaf: no CA at all.
    case selfSigned = "self-signed"
    /// From the trusted test CA, valid 2020-01-01 to 2021-01-01.
    case expired
    /// From the trusted test CA, valid from 2090-01-01.
    case notYetValid = "not-yet-valid"
    /// From the trusted test CA, for `wrong-host.localhost` only (the client asks for 127.0.0.1).
    case wrongHost = "wrong-host"
    /// Issued by an intermediate of the trusted CA that the server leaves out of its chain.
    case missingIntermediate = "missing-intermediate"
    /// From the trusted test CA with an RSA-1024 key.
    case weakKey = "weak-key"
    /// From the trusted test CA, signed with ECDSA-SHA1.
    case sha1
    /// The good certificate, but only TLS 1.0 and 1.1 offered.
    case legacyProtocol = "legacy"

    /// What is wrong with what the server presents, for evidence and reports.
    public var problem: String {
        switch self {
        case .unknownCA: "issued by a CA the client was not told about (SAMLHarness untrusted test CA)"
        case .selfSigned: "self-signed (no CA vouches for it)"
        case .expired: "expired (valid 2020-01-01 to 2021-01-01)"
        case .notYetValid: "not yet valid (valid from 2090-01-01)"
        case .wrongHost: "issued for another host name (SAN wrong-host.localhost, not 127.0.0.1)"
        case .missingIntermediate: "sent without its intermediate CA (the leaf alone, issued by an intermediate the server leaves out)"
        case .weakKey: "on a weak key (RSA-1024)"
        case .sha1: "signed with SHA-1 (ecdsa-with-SHA1)"
        case .legacyProtocol: "good, but only TLS 1.0 and 1.1 were offered (RFC 8996 deprecates both)"
        }
    }

    /// What was wrong, as a clause about the server: "its certificate was expired (…)".
    public var statement: String {
        isCertificateFault ? "its certificate was \(problem)" : "it offered only TLS 1.0 and 1.1 (RFC 8996 deprecates both)"
    }

    /// The alerts a verifying client typically sends (RFC 8446 §6.2), for the docs.
    public var typicalAlerts: [String] {
        switch self {
        case .unknownCA, .selfSigned, .missingIntermediate: ["unknown_ca", "bad_certificate"]
        case .expired, .notYetValid: ["certificate_expired", "bad_certificate"]
        case .wrongHost: ["bad_certificate", "none: the connection closed after the handshake"]
        case .weakKey, .sha1: ["bad_certificate", "handshake_failure", "unknown_ca"]
        case .legacyProtocol: ["protocol_version"]
        }
    }

    /// True for the faults of the certificate (every one but ``legacyProtocol``).
    public var isCertificateFault: Bool { self != .legacyProtocol }

    /// Where `scripts/setup-tls.sh` writes this fault's chain and key (nil: the good ones).
    var directoryName: String? { self == .legacyProtocol ? nil : rawValue }
}

/// The mocks a TLS knob can put on https, by their listener names.
public enum TLSMock: String, Sendable, CaseIterable, Hashable, Comparable {
    case idp, sp, auth, cas, adfs, cm

    public static func < (lhs: TLSMock, rhs: TLSMock) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Parses `idp,sp` (or `all`).
    static func parseList(_ text: String, knob: String) throws -> [TLSMock] {
        if text == "all" { return allCases }
        var mocks: [TLSMock] = []
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let mock = TLSMock(rawValue: part) else {
                throw Knob.ParseError(description: "knob `\(knob)`: `\(part)` is not a mock that can speak https "
                    + "(\(allCases.map(\.rawValue).joined(separator: ", ")), or all)")
            }
            if !mocks.contains(mock) { mocks.append(mock) }
        }
        guard !mocks.isEmpty else { throw Knob.ParseError(description: "knob `\(knob)` needs a mock: \(knob)=idp|sp|auth|cas|adfs|cm[,…]") }
        return mocks.sorted()
    }
}
