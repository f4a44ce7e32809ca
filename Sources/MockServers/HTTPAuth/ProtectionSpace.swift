/// A protection space of ``HTTPAuthMock``: a realm and the canonical root URI it covers,
/// with the challenge it answers (RFC 9110 §11.5: "the realm value … in combination with the
/// canonical root URI … of the server being accessed, defines the protection space").
///
/// Every space has its own realm, so a client that reuses credentials across spaces, or
/// sends them before a challenge, shows in the traffic log.
public struct ProtectionSpace: Sendable, Equatable {
    /// What a space challenges with.
    public enum Scheme: Sendable, Equatable {
        /// `Basic realm="…", charset="UTF-8"` (RFC 7617 §2, §2.1).
        case basic
        /// One `Digest` challenge per algorithm, in this order (RFC 7616 §3.7: the most
        /// preferred first, one WWW-Authenticate field each).
        case digest([HTTPDigestAlgorithm])
        /// `NTLM` (MS-NLMP over HTTP): a connection-bound three-message handshake.
        case ntlm
        /// `Negotiate` then `NTLM`, two fields, as IIS offers them: SPNEGO (RFC 4559) with NTLM
        /// inside, or bare NTLM.
        case negotiate

        /// The auth-scheme name.
        public var name: String {
            switch self {
            case .basic: "Basic"
            case .digest: "Digest"
            case .ntlm: "NTLM"
            case .negotiate: "Negotiate"
            }
        }

        /// The NTLM schemes a space offers, nil for Basic and Digest.
        var ntlmOffer: NTLMAuthenticator.Offer? {
            switch self {
            case .ntlm: .ntlmOnly
            case .negotiate: .negotiateAndNTLM
            case .basic, .digest: nil
            }
        }
    }

    /// The path prefix the space covers, ending in `/` (e.g. `/digest/sha256/`). The path
    /// without its final slash belongs to the space too.
    public var root: String
    public var realm: String
    public var scheme: Scheme

    public init(root: String, realm: String, scheme: Scheme) {
        self.root = root.hasSuffix("/") ? root : root + "/"
        self.realm = realm
        self.scheme = scheme
    }

    /// Whether `path` is in this space.
    public func contains(path: String) -> Bool {
        path.hasPrefix(root) || path == String(root.dropLast())
    }

    /// The spaces the harness serves by default:
    ///
    /// | root | challenge |
    /// |---|---|
    /// | `/basic/` | Basic, realm `SAMLHarness Basic` |
    /// | `/basic-other/` | Basic, realm `SAMLHarness Basic (other)` |
    /// | `/digest/md5/` | Digest MD5 |
    /// | `/digest/md5-sess/` | Digest MD5-sess |
    /// | `/digest/sha256/` | Digest SHA-256 |
    /// | `/digest/sha256-sess/` | Digest SHA-256-sess |
    /// | `/digest/sha512-256/` | Digest SHA-512-256 |
    /// | `/digest/any/` | Digest SHA-256 then MD5, two fields |
    /// | `/ntlm/` | NTLM (realm is the harness's name for the space; NTLM has none) |
    /// | `/negotiate/` | Negotiate then NTLM, two fields |
    public static let defaults: [ProtectionSpace] = [
        ProtectionSpace(root: "/basic/", realm: "SAMLHarness Basic", scheme: .basic),
        ProtectionSpace(root: "/basic-other/", realm: "SAMLHarness Basic (other)", scheme: .basic),
        ProtectionSpace(root: "/digest/md5/", realm: "SAMLHarness Digest MD5", scheme: .digest([.md5])),
        ProtectionSpace(root: "/digest/md5-sess/", realm: "SAMLHarness Digest MD5-sess", scheme: .digest([.md5Sess])),
        ProtectionSpace(root: "/digest/sha256/", realm: "SAMLHarness Digest SHA-256", scheme: .digest([.sha256])),
        ProtectionSpace(root: "/digest/sha256-sess/", realm: "SAMLHarness Digest SHA-256-sess",
                        scheme: .digest([.sha256Sess])),
        ProtectionSpace(root: "/digest/sha512-256/", realm: "SAMLHarness Digest SHA-512-256",
                        scheme: .digest([.sha512_256])),
        ProtectionSpace(root: "/digest/any/", realm: "SAMLHarness Digest", scheme: .digest([.sha256, .md5])),
        ProtectionSpace(root: "/ntlm/", realm: "SAMLHarness NTLM", scheme: .ntlm),
        ProtectionSpace(root: "/negotiate/", realm: "SAMLHarness Negotiate", scheme: .negotiate),
    ]
}
