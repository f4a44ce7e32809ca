import Foundation

/// A signed SAMLResponse made on purpose so that its base64 form contains `+` and `/` and
/// ends with `=` (or `==`): the value a client must percent-encode as `%2B`, `%2F`, `%3D`
/// when it posts the form back (the field-reported bug where `+` arrives as a space).
///
/// For pure-ASCII XML, base64 shows `/` only for a `?` at a byte offset ≡ 2 (mod 3), `+` only
/// for `>` (or `~`) there, and the padding follows the length mod 3. The candidates therefore
/// vary two things independently: text before a `?` (moving it) and text after it (changing
/// the length) — a `homepage` attribute with a query string. Deterministic: the same inputs
/// give the same candidate and bytes.
public enum EncodingEdgeCaseResponse {
    public struct Result: Sendable {
        /// The signed Response XML.
        public let xml: String
        /// Its base64 form (what goes in the `SAMLResponse` form field).
        public let base64: String
        /// Which candidate matched.
        public let candidate: Int
    }

    public static func make(factory: SignedResponseFactory, login: SignedResponseFactory.Login,
                            padding: EncodingEdgeCases.Padding = .one, clock: SAMLClock, seed: UInt64) throws -> Result {
        let match = try EncodingEdgeCases.firstCandidate(padding: padding, maxAttempts: 900) { n in
            var l = login
            let before = String(repeating: "x", count: n % 3)
            let after = String(repeating: "y", count: (n / 3) % 3)
            let tail = n / 9
            l.attributes.append(Attribute(name: "urn:samlharness:homepage", friendlyName: "homepage",
                                          strings: ["https://sp.example.org/\(before)welcome?lang=en&v=\(tail)\(after)"]))
            return try factory.response(for: l, clock: clock, ids: SeededIDGenerator(seed: seed))
        }
        guard let match else {
            throw SAMLError(.invalidValue, "no candidate with '+', '/' and the requested padding in 900 attempts")
        }
        return Result(xml: match.xml, base64: match.base64, candidate: match.index)
    }
}
