/// HTTP field names compared as RFC 9110 §5.1 says: case-insensitively, and they are tokens
/// (ASCII), so byte by byte with ASCII case folding — no Foundation, no locale. Every request
/// asks for a few headers, and a mock's answer is read again by the traffic log and the
/// checks (issue 25: `caseInsensitiveCompare` through CoreFoundation showed in the profile).
enum FieldName {
    static func equal(_ a: String, _ b: String) -> Bool {
        var x = a.utf8.makeIterator()
        var y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil): return true
            case (let p?, let q?):
                if p == q { continue }
                if p | 0x20 != q | 0x20 { return false }
                let lower = p | 0x20
                if lower < UInt8(ascii: "a") || lower > UInt8(ascii: "z") { return false }
            default: return false
            }
        }
    }
}
