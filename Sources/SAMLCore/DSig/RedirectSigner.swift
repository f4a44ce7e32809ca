import Foundation
internal import CXMLSec

/// Signs HTTP-Redirect binding octets with a private key (saml-bindings-2.0-os §3.4.4.1):
/// RSA PKCS#1 v1.5, or ECDSA as r||s.
public struct RedirectSigner: DetachedSigner {
    public let key: PrivateKey
    public let algorithm: SignatureAlgorithm

    public init(key: PrivateKey, algorithm: SignatureAlgorithm? = nil) {
        self.key = key
        self.algorithm = algorithm ?? (key.kind == .ec ? .ecdsaSha256 : .rsaSha256)
    }

    public var algorithmURI: String { algorithm.rawValue }

    public func sign(_ octets: [UInt8]) throws -> [UInt8] {
        guard key.kind == algorithm.keyKind else {
            throw SignatureError(.signingFailed, "a \(key.kind.rawValue) key cannot make \(algorithm.shortName) signatures")
        }
        var out = [UInt8](repeating: 0, count: 1024)
        let n = octets.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                cxmlsec_sign_octets(key.evp, algorithm.digestBits, input.baseAddress, input.count,
                                    output.baseAddress, output.count)
            }
        }
        guard n > 0 else { throw SignatureError(.signingFailed, "OpenSSL could not sign the query octets") }
        return Array(out.prefix(Int(n)))
    }
}

/// Verifies HTTP-Redirect binding signatures against trusted keys only.
public struct RedirectVerifier: DetachedVerifier {
    public let trustedKeys: [PublicKey]
    public var allowSHA1: Bool

    public init(trustedKeys: [PublicKey], allowSHA1: Bool = false) {
        self.trustedKeys = trustedKeys
        self.allowSHA1 = allowSHA1
    }

    public func verify(_ signature: [UInt8], over octets: [UInt8], algorithmURI: String) throws -> Bool {
        guard let algorithm = SignatureAlgorithm(rawValue: algorithmURI) else {
            throw SignatureError(.forbiddenAlgorithm, "SigAlg \"\(algorithmURI)\" is not allowed")
        }
        if algorithm.usesSHA1 && !allowSHA1 {
            throw SignatureError(.forbiddenAlgorithm, "SigAlg rsa-sha1 is refused (SHA-1 downgrade)")
        }
        for key in trustedKeys where key.kind == algorithm.keyKind {
            let rc = octets.withUnsafeBufferPointer { data in
                signature.withUnsafeBufferPointer { sig in
                    cxmlsec_verify_octets(key.evp, algorithm.digestBits, data.baseAddress, data.count,
                                          sig.baseAddress, sig.count)
                }
            }
            if rc == 1 { return true }
        }
        return false
    }
}
