import SAMLCore

/// Replaces the `value` attribute of the `<input>` fields with a given `name` in HTML text,
/// leaving every other byte of the page as it was (the page is replayed, not re-rendered).
///
/// A forward scan: `<input` tags (any case), attributes read as HTML reads them (quoted with
/// `"` or `'`, or unquoted; names case-insensitive; values entity-decoded to compare names).
enum HTMLFieldValue {
    static func replace(field: String, in html: String, with replacement: String) -> String {
        let bytes = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let needle = Array("<input".utf8)
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<"), i + needle.count <= bytes.count,
                  zip(bytes[i..<(i + needle.count)], needle).allSatisfy({ lower($0) == $1 }) else {
                out.append(bytes[i])
                i += 1
                continue
            }
            let tag = readTag(bytes, from: i)
            if tag.name == field, let range = tag.valueRange {
                out += bytes[i..<range.lowerBound]
                out += Array(replacement.utf8)
                out += bytes[range.upperBound..<tag.end]
            } else if tag.name == field {
                // No value attribute: add one before the tag closes.
                let close = tag.end > i && bytes[tag.end - 1] == UInt8(ascii: ">") ? tag.end - 1 : tag.end
                let selfClose = close > i && bytes[close - 1] == UInt8(ascii: "/") ? close - 1 : close
                out += bytes[i..<selfClose]
                out += Array(" value=\"\(replacement)\"".utf8)
                out += bytes[selfClose..<tag.end]
            } else {
                out += bytes[i..<tag.end]
            }
            i = tag.end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The `name` of the tag at `start`, the byte range of its `value` (inside the quotes), and
    /// where the tag ends (after `>`).
    private static func readTag(_ b: [UInt8], from start: Int) -> (name: String?, valueRange: Range<Int>?, end: Int) {
        var i = start + 6
        var name: String?
        var valueRange: Range<Int>?
        while i < b.count {
            while i < b.count, isSpace(b[i]) || b[i] == UInt8(ascii: "/") { i += 1 }
            guard i < b.count else { break }
            if b[i] == UInt8(ascii: ">") { return (name, valueRange, i + 1) }
            let attrStart = i
            while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "="),
                  b[i] != UInt8(ascii: "/") { i += 1 }
            let attr = String(decoding: b[attrStart..<i].map(lower), as: UTF8.self)
            while i < b.count, isSpace(b[i]) { i += 1 }
            guard i < b.count, b[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < b.count, isSpace(b[i]) { i += 1 }
            var range = i..<i
            if i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                let quote = b[i]
                var k = i + 1
                while k < b.count, b[k] != quote { k += 1 }
                range = (i + 1)..<k
                i = min(k + 1, b.count)
            } else {
                var k = i
                while k < b.count, !isSpace(b[k]), b[k] != UInt8(ascii: ">") { k += 1 }
                range = i..<k
                i = k
            }
            if attr == "name" {
                name = HTMLText.decodeEntities(String(decoding: b[range], as: UTF8.self))
            } else if attr == "value" {
                valueRange = range
            }
        }
        return (name, valueRange, b.count)
    }

    private static func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c + 32 : c }
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D }
}
