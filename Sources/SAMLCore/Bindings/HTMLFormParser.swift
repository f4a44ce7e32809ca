/// Finds the forms of an HTML page the way a browser would read them, for the pages real
/// IdPs produce: tag and attribute names in any case, values quoted with `"` or `'` or not at
/// all, character references (`&#x3a;`, `&#58;`, `&amp;`, `&quot;`) in values, comments,
/// scripts and styles skipped.
///
/// It is a single forward scan over the bytes: no regular expressions, no backtracking, no
/// recursion; input, form and field counts are bounded; garbage yields fewer forms, never a
/// crash.
///
/// ```swift
/// let forms = HTMLFormParser.forms(in: page)
/// forms.first?.action             // "https://sp.example.org/Shibboleth.sso/SAML2/POST"
/// forms.first?.value("SAMLResponse")
/// ```
public enum HTMLFormParser {
    /// Bounds on what is read.
    public struct Limits: Sendable, Equatable {
        public var maxBytes: Int
        public var maxForms: Int
        public var maxFieldsPerForm: Int

        public init(maxBytes: Int = 8 << 20, maxForms: Int = 64, maxFieldsPerForm: Int = 1024) {
            self.maxBytes = maxBytes
            self.maxForms = maxForms
            self.maxFieldsPerForm = maxFieldsPerForm
        }
    }

    /// Every form of the page, in document order. Fields outside a form are ignored; a form
    /// left open at the end of the page still counts.
    public static func forms(in html: String, limits: Limits = Limits()) -> [HTMLForm] {
        let bytes = Array(html.utf8.prefix(limits.maxBytes))
        var forms: [HTMLForm] = []
        var current: (action: String?, method: String, id: String?, fields: [HTMLForm.Field])?
        func finish() {
            if let c = current, forms.count < limits.maxForms {
                forms.append(HTMLForm(action: c.action, method: c.method, id: c.id, fields: c.fields))
            }
            current = nil
        }
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            // HTML §13.2.5.43: comments run to `-->`.
            if starts(bytes, at: i, with: "<!--") {
                i = find(bytes, "-->", from: i + 4).map { $0 + 3 } ?? bytes.count
                continue
            }
            guard let tag = readTag(bytes, at: i) else { i += 1; continue }
            i = tag.end
            switch (tag.name, tag.closing) {
            case ("form", false):
                // HTML §13.2.6.4.7: a form start tag while a form is open is ignored.
                if current == nil {
                    current = (tag.attribute("action"), (tag.attribute("method") ?? "get").lowercased(),
                               tag.attribute("id"), [])
                }
            case ("form", true):
                finish()
            case ("input", false), ("button", false):
                guard current != nil, let name = tag.attribute("name"),
                      current!.fields.count < limits.maxFieldsPerForm else { break }
                let type = (tag.attribute("type") ?? (tag.name == "button" ? "submit" : "text")).lowercased()
                current!.fields.append(HTMLForm.Field(name: name, value: tag.attribute("value") ?? "", type: type))
            case ("textarea", false):
                let close = find(bytes, "</textarea", from: i, caseInsensitive: true) ?? bytes.count
                if current != nil, let name = tag.attribute("name"),
                   current!.fields.count < limits.maxFieldsPerForm {
                    let text = HTMLText.decodeEntities(String(decoding: bytes[i..<close], as: UTF8.self))
                    current!.fields.append(HTMLForm.Field(name: name, value: text, type: "textarea"))
                }
                i = close
            case ("script", false), ("style", false):
                // HTML §13.2.5.4 raw text: nothing inside is markup.
                i = find(bytes, "</" + tag.name, from: i, caseInsensitive: true) ?? bytes.count
            default:
                break
            }
        }
        finish()
        return forms
    }

    /// A start or end tag read at `start` (which holds `<`).
    struct Tag {
        var name: String
        var closing: Bool
        var attributes: [(String, String)]
        var end: Int

        /// The first attribute with this (lowercase) name; HTML keeps the first of duplicates.
        func attribute(_ name: String) -> String? { attributes.first { $0.0 == name }?.1 }
    }

    static func readTag(_ b: [UInt8], at start: Int) -> Tag? {
        var i = start + 1
        var closing = false
        if i < b.count, b[i] == UInt8(ascii: "/") { closing = true; i += 1 }
        guard i < b.count, isLetter(b[i]) else { return nil }
        let nameStart = i
        while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "/") { i += 1 }
        let name = String(decoding: b[nameStart..<i], as: UTF8.self).lowercased()
        var attributes: [(String, String)] = []
        while i < b.count {
            while i < b.count, isSpace(b[i]) || b[i] == UInt8(ascii: "/") { i += 1 }
            guard i < b.count else { break }
            if b[i] == UInt8(ascii: ">") { i += 1; break }
            // HTML §13.2.5.33 attribute name: up to whitespace, `/`, `>` or `=`.
            let attrStart = i
            i += 1
            while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: "/"), b[i] != UInt8(ascii: ">"),
                  b[i] != UInt8(ascii: "=") { i += 1 }
            let attrName = String(decoding: b[attrStart..<i], as: UTF8.self).lowercased()
            var j = i
            while j < b.count, isSpace(b[j]) { j += 1 }
            var value = ""
            if j < b.count, b[j] == UInt8(ascii: "=") {
                j += 1
                while j < b.count, isSpace(b[j]) { j += 1 }
                if j < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
                    // §13.2.5.36/37: quoted value, up to the same quote (or the end).
                    let quote = b[j]
                    let valueStart = j + 1
                    var k = valueStart
                    while k < b.count, b[k] != quote { k += 1 }
                    value = String(decoding: b[valueStart..<k], as: UTF8.self)
                    i = min(k + 1, b.count)
                } else {
                    // §13.2.5.38: unquoted value, up to whitespace or `>`.
                    let valueStart = j
                    var k = j
                    while k < b.count, !isSpace(b[k]), b[k] != UInt8(ascii: ">") { k += 1 }
                    value = String(decoding: b[valueStart..<k], as: UTF8.self)
                    i = k
                }
            }
            attributes.append((attrName, HTMLText.decodeEntities(value)))
        }
        return Tag(name: name, closing: closing, attributes: attributes, end: i)
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D
    }

    private static func starts(_ b: [UInt8], at i: Int, with s: String) -> Bool {
        let p = Array(s.utf8)
        return i + p.count <= b.count && Array(b[i..<(i + p.count)]) == p
    }

    /// First index of `needle` at or after `from` (ASCII case folded when asked); linear in
    /// practice because needles are a few bytes.
    static func find(_ b: [UInt8], _ needle: String, from: Int, caseInsensitive: Bool = false) -> Int? {
        let p = Array(needle.utf8).map { caseInsensitive ? lower($0) : $0 }
        guard !p.isEmpty, b.count >= p.count, from <= b.count - p.count else { return nil }
        var i = from
        while i <= b.count - p.count {
            var k = 0
            while k < p.count, (caseInsensitive ? lower(b[i + k]) : b[i + k]) == p[k] { k += 1 }
            if k == p.count { return i }
            i += 1
        }
        return nil
    }

    private static func lower(_ c: UInt8) -> UInt8 {
        c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c + 32 : c
    }
}
