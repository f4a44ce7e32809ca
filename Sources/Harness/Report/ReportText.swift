import Foundation

/// Escaping and wording the writers share.
enum ReportText {
    /// Text for XML 1.0 content or a double-quoted attribute: the five special characters
    /// escaped, and characters XML 1.0 §2.2 does not allow (C0 controls but tab, CR, LF;
    /// U+FFFE, U+FFFF) replaced by U+FFFD, so traffic bytes can never break the document.
    static func xml(_ text: String) -> String {
        escape(text, apostrophe: "&apos;") { $0 < 0x20 || $0 == 0xFFFE || $0 == 0xFFFF }
    }

    /// Text for HTML content or a double-quoted attribute (HTML Standard §13.1.2.6: `&`,
    /// `<`, `>`, `"`, `'` escaped; NUL and other C0 controls replaced).
    static func html(_ text: String) -> String {
        escape(text, apostrophe: "&#39;") { $0 < 0x20 || $0 == 0x7F }
    }

    /// The five markup characters escaped, tab/CR/LF kept, every scalar `forbidden` names
    /// replaced by U+FFFD.
    private static func escape(_ text: String, apostrophe: String, forbidden: (UInt32) -> Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += apostrophe
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if forbidden(scalar.value) { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// An HTML id / URL fragment for a scenario: `s-` and the id, every character outside
    /// `A-Za-z0-9._-` replaced by `_` (ids come from YAML files; a fragment must stay one).
    static func anchor(_ scenario: String) -> String {
        "s-" + String(scenario.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": Character(scalar)
            default: "_"
            }
        })
    }

    /// The anchor of one exchange of a scenario's trace.
    static func anchor(_ scenario: String, exchange: Int) -> String { anchor(scenario) + "-x\(exchange)" }

    /// `12.345` (JUnit's SUREFIRE_TIME: at most three decimals, no exponent).
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", max(0, value))
    }

    /// One line: newlines folded, cut at `limit` characters.
    static func oneLine(_ text: String, limit: Int = 240) -> String {
        let folded = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return folded.count > limit ? String(folded.prefix(limit)) + "…" : folded
    }

    /// Evidence as plain text lines: `#12 (sp): detail` and the excerpt indented.
    static func evidence(_ evidence: [Evidence]) -> String {
        evidence.map { item in
            var line = ""
            if let exchange = item.exchange { line += "#\(exchange) " }
            if let mock = item.mock { line += "(\(mock)) " }
            line += item.detail
            if let excerpt = item.excerpt { line += "\n    " + excerpt.replacingOccurrences(of: "\n", with: "\n    ") }
            return line
        }.joined(separator: "\n")
    }

    /// A link to the text behind a check's reference, when it names a document this knows:
    /// a CVE, an RFC, a SAML 2.0 specification, WS-Trust, the CAS protocol.
    static func referenceURL(_ reference: String) -> String? {
        if let range = reference.range(of: #"CVE-\d{4}-\d{4,}"#, options: .regularExpression) {
            return "https://www.cve.org/CVERecord?id=\(reference[range])"
        }
        if let range = reference.range(of: #"RFC \d{3,5}"#, options: .regularExpression) {
            return "https://www.rfc-editor.org/rfc/rfc\(reference[range].dropFirst(4))"
        }
        let documents: [(String, String)] = [
            ("SAML 2.0 Bindings", "https://docs.oasis-open.org/security/saml/v2.0/saml-bindings-2.0-os.pdf"),
            ("saml-bindings", "https://docs.oasis-open.org/security/saml/v2.0/saml-bindings-2.0-os.pdf"),
            ("SAML 2.0 Profiles", "https://docs.oasis-open.org/security/saml/v2.0/saml-profiles-2.0-os.pdf"),
            ("SAML 2.0 Core", "https://docs.oasis-open.org/security/saml/v2.0/saml-core-2.0-os.pdf"),
            ("ECP", "https://docs.oasis-open.org/security/saml/Post2.0/saml-ecp/v2.0/saml-ecp-v2.0.html"),
            ("WS-Trust", "https://docs.oasis-open.org/ws-sx/ws-trust/v1.4/ws-trust.html"),
            ("WS-Security", "https://docs.oasis-open.org/wss-m/wss/v1.1.1/wss-UsernameTokenProfile-v1.1.1.html"),
            ("CAS", "https://apereo.github.io/cas/development/protocol/CAS-Protocol-Specification.html"),
            ("XML-DSig", "https://www.w3.org/TR/xmldsig-core1/"),
            ("WHATWG URL", "https://url.spec.whatwg.org/#application/x-www-form-urlencoded"),
        ]
        return documents.first { reference.contains($0.0) }?.1
    }
}
