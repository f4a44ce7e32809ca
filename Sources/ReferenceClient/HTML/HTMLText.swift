import Foundation

/// Text helpers for HTML pages: entities, visible text, and the words of an error page.
enum HTMLText {
    /// Decodes character references (`&amp;`, `&#43;`, `&#x2B;` and the common named ones).
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
        var out = ""
        var index = text.startIndex
        while let amp = text[index...].firstIndex(of: "&") {
            out += text[index..<amp]
            guard let semicolon = text[amp...].firstIndex(of: ";"), text.distance(from: amp, to: semicolon) <= 10 else {
                out += "&"
                index = text.index(after: amp)
                continue
            }
            let entity = text[text.index(after: amp)..<semicolon]
            var replacement: String?
            if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                replacement = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if entity.hasPrefix("#") {
                replacement = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            } else {
                replacement = named[String(entity)]
            }
            if let replacement {
                out += replacement
                index = text.index(after: semicolon)
            } else {
                out += "&"
                index = text.index(after: amp)
            }
        }
        out += text[index...]
        return out
    }

    /// Visible text of an HTML fragment, whitespace collapsed.
    static func text(_ html: Substring) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" { inTag = true; out += " " } else if character == ">" { inTag = false } else if !inTag { out.append(character) }
        }
        return decodeEntities(out).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The text of the first element whose start tag matches `marker` (e.g. `id="reason"`).
    static func elementText(containing marker: String, in html: String) -> String? {
        guard let found = html.range(of: marker), let close = html[found.upperBound...].firstIndex(of: ">"),
              let end = html[close...].range(of: "</") else { return nil }
        let text = text(html[html.index(after: close)..<end.lowerBound])
        return text.isEmpty ? nil : text
    }

    /// The words an error page uses for its error: a `<code>` (the mock SP's reason code,
    /// the CAS application's CAS code), an element with `error` in its id or class, the title.
    static func errorWords(in html: String) -> String {
        var words: [String] = []
        if let code = elementText(containing: "<code", in: html) { words.append(code) }
        for marker in ["id=\"explanation\"", "id=\"errorText\"", "id=\"errorDetailsMessage\"", "id=\"loginErrorsPanel\"",
                       "class=\"error\"", "form-error\"", "alert-danger"] {
            if let text = elementText(containing: marker, in: html), !words.contains(text) { words.append(text) }
        }
        if words.isEmpty, let title = elementText(containing: "<title", in: html) { words.append(title) }
        if words.isEmpty {
            let plain = text(Substring(html))
            if !plain.isEmpty { words.append(String(plain.prefix(200))) }
        }
        return words.joined(separator: ": ")
    }
}
