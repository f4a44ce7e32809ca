import Foundation

/// One `name=value` pair of a query string or form body, decoded and as sent.
///
/// The raw text matters: saml-bindings-2.0-os §3.4.4.1 has the relying party verify the
/// signature over the parameter values *as they arrived*, still URL-encoded, because
/// re-encoding may not give the same octets (`%2b` vs `%2B`, `+` vs `%20`).
///
/// ```swift
/// let pairs = QueryParameter.parse("SAMLRequest=fZ%2B&RelayState=a+b")
/// pairs[1].value     // "a b"
/// pairs[1].rawValue  // "a+b"
/// ```
public struct QueryParameter: Sendable, Equatable {
    /// The name, form-decoded.
    public let name: String
    /// The value, form-decoded (`+` → space).
    public let value: String
    /// The name exactly as sent.
    public let rawName: String
    /// The value exactly as sent (empty when the pair had no `=`).
    public let rawValue: String
    /// The whole pair exactly as sent (`rawName=rawValue`, or `rawName` without `=`).
    public let raw: String
    /// The offset of the pair in the parsed text (UTF-8 bytes).
    public let offset: Int

    public init(name: String, value: String, rawName: String, rawValue: String, raw: String, offset: Int) {
        self.name = name
        self.value = value
        self.rawName = rawName
        self.rawValue = rawValue
        self.raw = raw
        self.offset = offset
    }

    /// Parses a query string or `application/x-www-form-urlencoded` body, keeping order and
    /// duplicates. WHATWG URL §5.1: split on `&`, skip empty pieces, split each at the first
    /// `=`, form-decode name and value. A leading `?` is ignored.
    public static func parse(_ text: String) -> [QueryParameter] {
        let bytes = Array(text.utf8)
        var result: [QueryParameter] = []
        var start = bytes.first == UInt8(ascii: "?") ? 1 : 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let piece = bytes[start..<end]
                let eq = piece.firstIndex(of: UInt8(ascii: "="))
                let rawName = String(decoding: piece[start..<(eq ?? end)], as: UTF8.self)
                let rawValue = eq.map { String(decoding: piece[($0 + 1)..<end], as: UTF8.self) } ?? ""
                result.append(QueryParameter(
                    name: PercentEncoding.formDecode(rawName), value: PercentEncoding.formDecode(rawValue),
                    rawName: rawName, rawValue: rawValue,
                    raw: String(decoding: piece, as: UTF8.self), offset: start))
            }
            start = end + 1
        }
        return result
    }

    /// The form-decoded value of the first pair whose decoded name is `name`, found by scanning
    /// `bytes` (a query string without its `?`, or an `application/x-www-form-urlencoded`
    /// body): only that value is decoded, so asking for a field of a multi-megabyte body (a
    /// hostile SAMLRequest) costs one pass, not a copy and decode of every field per question.
    /// Same answer as `parse(text).first(named: name)?.value`. A pair without `=` has the
    /// value `""`.
    public static func firstValue(named name: String, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        let wanted = Array(name.utf8)
        // memchr: the scan stays one fast pass over megabytes in a debug build too.
        func find(_ byte: UInt8, from: Int, to: Int) -> Int? {
            guard from < to, let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
        var start = 0
        while start < bytes.count {
            let end = find(UInt8(ascii: "&"), from: start, to: bytes.count) ?? bytes.count
            let eq = find(UInt8(ascii: "="), from: start, to: end)
            let nameEnd = eq ?? end
            let rawName = UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])
            // A name percent-encoded is at most three bytes per byte of the name it decodes to.
            let matches = rawName.elementsEqual(wanted)
                || (rawName.count <= 3 * wanted.count
                    && (rawName.contains(UInt8(ascii: "%")) || rawName.contains(UInt8(ascii: "+")))
                    && PercentEncoding.formDecode(String(decoding: rawName, as: UTF8.self)) == name)
            if matches, end > start {
                guard let eq else { return "" }
                return PercentEncoding.formDecode(String(decoding: UnsafeBufferPointer(rebasing: bytes[(eq + 1)..<end]), as: UTF8.self))
            }
            start = end + 1
        }
        return nil
    }

    /// Serializes pairs as a form body / query, each name and value form-encoded (WHATWG URL §5.2).
    public static func formEncoded(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { PercentEncoding.formEncode($0.name) + "=" + PercentEncoding.formEncode($0.value) }
            .joined(separator: "&")
    }
}

extension Array where Element == QueryParameter {
    /// Every parameter with this (decoded) name, in order.
    public func all(named name: String) -> [QueryParameter] { filter { $0.name == name } }

    /// The first parameter with this (decoded) name.
    public func first(named name: String) -> QueryParameter? { first { $0.name == name } }
}
