internal import CXMLSec

/// XML-DSig signature methods (xmldsig-core §6.4, RFC 6931 §2.3).
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    /// RSA PKCS#1 v1.5 with SHA-1 — deprecated; produced only as a deliberate misconfiguration
    /// and refused by the validator unless allowed.
    case rsaSha1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
    /// RSA PKCS#1 v1.5 with SHA-256: the default.
    case rsaSha256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
    case rsaSha384 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384"
    case rsaSha512 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512"
    /// ECDSA with SHA-256 (RFC 4051 §3.3).
    case ecdsaSha256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
    case ecdsaSha512 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512"

    /// Short name for CLIs and reports: `rsa-sha256`.
    public var shortName: String {
        String(rawValue.split(separator: "#").last ?? "")
    }

    /// Parses a URI or a short name.
    public init?(nameOrURI: String) {
        if let a = SignatureAlgorithm(rawValue: nameOrURI) {
            self = a
        } else if let a = SignatureAlgorithm.allCases.first(where: { $0.shortName == nameOrURI.lowercased() }) {
            self = a
        } else {
            return nil
        }
    }

    /// True for SHA-1 based methods.
    public var usesSHA1: Bool { self == .rsaSha1 }

    /// The key kind this method needs.
    public var keyKind: KeyKind {
        switch self {
        case .ecdsaSha256, .ecdsaSha512: .ec
        default: .rsa
        }
    }

    /// The digest size passed to the detached (Redirect binding) signer.
    var digestBits: Int32 {
        switch self {
        case .rsaSha1: 1
        case .rsaSha256, .ecdsaSha256: 256
        case .rsaSha384: 384
        case .rsaSha512, .ecdsaSha512: 512
        }
    }

    /// The matching digest for References, by the usual pairing.
    public var defaultDigest: DigestAlgorithm {
        switch self {
        case .rsaSha1: .sha1
        case .rsaSha256, .ecdsaSha256: .sha256
        case .rsaSha384: .sha384
        case .rsaSha512, .ecdsaSha512: .sha512
        }
    }

    var transformID: xmlSecTransformId {
        switch self {
        case .rsaSha1: xmlSecOpenSSLTransformRsaSha1GetKlass()
        case .rsaSha256: xmlSecOpenSSLTransformRsaSha256GetKlass()
        case .rsaSha384: xmlSecOpenSSLTransformRsaSha384GetKlass()
        case .rsaSha512: xmlSecOpenSSLTransformRsaSha512GetKlass()
        case .ecdsaSha256: xmlSecOpenSSLTransformEcdsaSha256GetKlass()
        case .ecdsaSha512: xmlSecOpenSSLTransformEcdsaSha512GetKlass()
        }
    }
}

/// XML-DSig digest methods.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case sha1 = "http://www.w3.org/2000/09/xmldsig#sha1"
    case sha256 = "http://www.w3.org/2001/04/xmlenc#sha256"
    case sha384 = "http://www.w3.org/2001/04/xmldsig-more#sha384"
    case sha512 = "http://www.w3.org/2001/04/xmlenc#sha512"

    public var shortName: String { String(rawValue.split(separator: "#").last ?? "") }

    public var usesSHA1: Bool { self == .sha1 }

    var transformID: xmlSecTransformId {
        switch self {
        case .sha1: xmlSecOpenSSLTransformSha1GetKlass()
        case .sha256: xmlSecOpenSSLTransformSha256GetKlass()
        case .sha384: xmlSecOpenSSLTransformSha384GetKlass()
        case .sha512: xmlSecOpenSSLTransformSha512GetKlass()
        }
    }
}
