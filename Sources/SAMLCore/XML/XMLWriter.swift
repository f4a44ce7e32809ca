/// Writes XML text deterministically: attributes in the order given, no whitespace between
/// elements, every value escaped. The same calls always give the same bytes, which is what
/// golden fixtures and reproducible scenarios need.
///
/// ```swift
/// var w = XMLWriter()
/// w.open("saml:Issuer", ["xmlns:saml": SAMLNamespace.assertion])
/// w.text("https://idp.example.org/idp/shibboleth")
/// w.close("saml:Issuer")
/// ```
public struct XMLWriter: Sendable {
    public private(set) var output: String = ""

    public init() {}

    /// `<name a="v" …>`; attributes whose value is nil are left out.
    public mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:]) {
        output += "<" + name
        appendAttributes(attributes)
        output += ">"
    }

    /// `<name a="v" …/>`.
    public mutating func empty(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:]) {
        output += "<" + name
        appendAttributes(attributes)
        output += "/>"
    }

    /// `</name>`.
    public mutating func close(_ name: String) {
        output += "</" + name + ">"
    }

    /// Escaped character data.
    public mutating func text(_ value: String) {
        output += XMLWriter.escapeText(value)
    }

    /// `<name …>text</name>`.
    public mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:], text value: String) {
        open(name, attributes)
        text(value)
        close(name)
    }

    /// Inserts already-serialised XML as is (for example a signed assertion, byte for byte).
    public mutating func raw(_ xml: String) {
        output += xml
    }

    private mutating func appendAttributes(_ attributes: KeyValuePairs<String, String?>) {
        for (key, value) in attributes {
            guard let value else { continue }
            output += " "
            output += key
            output += "=\""
            output += XMLWriter.escapeAttribute(value)
            output += "\""
        }
    }

    /// The ASCII bytes ``escapeText(_:)`` and ``escapeAttribute(_:)`` leave alone (TAB and
    /// LF stay in text; in attributes they become references).
    private static let plainText = CharacterEscaping.PlainASCII(printableExcept: "&<>", extra: [0x09, 0x0A])
    private static let plainAttribute = CharacterEscaping.PlainASCII(printableExcept: "&<>\"")

    /// XML 1.0 §2.4 character data: `&` and `<` must be escaped, `>` is escaped so `]]>` can
    /// never appear; CR as `&#xD;` so it survives end-of-line normalisation (C14N 1.0 §1.1).
    public static func escapeText(_ value: String) -> String {
        CharacterEscaping.escape(value, plain: plainText) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\r": "&#xD;"
            case let other where !isXMLCharacter(other): "\u{FFFD}"
            default: nil
            }
        }
    }

    /// XML 1.0 §2.2 `Char`: what a document may contain at all. Anything else (NUL, other C0
    /// controls, U+FFFE, U+FFFF) would make the output not well-formed, so the writer puts
    /// U+FFFD in its place — a value echoed from a request can never break the document.
    public static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// XML 1.0 §3.3.3 attribute values: `&`, `<`, `"` escaped, and TAB, LF, CR as character
    /// references so attribute-value normalisation does not turn them into spaces.
    public static func escapeAttribute(_ value: String) -> String {
        CharacterEscaping.escape(value, plain: plainAttribute) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "\t": "&#x9;"
            case "\n": "&#xA;"
            case "\r": "&#xD;"
            case let other where !isXMLCharacter(other): "\u{FFFD}"
            default: nil
            }
        }
    }
}
