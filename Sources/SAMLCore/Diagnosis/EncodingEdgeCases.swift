/// Finds SAML messages whose base64 form exercises every character that form encoding
/// damages: `+` (becomes a space when not percent-encoded), `/` and trailing `=` padding.
///
/// A message whose base64 happens to lack `+` survives a broken form encoder; a test built on
/// it proves nothing. Given a deterministic generator of candidate messages (for example the
/// same response with the n-th ID, signed), this returns the first whose base64 has them all.
///
/// Which candidates qualify follows from RFC 4648 §4: each 3-byte group's last character is
/// its third byte's low 6 bits, and for ASCII bytes that is the only way to reach 62 (`+`:
/// `>` or `~`) or 63 (`/`: `?` or DEL). So an ASCII message needs a `?` and a `>` at byte
/// offsets ≡ 2 (mod 3), and its length ≡ 2 (mod 3) for `=`, ≡ 1 for `==`. A generator that only
/// changes a value *before* every `?` shifts all of these together and may never qualify:
/// vary something between the `?` (e.g. in a Destination URL) and the end.
///
/// ```swift
/// let edge = try EncodingEdgeCases.firstCandidate(padding: .two) { n in
///     try makeSignedResponse(id: "_edge\(n)")
/// }
/// edge?.base64  // contains "+" and "/", ends with "=="
/// ```
public enum EncodingEdgeCases {
    /// How the base64 must end.
    public enum Padding: Sendable, Equatable {
        /// Exactly one `=` (message length ≡ 2 mod 3).
        case one
        /// Exactly `==` (message length ≡ 1 mod 3).
        case two
    }

    /// The candidate found.
    public struct Candidate: Sendable, Equatable {
        /// The `n` passed to the generator.
        public let index: Int
        /// The message text the generator returned.
        public let xml: String
        /// Its base64 (``SAMLBase64/encode(_:)``).
        public let base64: String
    }

    /// True when `base64` contains `+` and `/` and ends with exactly the padding asked for.
    public static func qualifies(_ base64: String, padding: Padding) -> Bool {
        let bytes = Array(base64.utf8)
        let equals = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        return bytes.contains(UInt8(ascii: "+")) && bytes.contains(UInt8(ascii: "/"))
            && equals == (padding == .one ? 1 : 2)
    }

    /// Calls `candidate(0)`, `candidate(1)`, … and returns the first whose base64 qualifies,
    /// or nil after `maxAttempts`. Errors from the generator are rethrown.
    public static func firstCandidate(padding: Padding, maxAttempts: Int = 10_000,
                                      _ candidate: (Int) throws -> String) rethrows -> Candidate? {
        for n in 0..<maxAttempts {
            let xml = try candidate(n)
            // RFC 4648 §4: the padding depends only on the length mod 3; skip encoding otherwise.
            let remainder = xml.utf8.count % 3
            guard remainder == (padding == .one ? 2 : 1) else { continue }
            let base64 = SAMLBase64.encode(Array(xml.utf8))
            if qualifies(base64, padding: padding) {
                return Candidate(index: n, xml: xml, base64: base64)
            }
        }
        return nil
    }
}
