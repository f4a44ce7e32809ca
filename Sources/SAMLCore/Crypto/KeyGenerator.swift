import Foundation
internal import CXMLSec

/// Makes test keys and self-signed certificates (`samlharness keys`).
public enum KeyGenerator {
    /// What to generate.
    public enum Algorithm: String, Sendable, CaseIterable {
        case rsa2048 = "rsa2048"
        case rsa3072 = "rsa3072"
        case rsa4096 = "rsa4096"
        case ecP256 = "ec-p256"
        case ecP384 = "ec-p384"
    }

    /// A key with its self-signed certificate.
    public struct KeyPair: Sendable {
        public let privateKey: PrivateKey
        public let certificate: Certificate
    }

    /// Generates a key and a self-signed certificate `CN=commonName`, valid from `notBefore`
    /// for `days` days. Keys come from OpenSSL's generator: they are not reproducible from a
    /// seed — scenarios that need byte-stable output use the committed keys in MockIdP/keys.
    public static func generate(_ algorithm: Algorithm, commonName: String, notBefore: Date = Date(),
                                days: Int = 3650, serial: Int = 1) throws -> KeyPair {
        try XMLLibrary.ensureInitialized()
        let evp: OpaquePointer?
        switch algorithm {
        case .rsa2048: evp = cxmlsec_generate_rsa(2048)
        case .rsa3072: evp = cxmlsec_generate_rsa(3072)
        case .rsa4096: evp = cxmlsec_generate_rsa(4096)
        case .ecP256: evp = cxmlsec_generate_ec(cxmlsec_nid_prime256v1())
        case .ecP384: evp = cxmlsec_generate_ec(cxmlsec_nid_secp384r1())
        }
        guard let evp else { throw KeyError(.generationFailed, "OpenSSL could not generate a \(algorithm.rawValue) key") }
        let key = PrivateKey(adopting: evp)
        guard let x509 = cxmlsec_self_signed(evp, commonName, serial, Int(notBefore.timeIntervalSince1970), Int32(days)) else {
            throw KeyError(.generationFailed, "OpenSSL could not make a self-signed certificate")
        }
        return KeyPair(privateKey: key, certificate: Certificate(adopting: x509))
    }

    /// A self-signed certificate `CN=commonName` for an existing key, valid from `notBefore`
    /// for `days` days — for example an already expired certificate over the IdP's own key, to
    /// reproduce an IdP that kept signing after its certificate ran out.
    public static func selfSignedCertificate(for key: PrivateKey, commonName: String, notBefore: Date,
                                             days: Int, serial: Int = 2) throws -> Certificate {
        try XMLLibrary.ensureInitialized()
        guard let x509 = cxmlsec_self_signed(key.evp, commonName, serial, Int(notBefore.timeIntervalSince1970), Int32(days)) else {
            throw KeyError(.generationFailed, "OpenSSL could not make a self-signed certificate")
        }
        return Certificate(adopting: x509)
    }
}
