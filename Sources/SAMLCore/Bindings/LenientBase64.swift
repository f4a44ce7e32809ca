/// Base64 decoding that accepts what real IdPs and SPs send, and says what it accepted.
///
/// Accepted (each reported once, at its first offset, as an ``EncodingDeviation``):
/// line breaks at any column with CRLF or LF (`base64.line-wrapped`), other whitespace
/// (`base64.whitespace`), missing `=` padding (`base64.padding-missing`), wrong padding
/// (`base64.padding-wrong`), the URL-safe alphabet of RFC 4648 §5 (`base64.url-safe-alphabet`),
/// spaces that were `+` before a form decoder read them (`base64.space-for-plus`), `%2B %2F %3D`
/// left URL-encoded (`base64.percent-encoded`), and other characters, skipped
/// (`base64.invalid-character`). In strict mode each of these is an error instead.
///
/// ```swift
/// let decoded = try LenientBase64.decode("PGEv\nPg")
/// decoded.bytes       // "<a/>"
/// decoded.deviations  // base64.line-wrapped, base64.padding-missing
/// ```
public enum LenientBase64 {
    /// Decoded bytes and the deviations from strict base64 that were accepted.
    public struct Decoded: Sendable, Equatable {
        public let bytes: [UInt8]
        public let deviations: [EncodingDeviation]

        /// The deviation codes, in the order found.
        public var codes: [String] { deviations.map(\.code) }
    }

    /// Decodes `text`; `strict: true` turns the first deviation into a thrown
    /// ``BindingError`` (reason ``BindingError/Reason/deviationRefused``).
    public static func decode(_ text: String, strict: Bool = false) throws -> Decoded {
        try decode(Array(text.utf8), strict: strict)
    }

    /// Decodes UTF-8 / ASCII bytes of base64 text.
    public static func decode(_ input: [UInt8], strict: Bool = false) throws -> Decoded {
        var deviations: [EncodingDeviation] = []
        var seen = Set<String>()
        func note(_ code: String, _ message: String, _ offset: Int) throws {
            if strict { throw BindingError(.deviationRefused, "\(code): \(message)", offset: offset) }
            if seen.insert(code).inserted {
                deviations.append(EncodingDeviation(code: code, message: message, offset: offset))
            }
        }
        let spaceIsPlus = spacesAreLostPluses(input)
        var sextets: [UInt8] = []
        sextets.reserveCapacity(input.count)
        var padding = 0
        var paddingOffset: Int?
        var i = 0
        while i < input.count {
            let c = input[i]
            if let v = value(of: c) {
                if let paddingOffset {
                    throw BindingError(.invalidBase64,
                                       "data after the `=` padding at offset \(paddingOffset): two base64 values joined, or not base64",
                                       offset: i)
                }
                sextets.append(v)
            } else {
                switch c {
                case UInt8(ascii: "-"), UInt8(ascii: "_"):
                    // RFC 4648 §5: the URL-safe alphabet; SAML wants §4's `+` and `/`.
                    try note(EncodingDeviation.Code.base64URLSafeAlphabet,
                             "URL-safe base64 (`-`/`_` for `+`/`/`, RFC 4648 §5) where the standard alphabet is required", i)
                    if paddingOffset != nil { throw BindingError(.invalidBase64, "data after the `=` padding", offset: i) }
                    sextets.append(c == UInt8(ascii: "-") ? 62 : 63)
                case UInt8(ascii: "="):
                    if paddingOffset == nil { paddingOffset = i }
                    padding += 1
                case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                    try note(EncodingDeviation.Code.base64LineWrapped, lineWrapMessage(input, at: i), i)
                case UInt8(ascii: " ") where spaceIsPlus:
                    try note(EncodingDeviation.Code.base64SpaceForPlus,
                             "a space where base64 has `+`: the value was form-decoded but had not been percent-encoded", i)
                    if paddingOffset != nil { throw BindingError(.invalidBase64, "data after the `=` padding", offset: i) }
                    sextets.append(62)
                case UInt8(ascii: " "), UInt8(ascii: "\t"), 0x0B, 0x0C:
                    try note(EncodingDeviation.Code.base64Whitespace,
                             "whitespace inside the base64 value", i)
                case UInt8(ascii: "%"):
                    if let decoded = percentTriplet(input, at: i) {
                        try note(EncodingDeviation.Code.base64PercentEncoded,
                                 "`\(String(decoding: input[i..<i + 3], as: UTF8.self))` left URL-encoded inside the base64 value (decode it once more)", i)
                        if decoded == UInt8(ascii: "=") {
                            if paddingOffset == nil { paddingOffset = i }
                            padding += 1
                        } else {
                            if paddingOffset != nil { throw BindingError(.invalidBase64, "data after the `=` padding", offset: i) }
                            sextets.append(value(of: decoded)!)
                        }
                        i += 3
                        continue
                    }
                    try invalid(c, at: i, note: note)
                default:
                    try invalid(c, at: i, note: note)
                }
            }
            i += 1
        }
        // RFC 4648 §4: 4 characters make 3 bytes; 2 or 3 left over make 1 or 2 bytes and need
        // `==` or `=`; 1 left over cannot make a byte at all.
        let rest = sextets.count % 4
        if rest == 1 {
            throw BindingError(.invalidBase64,
                               "\(sextets.count) base64 characters leave 1 over, which cannot encode a byte: the value is truncated or damaged",
                               offset: input.count)
        }
        let expectedPadding = rest == 0 ? 0 : 4 - rest
        if padding != expectedPadding {
            if padding == 0 {
                try note(EncodingDeviation.Code.base64PaddingMissing,
                         "the `=` padding is missing (\(expectedPadding) expected at the end)", input.count)
            } else {
                try note(EncodingDeviation.Code.base64PaddingWrong,
                         "\(padding) `=` where \(expectedPadding) belong", paddingOffset ?? input.count)
            }
        }
        return Decoded(bytes: bytes(from: sextets), deviations: deviations)
    }

    private static func invalid(_ c: UInt8, at offset: Int,
                                note: (String, String, Int) throws -> Void) throws {
        let shown = c >= 0x20 && c < 0x7F ? "`\(Character(Unicode.Scalar(c)))`" : "byte 0x\(String(c, radix: 16, uppercase: true))"
        try note(EncodingDeviation.Code.base64InvalidCharacter,
                 "\(shown) is not a base64 character (skipped)", offset)
    }

    static func value(of c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    /// `%2B`, `%2F`, `%3D` (either case) decoded; nil for anything else.
    private static func percentTriplet(_ input: [UInt8], at i: Int) -> UInt8? {
        guard i + 2 < input.count,
              let h = PercentEncoding.hexValue(input[i + 1]),
              let l = PercentEncoding.hexValue(input[i + 2]) else { return nil }
        let b = h << 4 | l
        return [UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "=")].contains(b) ? b : nil
    }

    /// A form decoder turns an unencoded `+` into a space. Spaces are read as lost `+` when
    /// the text has no `+` of its own and every space sits between two base64 characters
    /// (indentation and stray spaces sit next to line breaks or at the ends).
    static func spacesAreLostPluses(_ input: [UInt8]) -> Bool {
        var interior = 0
        for (i, c) in input.enumerated() {
            if c == UInt8(ascii: "+") { return false }
            guard c == UInt8(ascii: " ") else { continue }
            guard i > 0, i + 1 < input.count,
                  value(of: input[i - 1]) != nil || input[i - 1] == UInt8(ascii: " "),
                  value(of: input[i + 1]) != nil || input[i + 1] == UInt8(ascii: " ") || input[i + 1] == UInt8(ascii: "=")
            else { return false }
            interior += 1
        }
        return interior > 0
    }

    private static func lineWrapMessage(_ input: [UInt8], at i: Int) -> String {
        let crlf = i + 1 < input.count && input[i] == UInt8(ascii: "\r") && input[i + 1] == UInt8(ascii: "\n")
        let ending = crlf ? "CRLF" : (input[i] == UInt8(ascii: "\n") ? "LF" : "CR")
        var start = i
        while start > 0, input[start - 1] != UInt8(ascii: "\n"), input[start - 1] != UInt8(ascii: "\r") { start -= 1 }
        let column = i - start
        return "line breaks (\(ending)) in the base64 value, first after \(column) columns (MIME-style wrapping; the binding wants one line)"
    }

    private static func bytes(from sextets: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(sextets.count * 3 / 4)
        var i = 0
        while i + 4 <= sextets.count {
            let n = UInt32(sextets[i]) << 18 | UInt32(sextets[i + 1]) << 12
                | UInt32(sextets[i + 2]) << 6 | UInt32(sextets[i + 3])
            out.append(UInt8(n >> 16 & 0xFF))
            out.append(UInt8(n >> 8 & 0xFF))
            out.append(UInt8(n & 0xFF))
            i += 4
        }
        let rest = sextets.count - i
        if rest >= 2 {
            let n = UInt32(sextets[i]) << 18 | UInt32(sextets[i + 1]) << 12
                | (rest == 3 ? UInt32(sextets[i + 2]) << 6 : 0)
            out.append(UInt8(n >> 16 & 0xFF))
            if rest == 3 { out.append(UInt8(n >> 8 & 0xFF)) }
        }
        return out
    }
}
