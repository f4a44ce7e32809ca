/// Base64 (RFC 4648 §4) as the SAML bindings require it: the standard alphabet, padded, and
/// on one line.
///
/// saml-bindings-2.0-os §3.5.4 and §3.4.4.1 call for base64 without saying more; line breaks
/// (MIME's 76 columns) are what breaks strict consumers, so ``encode(_:)`` never writes them.
/// ``encode(_:wrappingAt:lineEnding:)`` writes them on purpose, to reproduce IdPs that do.
///
/// ```swift
/// SAMLBase64.encode(Array("<a/>".utf8))  // "PGEvPg=="
/// ```
public enum SAMLBase64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Strict encoding: standard alphabet, `=` padding, no line breaks.
    public static func encode(_ bytes: [UInt8]) -> String {
        let length = (bytes.count + 2) / 3 * 4
        guard length > 0 else { return "" }
        // Written straight into the String's storage through unchecked pointers: every login
        // encodes its Response (kilobytes), and the appends with bounds checks showed in issue
        // 25's profile.
        return alphabet.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                String(unsafeUninitializedCapacity: length) { out in
                    var i = 0
                    var o = 0
                    let whole = input.count - input.count % 3
                    while i < whole {
                        let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = table[Int(n >> 6 & 63)]
                        out[o + 3] = table[Int(n & 63)]
                        i += 3
                        o += 4
                    }
                    switch input.count - whole {
                    case 1:
                        let n = UInt32(input[i]) << 16
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = UInt8(ascii: "=")
                        out[o + 3] = UInt8(ascii: "=")
                    case 2:
                        let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = table[Int(n >> 6 & 63)]
                        out[o + 3] = UInt8(ascii: "=")
                    default:
                        break
                    }
                    return length
                }
            }
        }
    }

    /// MIME-style wrapped encoding (RFC 2045 §6.8 uses 76 columns, PEM 64): a deliberate
    /// deviation for reproducing IdPs that send it. No line ending after the last line.
    public static func encode(_ bytes: [UInt8], wrappingAt columns: Int, lineEnding: String = "\r\n") -> String {
        let flat = Array(encode(bytes).utf8)
        guard columns > 0, flat.count > columns else { return String(decoding: flat, as: UTF8.self) }
        var out: [UInt8] = []
        var start = 0
        while start < flat.count {
            if start > 0 { out.append(contentsOf: Array(lineEnding.utf8)) }
            let end = min(start + columns, flat.count)
            out.append(contentsOf: flat[start..<end])
            start = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict decoding: any deviation (line breaks, whitespace, missing padding, URL-safe
    /// alphabet…) is an error naming it and its offset.
    public static func decode(_ text: String) throws -> [UInt8] {
        try LenientBase64.decode(text, strict: true).bytes
    }
}
