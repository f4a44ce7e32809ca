import Foundation
import SAMLCore

/// The placeholder syntax of recorded chains: literal text with `⟦name⟧` or `⟦name|filter⟧`
/// (U+27E6 and U+27E7, MATHEMATICAL WHITE SQUARE BRACKETS) where a dynamic value goes.
///
/// Escaping: a literal `⟦` in recorded content is written `⟦⟦`; nothing else is escaped (a
/// lone `⟧` is literal). The brackets do not occur in HTTP syntax, HTML, XML or base64, so
/// recorded pages almost never need the escape, and no recorded text can be read as a
/// placeholder.
///
/// Filters say how the value is encoded where it stands: `url` (RFC 3986 §2.1, a query
/// component), `form` (WHATWG URL §5.2, a form body), `html` (an HTML attribute or text),
/// `xml`, `json` (inside a JSON string); for a message (`⟦msg.NAME|…⟧`), `redirect` (the whole
/// HTTP-Redirect query: SAMLRequest/SAMLResponse, RelayState, SigAlg, Signature) and `base64`
/// (the HTTP-POST form value).
///
/// ```swift
/// let template = "Location: /sso?x=" + ReplayTemplate.placeholder("relay_state", .url)
/// try ReplayTemplate.render(template) { _ in "a b" }   // "Location: /sso?x=a%20b"
/// ```
public enum ReplayTemplate {
    public static let open: Character = "⟦"
    public static let close: Character = "⟧"

    /// How a value is encoded where it is inserted.
    public enum Filter: String, Sendable, CaseIterable {
        case url, form, html, xml, json
        /// URL-encoded twice: a value inside a URL that is itself a query value (SimpleSAMLphp's
        /// `AuthState` carries its return URL, RelayState included, that way).
        case url2
        case redirect, base64
        /// A message's XML inline, without its XML declaration (in a SOAP envelope's body).
        case inline
    }

    /// One placeholder: a variable, a message (`msg.NAME`), or `redacted.…` (a fixed stand-in).
    public struct Placeholder: Sendable, Equatable {
        public var name: String
        public var filter: Filter?

        public init(name: String, filter: Filter? = nil) {
            self.name = name
            self.filter = filter
        }

        /// The message name when this is `msg.NAME`.
        public var messageName: String? { name.hasPrefix("msg.") ? String(name.dropFirst(4)) : nil }
    }

    /// A template split into literal text and placeholders.
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case placeholder(Placeholder)
    }

    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        /// Character offset in the template.
        public var offset: Int
        public var message: String

        public var description: String { "template, character \(offset): \(message)" }
    }

    /// The literal `text` as template text (`⟦` doubled).
    public static func escape(_ text: String) -> String {
        guard text.contains(open) else { return text }
        return text.replacingOccurrences(of: String(open), with: String(open) + String(open))
    }

    /// `⟦name⟧` or `⟦name|filter⟧`.
    public static func placeholder(_ name: String, _ filter: Filter? = nil) -> String {
        String(open) + name + (filter.map { "|" + $0.rawValue } ?? "") + String(close)
    }

    /// Valid names: letters, digits, `_ . -` (ASCII), 1–128 characters.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128 && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }

    /// Splits a template; throws on an unclosed placeholder, a bad name or an unknown filter.
    public static func parse(_ template: String) throws -> [Segment] {
        guard template.contains(open) else { return template.isEmpty ? [] : [.literal(template)] }
        var segments: [Segment] = []
        var literal = ""
        var index = template.startIndex
        var offset = 0
        while index < template.endIndex {
            let character = template[index]
            guard character == open else {
                literal.append(character)
                index = template.index(after: index)
                offset += 1
                continue
            }
            let next = template.index(after: index)
            if next < template.endIndex, template[next] == open {
                literal.append(open)
                index = template.index(after: next)
                offset += 2
                continue
            }
            guard let end = template[next...].firstIndex(of: close) else {
                throw SyntaxError(offset: offset, message: "`⟦` without a closing `⟧` (write `⟦⟦` for a literal `⟦`)")
            }
            let inside = String(template[next..<end])
            let parts = inside.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard isValidName(parts[0]) else {
                throw SyntaxError(offset: offset, message: "`\(inside.prefix(40))` is not a placeholder name "
                    + "(letters, digits, `_ . -`)")
            }
            var filter: Filter?
            if parts.count == 2 {
                guard let known = Filter(rawValue: parts[1]) else {
                    throw SyntaxError(offset: offset, message: "unknown filter `\(parts[1].prefix(20))`; known: "
                        + "\(Filter.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                filter = known
            }
            if !literal.isEmpty { segments.append(.literal(literal)) }
            literal = ""
            segments.append(.placeholder(Placeholder(name: parts[0], filter: filter)))
            offset += inside.count + 2
            index = template.index(after: end)
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        return segments
    }

    /// Joins segments back into template text (literals escaped).
    public static func join(_ segments: [Segment]) -> String {
        segments.map { segment in
            switch segment {
            case .literal(let text): escape(text)
            case .placeholder(let placeholder): self.placeholder(placeholder.name, placeholder.filter)
            }
        }.joined()
    }

    /// The names of every placeholder in `template` (unparseable templates give none).
    public static func placeholders(in template: String) -> [Placeholder] {
        ((try? parse(template)) ?? []).compactMap {
            if case .placeholder(let placeholder) = $0 { return placeholder }
            return nil
        }
    }

    /// Applies `transform` to the literal text only, leaving placeholders untouched.
    public static func mapLiterals(_ template: String, _ transform: (String) -> [Segment]) -> String {
        guard let segments = try? parse(template) else { return template }
        var out: [Segment] = []
        for segment in segments {
            if case .literal(let text) = segment { out += transform(text) } else { out.append(segment) }
        }
        return join(out)
    }

    /// Renders: each placeholder replaced by `resolve`'s value, encoded with its filter
    /// (message filters are left to `resolve`, which sees the placeholder).
    public static func render(_ template: String, resolve: (Placeholder) throws -> String) throws -> String {
        var out = ""
        for segment in try parse(template) {
            switch segment {
            case .literal(let text):
                out += text
            case .placeholder(let placeholder):
                let value = try resolve(placeholder)
                out += placeholder.messageName == nil ? encode(value, placeholder.filter) : value
            }
        }
        return out
    }

    /// Encodes a value for the place a filter names.
    public static func encode(_ value: String, _ filter: Filter?) -> String {
        switch filter {
        case nil, .redirect, .base64, .inline: value
        case .url: PercentEncoding.queryComponentEncode(value)
        case .url2: PercentEncoding.queryComponentEncode(PercentEncoding.queryComponentEncode(value))
        case .form: PercentEncoding.formEncode(value)
        case .html: HTMLText.escape(value)
        case .xml: XMLWriter.escapeAttribute(value)
        case .json: jsonEscape(value)
        }
    }

    /// RFC 8259 §7: the characters that must be escaped inside a JSON string.
    static func jsonEscape(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
