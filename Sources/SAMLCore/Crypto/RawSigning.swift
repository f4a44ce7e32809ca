internal import CXMLSec

/// OpenSSL's raw signing rate, for benchmarks: `count` signatures of a fixed SHA-256 digest
/// straight through `EVP_PKEY_sign`, nothing else — the physical limit a signed Response
/// is compared with.
public enum RawSigning {
    /// Makes `count` signatures; returns how many succeeded.
    @discardableResult
    public static func signLoop(key: PrivateKey, count: Int) -> Int {
        Int(cxmlsec_raw_sign_loop(key.evp, Int32(count)))
    }
}
