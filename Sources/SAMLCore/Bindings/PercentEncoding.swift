/// Percent-encoding the way the SAML bindings and browsers do it.
///
/// Two encoders, because two specifications apply:
/// - ``formEncode(_:)``: `application/x-www-form-urlencoded` as the WHATWG URL Standard
///   §5.2 serializes it (what a browser does when it posts the IdP's auto-submitting form):
///   space → `+`, ASCII alphanumerics and `*-._` kept, everything else `%XX`, uppercase hex.
///   So `+` → `%2B`, `=` → `%3D`, `/` → `%2F`.
/// - ``queryComponentEncode(_:)``: RFC 3986 §2.3/§2.1, unreserved kept (`ALPHA DIGIT - . _ ~`),
///   everything else `%XX` uppercase — for the HTTP-Redirect binding's query string
///   (saml-bindings-2.0-os §3.4.4.1 "URL-encoded").
///
/// ```swift
/// PercentEncoding.formEncode("a+b=/c")   // "a%2Bb%3D%2Fc"
/// PercentEncoding.formDecode("a%2Bb+c")  // "a+b c"
/// ```
public enum PercentEncoding {
    static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// WHATWG URL §5.2 application/x-www-form-urlencoded serializer, for one name or value.
    public static func formEncode(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for b in value.utf8 {
            if isAlphanumeric(b) || b == UInt8(ascii: "*") || b == UInt8(ascii: "-")
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") {
                out.append(b)
            } else if b == UInt8(ascii: " ") {
                out.append(UInt8(ascii: "+"))
            } else {
                appendEscaped(b, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 §2.3: only unreserved characters stay as they are; uppercase hex (§2.1).
    public static func queryComponentEncode(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for b in value.utf8 {
            if isAlphanumeric(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "~") {
                out.append(b)
            } else {
                appendEscaped(b, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// WHATWG URL §5.1 application/x-www-form-urlencoded parsing of one name or value:
    /// `+` → space, `%XX` → byte, a `%` not followed by two hex digits kept as is; the bytes
    /// are read as UTF-8 (invalid sequences become U+FFFD, as browsers do).
    public static func formDecode(_ text: String) -> String {
        String(decoding: percentDecode(text, plusAsSpace: true), as: UTF8.self)
    }

    /// Percent-decoding to bytes (RFC 3986 §2.1). With `plusAsSpace`, `+` is a space (form
    /// semantics); without, `+` stays `+` (path/query semantics of RFC 3986).
    public static func percentDecode(_ text: String, plusAsSpace: Bool) -> [UInt8] {
        let input = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let b = input[i]
            if b == UInt8(ascii: "%"), i + 2 < input.count,
               let h = hexValue(input[i + 1]), let l = hexValue(input[i + 2]) {
                out.append(h << 4 | l)
                i += 3
                continue
            }
            out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            i += 1
        }
        return out
    }

    /// The offset of the first `%` not followed by two hex digits, if any.
    public static func firstMalformedEscape(in text: String) -> Int? {
        let input = Array(text.utf8)
        for i in input.indices where input[i] == UInt8(ascii: "%") {
            if i + 2 >= input.count || hexValue(input[i + 1]) == nil || hexValue(input[i + 2]) == nil {
                return i
            }
        }
        return nil
    }

    /// `text` with the two characters after each `%` lowercased: `%2F` → `%2f`, as some
    /// encoders write them (RFC 3986 §2.1 says the two are equivalent).
    public static func lowercasingEscapes(_ text: String) -> String {
        var out = ""
        var pending = 0
        for character in text {
            if character == "%" {
                pending = 2
                out.append(character)
            } else if pending > 0 {
                out += character.lowercased()
                pending -= 1
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The offset of the first `%xx` escape written with lowercase hex, if any.
    public static func firstLowercaseEscape(in text: String) -> Int? {
        let input = Array(text.utf8)
        var i = 0
        while i + 2 < input.count {
            if input[i] == UInt8(ascii: "%"), let _ = hexValue(input[i + 1]), let _ = hexValue(input[i + 2]) {
                if isLowerHexLetter(input[i + 1]) || isLowerHexLetter(input[i + 2]) { return i }
                i += 3
            } else {
                i += 1
            }
        }
        return nil
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    private static func isLowerHexLetter(_ b: UInt8) -> Bool {
        b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")
    }

    public static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
    }

    private static func appendEscaped(_ b: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(upperHex[Int(b >> 4)])
        out.append(upperHex[Int(b & 0x0F)])
    }
}
