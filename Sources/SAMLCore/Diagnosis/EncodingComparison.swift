/// The part of ``EncodingDiagnoser`` that compares an arrived value with the original.
extension EncodingDiagnoser {
    /// Adds what changed between `expected` (base64 value sent, or original XML) and what
    /// arrived: the first differing offset, the kind of change when it is a known one, and
    /// whether lenient decoding gets the original message back.
    static func compare(arrived: [UInt8], recovered: [UInt8]?, expected: String?, binding: Binding,
                        inflateLimit: Int, add: (String, String, Int?) -> Void) {
        guard let expected else { return }
        let sent = Array(expected.utf8)
        let sentIsXML = markupKind(sent) != nil
        if !sentIsXML, sent != arrived {
            describeFirstDifference(sent: sent, arrived: arrived, add: add)
        }
        let original: [UInt8]? = sentIsXML ? sent : decodeSent(expected, inflateLimit: inflateLimit)
        guard let original else { return }
        if let recovered, recovered == original {
            if sent != arrived {
                add(EncodingFinding.Code.recoverable,
                    "the damage is reversible: decoded leniently, the message is byte-identical to the original (\(original.count) bytes)", nil)
            }
        } else if let recovered {
            let d = firstDifference(original, recovered)
            add(EncodingFinding.Code.differs,
                "the decoded message differs from the original at byte \(d): expected \(show(original, d)), arrived \(show(recovered, d))", nil)
        }
    }

    private static func describeFirstDifference(sent: [UInt8], arrived: [UInt8],
                                                add: (String, String, Int?) -> Void) {
        let d = firstDifference(sent, arrived)
        let plus = UInt8(ascii: "+"), slash = UInt8(ascii: "/"), equals = UInt8(ascii: "=")
        let sentByte = d < sent.count ? sent[d] : nil
        let arrivedByte = d < arrived.count ? arrived[d] : nil
        var what: String
        switch (sentByte, arrivedByte) {
        case (plus?, UInt8(ascii: " ")?):
            what = "`+` became a space"
            add(EncodingFinding.Code.plusAsSpace,
                "`+` arrived as a space at offset \(d): the form body was not percent-encoded (a `+` in a form body means a space; send it as `%2B`)", d)
        case (let s?, UInt8(ascii: "%")?) where s == plus || s == slash || s == equals:
            let escape = String(decoding: arrived[d..<min(d + 3, arrived.count)], as: UTF8.self)
            what = "`\(Character(Unicode.Scalar(s)))` arrived as `\(escape)`"
            if s == equals {
                add(EncodingFinding.Code.paddingURLEncoded,
                    "`=` arrived as `%3D` undecoded at offset \(d): the padding was percent-encoded and never decoded", d)
            } else if escape.uppercased().hasPrefix("%25") {
                add(EncodingFinding.Code.doubleURLEncoded,
                    "value URL-encoded twice (`\(escape)` at offset \(d)): the sender encoded an already encoded value", d)
            } else {
                add(EncodingFinding.Code.stillURLEncoded,
                    "value still URL-encoded (`\(escape)` at offset \(d)): it was percent-encoded once more than it was decoded", d)
            }
        case (equals?, nil) where sent[d...].allSatisfy { $0 == equals }:
            what = "the trailing `\(String(repeating: "=", count: sent.count - d))` is missing"
            add(EncodingFinding.Code.paddingStripped,
                "base64 padding `=` stripped: the original ends with \(sent.count - d) `=` that did not arrive", d)
        case (_?, nil):
            what = "the value ends there: \(arrived.count) of \(sent.count) bytes arrived"
            add(EncodingFinding.Code.truncated,
                "truncated: only the first \(arrived.count) of \(sent.count) characters arrived", d)
        case (nil, _?):
            what = "\(arrived.count - sent.count) extra bytes were appended"
        case let (_?, a?) where a == 0x0D || a == 0x0A:
            what = "a line break was inserted"
        default:
            what = "expected \(show(sent, d)), arrived \(show(arrived, d))"
        }
        add(EncodingFinding.Code.differs,
            "differs from the value sent at offset \(d) (\(sent.count) bytes sent, \(arrived.count) arrived): \(what)", d)
    }

    /// The original message from the value that was sent, decoded the way its binding says.
    private static func decodeSent(_ expected: String, inflateLimit: Int) -> [UInt8]? {
        guard let bytes = try? LenientBase64.decode(expected).bytes else { return nil }
        if PostBinding.looksLikeMarkup(bytes) { return bytes }
        return try? RedirectBinding.inflateAnyFraming(bytes, limit: inflateLimit).0
    }

    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var i = 0
        while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
        return i
    }

    /// A few characters around `offset`, whitespace made visible.
    static func show(_ bytes: [UInt8], _ offset: Int) -> String {
        guard offset < bytes.count else { return "(end)" }
        let start = max(0, offset - 4)
        let end = min(bytes.count, offset + 5)
        var out = start > 0 ? "`…" : "`"
        for b in bytes[start..<end] {
            switch b {
            case 0x0D: out += "\\r"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x20...0x7E: out.append(Character(Unicode.Scalar(b)))
            default: out += "\\x" + String(b, radix: 16, uppercase: true)
            }
        }
        return out + (end < bytes.count ? "…`" : "`")
    }
}
