import Foundation
internal import CXMLSec

/// A private key (RSA or EC), immutable once loaded.
///
/// `@unchecked Sendable`: the OpenSSL key is never mutated after loading, and OpenSSL 3 allows
/// concurrent signing with one `EVP_PKEY`; each xmlsec operation wraps it in a fresh bare
/// xmlsec key (NOTES-xmlsec.md: a key without X.509 data costs nothing to duplicate).
public final class PrivateKey: @unchecked Sendable {
    let evp: OpaquePointer

    init(adopting evp: OpaquePointer) {
        self.evp = evp
    }

    deinit {
        cxmlsec_pkey_free(evp)
    }

    /// Loads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, `BEGIN RSA PRIVATE KEY` or
    /// `BEGIN EC PRIVATE KEY`).
    public convenience init(pem: String) throws {
        try XMLLibrary.ensureInitialized()
        let evp = pem.withCString { cxmlsec_read_private_key($0, Int32(pem.utf8.count)) }
        guard let evp else {
            throw KeyError(.unreadablePrivateKey, "not a PEM private key (expected -----BEGIN PRIVATE KEY-----)")
        }
        self.init(adopting: evp)
        guard cxmlsec_key_kind(evp) != 0 else {
            throw KeyError(.unsupportedKeyType, "only RSA and EC private keys are supported")
        }
    }

    /// Loads a PEM private key from a file.
    public convenience init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw KeyError(.unreadablePrivateKey, "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(pem: text)
    }

    /// RSA or EC.
    public var kind: KeyKind { cxmlsec_key_kind(evp) == 2 ? .ec : .rsa }

    /// Key size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(evp)) }

    /// The matching public key.
    public var publicKey: PublicKey {
        cxmlsec_pkey_up_ref(evp)
        return PublicKey(adopting: evp)
    }

    /// PKCS#8 PEM.
    public var pem: String {
        guard let c = cxmlsec_private_key_pem(evp) else { return "" }
        defer { free(c) }
        return String(cString: c)
    }

    /// A new bare xmlsec key over this key (caller owns it).
    func makeXMLSecKey() throws -> xmlSecKeyPtr {
        guard let key = cxmlsec_key_from_evp(evp) else {
            throw KeyError(.signingFailed, "cannot wrap the private key for libxmlsec1")
        }
        return key
    }
}

/// A public key (RSA or EC), immutable once loaded.
public final class PublicKey: @unchecked Sendable {
    let evp: OpaquePointer

    init(adopting evp: OpaquePointer) {
        self.evp = evp
    }

    deinit {
        cxmlsec_pkey_free(evp)
    }

    /// Loads a PEM public key (`BEGIN PUBLIC KEY`), or the key of a PEM certificate.
    public convenience init(pem: String) throws {
        try XMLLibrary.ensureInitialized()
        if pem.contains("BEGIN CERTIFICATE") {
            let cert = try Certificate(pem: pem)
            let key = cert.publicKey
            cxmlsec_pkey_up_ref(key.evp)
            self.init(adopting: key.evp)
            return
        }
        let evp = pem.withCString { cxmlsec_read_public_key($0, Int32(pem.utf8.count)) }
        guard let evp else {
            throw KeyError(.unreadablePublicKey, "not a PEM public key or certificate")
        }
        self.init(adopting: evp)
    }

    /// RSA or EC.
    public var kind: KeyKind { cxmlsec_key_kind(evp) == 2 ? .ec : .rsa }

    /// Key size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(evp)) }

    /// SubjectPublicKeyInfo PEM.
    public var pem: String {
        guard let c = cxmlsec_public_key_pem(evp) else { return "" }
        defer { free(c) }
        return String(cString: c)
    }

    /// True when both are the same key.
    public func isSameKey(as other: PublicKey) -> Bool {
        EVP_PKEY_eq(evp, other.evp) == 1
    }

    func makeXMLSecKey() throws -> xmlSecKeyPtr {
        guard let key = cxmlsec_key_from_evp(evp) else {
            throw KeyError(.unreadablePublicKey, "cannot wrap the public key for libxmlsec1")
        }
        return key
    }
}
