internal import CXMLSec

/// A one-shot message digest through OpenSSL's EVP interface.
///
/// HTTP Digest authentication (RFC 7616 §3.4.1–§3.4.2) hashes `A1` and `A2` with the
/// challenge's `algorithm`; the mocks also derive stable per-user values with it.
///
/// ```swift
/// MessageDigest.md5.hex("abc")  // "900150983cd24fb0d6963f7d28e17f72" (RFC 1321 §A.5)
/// ```
public enum MessageDigest: String, Sendable, CaseIterable {
    /// MD5 (RFC 1321). Broken for collision resistance; kept because RFC 2617 clients use it.
    case md5
    /// SHA-1 (FIPS 180-4).
    case sha1
    /// SHA-256 (FIPS 180-4).
    case sha256
    /// SHA-512/256 (FIPS 180-4 §5.3.6): SHA-512 with its own initial value, cut to 256 bits.
    case sha512_256

    /// The name OpenSSL looks the digest up by (`EVP_get_digestbyname`).
    var opensslName: String {
        switch self {
        case .md5: "MD5"
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha512_256: "SHA512-256"
        }
    }

    /// The digest's length in bytes.
    public var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256, .sha512_256: 32
        }
    }

    /// The digest of `bytes`.
    public func hash(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)  // EVP_MAX_MD_SIZE
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                cxmlsec_digest(opensslName, input.baseAddress, input.count, output.baseAddress, &length)
            }
        }
        // Every case is in OpenSSL 3's default provider; failing here means a broken libcrypto.
        precondition(ok == 1 && Int(length) == byteCount, "OpenSSL has no \(opensslName) digest")
        return Array(out.prefix(Int(length)))
    }

    /// The digest of the UTF-8 bytes of `text`.
    public func hash(_ text: String) -> [UInt8] { hash(Array(text.utf8)) }

    /// The digest of `bytes` as lowercase hex (RFC 7616 §3.4.1: "the hex representation").
    public func hex(_ bytes: [UInt8]) -> String { Self.lowercaseHex(hash(bytes)) }

    /// The digest of the UTF-8 bytes of `text` as lowercase hex.
    public func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    /// Bytes as lowercase hex, two digits each.
    public static func lowercaseHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
