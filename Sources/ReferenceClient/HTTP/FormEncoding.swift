import Foundation

/// application/x-www-form-urlencoded, written by hand.
///
/// URLSession trap: `URLComponents.queryItems` percent-encodes per RFC 3986 and leaves
/// `+` (and `=`, `&` inside values are fine, but `+` is not) raw in the query, which every
/// form decoder reads as a space — a password `a+b` arrives as `a b`. So query strings are
/// built here and appended to the URL's string; `URLComponents` is never used for queries.
enum FormEncoding {
    /// WHATWG URL §5.2 (application/x-www-form-urlencoded serializer): ASCII alphanumerics
    /// and `*-._` stay, space becomes `+` (forms) or `%20` (queries), every other byte of
    /// the UTF-8 encoding becomes `%XX`.
    static func encode(_ value: String, spaceAsPlus: Bool = true) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"),
                 UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " ") where spaceAsPlus:
                out += "+"
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// A form body from ordered pairs. With `percentEncode` off (a bug variant) the values
    /// are joined raw.
    static func body(_ pairs: [(String, String)], percentEncode: Bool = true) -> Data {
        let text = pairs.map { name, value in
            percentEncode ? encode(name) + "=" + encode(value) : name + "=" + value
        }.joined(separator: "&")
        return Data(text.utf8)
    }

    /// `url` with `pairs` appended to its query (kept as it is, e.g. `provider=SAML+2.0+Web+SSO`),
    /// before any fragment. Values are encoded with `%20` for spaces.
    static func appendingQuery(_ url: URL, _ pairs: [(String, String)]) -> URL? {
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let query = pairs.map { encode($0.0, spaceAsPlus: false) + "=" + encode($0.1, spaceAsPlus: false) }
            .joined(separator: "&")
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        return URL(string: text + separator + query + fragment)
    }

    /// Decodes a form-encoded string (`+` is a space).
    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The query's pairs, decoded, in order.
    static func queryPairs(of url: URL) -> [(String, String)] {
        guard let query = url.query(percentEncoded: true) else { return [] }
        return query.split(separator: "&").map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(pieces[0]), pieces.count > 1 ? decode(pieces[1]) : "")
        }
    }

    /// The first value of `name` in the query of `url`.
    static func queryValue(_ name: String, in url: URL) -> String? {
        queryPairs(of: url).first { $0.0 == name }?.1
    }
}
