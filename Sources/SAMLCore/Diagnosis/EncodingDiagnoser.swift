/// Explains how a SAMLRequest/SAMLResponse value was damaged on its way, from the value
/// alone or, better, compared with the value that was sent.
///
/// Give it the value as the receiver read it (form body or query already decoded once). Each
/// finding names the damage and its usual cause:
///
/// ```swift
/// let diagnosis = EncodingDiagnoser.diagnose(arrived, binding: .post, expected: sent)
/// diagnosis.report
/// // encoding.plus-as-space: `+` arrived as a space at offset 118: the form body was not
/// // percent-encoded (a `+` in a form body means a space; send it as `%2B`)
/// ```
public enum EncodingDiagnoser {
    /// The binding the value travelled on, which decides what "correct" is.
    public enum Binding: Sendable, Equatable {
        /// HTTP-POST (saml-bindings-2.0-os §3.5.4): plain base64 of the XML.
        case post
        /// HTTP-Redirect (§3.4.4.1): raw DEFLATE, then base64.
        case redirect
        /// Not known: either is accepted.
        case unknown
    }

    /// Diagnoses `value`. `expected`, when given, is the value that was sent (base64 text) or
    /// the original XML (text starting with `<`).
    public static func diagnose(_ value: String, binding: Binding = .unknown, expected: String? = nil,
                                inflateLimit: Int = RawDeflate.defaultLimit) -> EncodingDiagnosis {
        var findings: [EncodingFinding] = []
        func add(_ code: String, _ message: String, _ offset: Int? = nil) {
            if !findings.contains(where: { $0.code == code }) {
                findings.append(EncodingFinding(code: code, message: message, offset: offset))
            }
        }
        let bytes = Array(value.utf8)
        if let markup = markupKind(bytes) {
            if markup == .html {
                add(EncodingFinding.Code.notBase64HTML,
                    "not base64 at all: the value is an HTML page (an error or login page was captured instead of the form field)", 0)
                return EncodingDiagnosis(findings: findings, recoveredXML: nil)
            }
            add(EncodingFinding.Code.notBase64XML,
                "not base64 at all: the value is raw XML; the binding wants it base64-encoded", 0)
            compare(arrived: bytes, recovered: bytes, expected: expected, binding: binding, inflateLimit: inflateLimit, add: add)
            return EncodingDiagnosis(findings: findings, recoveredXML: bytes)
        }

        // 1. Percent-encoding left in (or added twice). Base64 never contains `%`.
        let text = undoPercentEncoding(bytes, add: add)

        // 2. Characters that are not base64.
        scanCharacters(text, originalHadPercent: text.count != bytes.count, add: add)

        // 3. Length and padding (RFC 4648 §4: 4 characters per 3 bytes).
        let lenient = try? LenientBase64.decode(text)
        let spaceIsPlus = LenientBase64.spacesAreLostPluses(text)
        let dataCount = text.reduce(0) { n, c in
            n + ((LenientBase64.value(of: c) != nil || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
                  || (spaceIsPlus && c == UInt8(ascii: " "))) ? 1 : 0)
        }
        let padding = text.filter { $0 == UInt8(ascii: "=") }.count
        if dataCount % 4 == 1 {
            add(EncodingFinding.Code.truncated,
                "truncated: \(dataCount) base64 characters leave one over, which cannot encode a byte (the value was cut short)", bytes.count)
        } else if dataCount % 4 != 0, padding == 0 {
            add(EncodingFinding.Code.paddingStripped,
                "base64 padding `=` stripped: \(4 - dataCount % 4) `=` missing at the end (a query-string or cookie handler dropped it)", bytes.count)
        }
        guard let lenient else {
            if findings.isEmpty {
                add(EncodingFinding.Code.invalidCharacter, "not base64: the value cannot be decoded", 0)
            }
            return EncodingDiagnosis(findings: findings, recoveredXML: nil)
        }

        // 4. What the bytes are: XML, DEFLATE (raw or zlib), or neither.
        let recovered = examineDecoded(lenient.bytes, binding: binding, inflateLimit: inflateLimit, add: add)
        compare(arrived: bytes, recovered: recovered, expected: expected, binding: binding,
                inflateLimit: inflateLimit, add: add)
        return EncodingDiagnosis(findings: findings, recoveredXML: recovered)
    }

    enum Markup { case xml, html }

    static func markupKind(_ bytes: [UInt8]) -> Markup? {
        guard PostBinding.looksLikeMarkup(bytes) else { return nil }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        if head.contains("<!doctype html") || head.contains("<html") || head.contains("<body") { return .html }
        return .xml
    }

    /// Undoes percent-encoding still in the value, reporting how much of it there was.
    private static func undoPercentEncoding(_ bytes: [UInt8], add: (String, String, Int?) -> Void) -> [UInt8] {
        guard let first = bytes.firstIndex(of: UInt8(ascii: "%")) else { return bytes }
        let text = String(decoding: bytes, as: UTF8.self)
        var once = PercentEncoding.percentDecode(text, plusAsSpace: false)
        let upper = String(decoding: bytes.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 32 : $0 }, as: UTF8.self)
        if let r = upper.firstRange(of: "%25") {
            let offset = upper.utf8.distance(from: upper.utf8.startIndex, to: r.lowerBound)
            add(EncodingFinding.Code.doubleURLEncoded,
                "value URL-encoded twice (`\(text.utf8Slice(offset, 5))` at offset \(offset)): the sender encoded an already encoded value", offset)
            once = PercentEncoding.percentDecode(String(decoding: once, as: UTF8.self), plusAsSpace: false)
            return once
        }
        let plusOrSlash = [upper.firstRange(of: "%2B"), upper.firstRange(of: "%2F")].compactMap { $0 }
            .map { upper.utf8.distance(from: upper.utf8.startIndex, to: $0.lowerBound) }.min()
        if let offset = plusOrSlash {
            add(EncodingFinding.Code.stillURLEncoded,
                "value still URL-encoded (`\(text.utf8Slice(offset, 3))` at offset \(offset)): it was percent-encoded once more than it was decoded", offset)
        }
        if let r = upper.firstRange(of: "%3D") {
            let offset = upper.utf8.distance(from: upper.utf8.startIndex, to: r.lowerBound)
            add(EncodingFinding.Code.paddingURLEncoded,
                "`=` arrived as `%3D` undecoded at offset \(offset): the padding was percent-encoded and never decoded", offset)
        }
        if plusOrSlash == nil, upper.firstRange(of: "%3D") == nil {
            add(EncodingFinding.Code.invalidCharacter, "`%` at offset \(first) is not a base64 character", first)
            return bytes
        }
        return once
    }

    private static func scanCharacters(_ text: [UInt8], originalHadPercent: Bool,
                                       add: (String, String, Int?) -> Void) {
        let spaceIsPlus = LenientBase64.spacesAreLostPluses(text)
        for (i, c) in text.enumerated() {
            switch c {
            case UInt8(ascii: " ") where spaceIsPlus:
                add(EncodingFinding.Code.plusAsSpace,
                    "`+` arrived as a space at offset \(i): the form body was not percent-encoded (a `+` in a form body means a space; send it as `%2B`)", i)
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                add(EncodingFinding.Code.lineBreaks,
                    "line breaks in base64 (first at offset \(i)): the value was MIME-wrapped; the binding wants one line", i)
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                add(EncodingFinding.Code.whitespace, "whitespace in base64 at offset \(i)", i)
            case UInt8(ascii: "-"), UInt8(ascii: "_"):
                add(EncodingFinding.Code.urlSafeAlphabet,
                    "URL-safe base64 (`-`/`_`, RFC 4648 §5) at offset \(i): the binding wants the standard alphabet (`+`/`/`)", i)
            case UInt8(ascii: "="):
                break
            default:
                if LenientBase64.value(of: c) == nil {
                    add(EncodingFinding.Code.invalidCharacter,
                        "byte 0x\(String(c, radix: 16, uppercase: true)) at offset \(i) is not a base64 character", i)
                }
            }
        }
    }

    /// Looks at the decoded bytes; returns the XML as best recovered.
    private static func examineDecoded(_ decoded: [UInt8], binding: Binding, inflateLimit: Int,
                                       add: (String, String, Int?) -> Void) -> [UInt8]? {
        if PostBinding.looksLikeMarkup(decoded) {
            if binding == .redirect {
                add(EncodingFinding.Code.notDeflated,
                    "plain base64 XML where the Redirect binding wants raw DEFLATE first (saml-bindings-2.0-os §3.4.4.1)", nil)
            }
            checkClosed(decoded, add: add)
            return decoded
        }
        let zlib = RawDeflate.hasZlibHeader(decoded)
        do {
            let (xml, framing, _) = try RedirectBinding.inflateAnyFraming(decoded, limit: inflateLimit)
            if framing == .zlib || zlib {
                add(EncodingFinding.Code.zlibHeader,
                    binding == .post
                        ? "zlib header (RFC 1950) present: the value is zlib-compressed, but the POST binding wants plain base64"
                        : "zlib header present in Redirect binding: saml-bindings-2.0-os §3.4.4.1 wants raw DEFLATE (Java `new Deflater()` without `nowrap`)", 0)
            }
            if binding == .post {
                add(EncodingFinding.Code.deflatedPost,
                    "raw DEFLATE where the POST binding wants plain base64 (saml-bindings-2.0-os §3.5.4: no compression)", nil)
            }
            if PostBinding.looksLikeMarkup(xml) { checkClosed(xml, add: add) } else {
                add(EncodingFinding.Code.notSAML, "inflates to \(xml.count) bytes that are not XML", nil)
            }
            return xml
        } catch let error as BindingError {
            switch error.reason {
            case .inflateTruncated:
                add(EncodingFinding.Code.truncated,
                    "truncated: the compressed stream ends before its last block (\(decoded.count) bytes arrived)", nil)
            case .inflateLimitExceeded:
                add(EncodingFinding.Code.inflateLimit, "inflating would exceed \(inflateLimit) bytes (deflate bomb?)", nil)
            default:
                add(EncodingFinding.Code.notSAML,
                    "decodes to \(decoded.count) bytes that are neither XML nor DEFLATE (first byte 0x\(String(decoded.first ?? 0, radix: 16, uppercase: true)))", nil)
            }
            return nil
        } catch {
            return nil
        }
    }

    /// XML that does not parse: cut short when its root element is never closed.
    private static func checkClosed(_ xml: [UInt8], add: (String, String, Int?) -> Void) {
        do {
            _ = try XMLDocument(parsing: xml)
        } catch let error as XMLError {
            let text = String(decoding: xml, as: UTF8.self)
            let root = rootName(text)
            let trimmed = text.trimmed
            if root.map({ !trimmed.hasSuffix("</\($0)>") }) ?? true, !trimmed.hasSuffix("/>") {
                add(EncodingFinding.Code.truncated,
                    "truncated: the decoded XML (\(xml.count) bytes) ends before its root element \(root.map { "<\($0)>" } ?? "") is closed", nil)
            } else {
                add(EncodingFinding.Code.notWellFormed, "the decoded XML is not well-formed: \(error.message)", nil)
            }
        } catch {}
    }

    private static func rootName(_ text: String) -> String? {
        var rest = Substring(text)
        while let lt = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: lt)...]
            if let first = after.first, first != "?", first != "!" {
                return String(after.prefix { $0 != " " && $0 != ">" && $0 != "/" && $0 != "\n" && $0 != "\t" && $0 != "\r" })
            }
            rest = after
        }
        return nil
    }
}

extension String {
    /// Up to `length` UTF-8 bytes from `offset`, as text.
    func utf8Slice(_ offset: Int, _ length: Int) -> String {
        let bytes = Array(utf8)
        guard offset < bytes.count else { return "" }
        return String(decoding: bytes[offset..<min(offset + length, bytes.count)], as: UTF8.self)
    }
}
