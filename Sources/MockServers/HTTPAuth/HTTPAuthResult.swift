/// How ``HTTPAuthMock`` or ``ForwardProxyMock`` judged the credentials of one request; the
/// value of the `auth.result` annotation in the traffic log, which checks read.
public enum HTTPAuthResult: String, Sendable, CaseIterable {
    /// Credentials were right: 200 and the protected page.
    case ok
    /// No credentials: 401 (or 407) with a challenge.
    case missing
    /// Wrong user, password, realm or scheme: 401 (or 407) with a fresh challenge, every
    /// time; the mocks never lock a user out.
    case wrongCredentials = "wrong-credentials"
    /// Right credentials with an expired or unknown nonce: 401 with `stale=true` and a fresh
    /// nonce (RFC 7616 §3.3).
    case staleNonce = "stale-nonce"
    /// A nonce count not higher than one already accepted for that nonce: 401 (RFC 7616 §5.5).
    case replayedNC = "replayed-nc"
    /// Credentials that cannot be read: 400 naming what was wrong.
    case malformed

    /// The annotation keys the mocks write.
    public enum Key {
        /// ``HTTPAuthResult`` raw value.
        public static let result = "auth.result"
        /// `Basic` or `Digest`: the scheme the client used, or the one challenged with.
        public static let scheme = "auth.scheme"
        /// The username the client sent, when it sent one.
        public static let user = "auth.user"
        public static let realm = "auth.realm"
        /// The Digest algorithm the client used.
        public static let algorithm = "auth.algorithm"
        /// A sentence saying what exactly was wrong.
        public static let detail = "auth.detail"
    }
}
