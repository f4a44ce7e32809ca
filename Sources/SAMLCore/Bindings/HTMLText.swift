/// Escaping into and decoding out of HTML text and attribute values.
///
/// ```swift
/// HTMLText.escape("\"><script>")           // "&quot;&gt;&lt;script&gt;"
/// HTMLText.decodeEntities("https&#x3a;//a") // "https://a"
/// ```
public enum HTMLText {
    /// The ASCII bytes ``escape(_:)`` leaves alone.
    private static let plain = CharacterEscaping.PlainASCII(printableExcept: "&<>\"'")

    /// Escapes every character that could end an attribute value or start markup, whatever
    /// the quoting (HTML Standard §13.1.2.3 attribute values; OWASP XSS rule #2):
    /// `&` `<` `>` `"` `'` become `&amp; &lt; &gt; &quot; &#39;`.
    public static func escape(_ value: String) -> String {
        CharacterEscaping.escape(value, plain: plain) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&#39;"
            default: nil
            }
        }
    }

    /// Decodes character references as an HTML parser does in attribute values (HTML
    /// Standard §13.2.5.72): `&#58;`, `&#x3a;` (the `;` optional for numeric references), and
    /// the named references IdP pages use (`&amp; &lt; &gt; &quot; &apos; &nbsp;`). Anything
    /// else is left as written; invalid code points become U+FFFD.
    public static func decodeEntities(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "&" else {
                out.append(scalars[i])
                i += 1
                continue
            }
            if let (scalar, length) = reference(in: scalars, at: i) {
                out.append(scalar)
                i += length
            } else {
                out.append("&")
                i += 1
            }
        }
        return String(out)
    }

    private static let named: [(String, Unicode.Scalar)] = [
        ("amp;", "&"), ("lt;", "<"), ("gt;", ">"), ("quot;", "\""), ("apos;", "'"), ("nbsp;", "\u{A0}"),
    ]

    /// The scalar a reference at `i` (pointing at `&`) stands for, and its length.
    private static func reference(in s: [Unicode.Scalar], at i: Int) -> (Unicode.Scalar, Int)? {
        var j = i + 1
        guard j < s.count else { return nil }
        if s[j] == "#" {
            j += 1
            var radix: UInt32 = 10
            if j < s.count, s[j] == "x" || s[j] == "X" {
                radix = 16
                j += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while j < s.count, let d = digit(s[j], radix: radix) {
                if value <= 0x10FFFF { value = value * radix + d }
                digits += 1
                j += 1
            }
            guard digits > 0 else { return nil }
            if j < s.count, s[j] == ";" { j += 1 }
            // HTML §13.2.5.80: NUL, surrogates and values past U+10FFFF become U+FFFD.
            let scalar = value == 0 ? nil : Unicode.Scalar(value)
            return (scalar ?? "\u{FFFD}", j - i)
        }
        for (name, scalar) in named {
            let n = Array(name.unicodeScalars)
            if i + 1 + n.count <= s.count, Array(s[(i + 1)..<(i + 1 + n.count)]) == n {
                return (scalar, 1 + n.count)
            }
        }
        return nil
    }

    private static func digit(_ c: Unicode.Scalar, radix: UInt32) -> UInt32? {
        switch c.value {
        case 0x30...0x39: return c.value - 0x30
        case 0x41...0x46 where radix == 16: return c.value - 0x41 + 10
        case 0x61...0x66 where radix == 16: return c.value - 0x61 + 10
        default: return nil
        }
    }
}
