import Foundation
import MockServers
import SAMLCore

/// An HTTP-POST binding form a mock served (saml-bindings-2.0-os §3.5.4): the page, the form,
/// where it posts, the message and the RelayState exactly as the page holds them.
struct ServedSAMLForm {
    let entry: TrafficEntry
    let form: HTMLForm
    /// The form's action, resolved against the page.
    let action: String
    /// `SAMLResponse` or `SAMLRequest`.
    let field: String
    let value: String
    let relayState: String?
}

/// A SAML message the client posted in a form body, with the form's RelayState.
struct PostedSAMLMessage {
    let entry: TrafficEntry
    let field: String
    let parameter: QueryParameter
    let relayState: QueryParameter?
    /// How many times the field appears in the body.
    let occurrences: Int
}

enum SAMLPostTraffic {
    static let fields = ["SAMLResponse", "SAMLRequest"]

    /// Every auto-post form the mocks served, in order.
    static func servedForms(_ entries: [TrafficEntry], field: String? = nil) -> [ServedSAMLForm] {
        var served: [ServedSAMLForm] = []
        for entry in entries {
            guard let response = entry.response, response.status < 400 || response.status == 200,
                  MessageTraffic.isHTML(response) else { continue }
            let text = response.bodyText
            guard fields.contains(where: { text.contains($0) }) else { continue }
            for form in HTMLFormParser.forms(in: text) {
                for name in fields where field == nil || field == name {
                    guard let value = form.value(name) else { continue }
                    let action = MessageTraffic.resolve(form.action ?? MessageTraffic.destination(entry),
                                                        against: MessageTraffic.destination(entry))
                    served.append(ServedSAMLForm(entry: entry, form: form, action: action, field: name, value: value,
                                                 relayState: form.value("RelayState")))
                }
            }
        }
        return served
    }

    /// Every SAML message the client posted in a form-encoded body, in order.
    static func posted(_ entries: [TrafficEntry], field: String? = nil) -> [PostedSAMLMessage] {
        var posted: [PostedSAMLMessage] = []
        for entry in MessageTraffic.clientEntries(entries) where entry.request.method == "POST" {
            let body = entry.request.bodyText
            guard fields.contains(where: { body.contains($0) }) else { continue }
            let parameters = QueryParameter.parse(body)
            for name in fields where field == nil || field == name {
                let all = parameters.all(named: name)
                guard let first = all.first else { continue }
                posted.append(PostedSAMLMessage(entry: entry, field: name, parameter: first,
                                                relayState: parameters.first(named: "RelayState"), occurrences: all.count))
            }
        }
        return posted
    }

    /// The served form a posted message came from: the latest one before it carrying the same
    /// message (line endings aside), else the latest one before it of the same kind.
    static func source(of post: PostedSAMLMessage, in served: [ServedSAMLForm]) -> ServedSAMLForm? {
        let earlier = served.filter { $0.entry.sequence < post.entry.sequence && $0.field == post.field }
        let target = withoutLineEndings(post.parameter.value)
        return earlier.last { withoutLineEndings($0.value) == target } ?? earlier.last
    }

    /// The value with CR and LF removed: HTML parsing turns CRLF into LF in attribute values
    /// and form submission turns it back (HTML §13.2.3.5, WHATWG "append an entry"), so a
    /// browser may legitimately change line endings, never the base64 characters.
    static func withoutLineEndings(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }

    /// CRLF and lone CR made LF.
    static func normalizedLineEndings(_ value: String) -> String {
        value.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// What happened to a value between `served` and `arrived`, in SAMLCore's words.
    static func diagnosis(arrived: String, served: String) -> String {
        let findings = EncodingDiagnoser.diagnose(arrived, binding: .post, expected: served).findings
        let relevant = findings.filter { $0.code != EncodingFinding.Code.lineBreaks || !served.contains("\n") }
        return (relevant.isEmpty ? findings : relevant).map(\.description).joined(separator: "\n")
    }

    /// A few bytes of both values around their first difference.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0
        while i < x.count, i < y.count, x[i] == y[i] { i += 1 }
        return "first difference at byte \(i): served \(show(x, i)), posted \(show(y, i))"
    }

    static func show(_ bytes: [UInt8], _ offset: Int) -> String {
        guard offset < bytes.count else { return "(end, \(bytes.count) bytes)" }
        let start = max(0, offset - 8), end = min(bytes.count, offset + 8)
        var out = start > 0 ? "`…" : "`"
        for b in bytes[start..<end] {
            switch b {
            case 0x0D: out += "\\r"
            case 0x0A: out += "\\n"
            case 0x20...0x7E: out.append(Character(Unicode.Scalar(b)))
            default: out += "\\x" + String(b, radix: 16, uppercase: true)
            }
        }
        return out + (end < bytes.count ? "…`" : "`")
    }

    /// The SOAP Body's content (the samlp:Response of an ECP exchange), as written.
    static func soapBodyContent(_ text: String) -> String? {
        guard let open = text.range(of: #"<([A-Za-z_][\w.-]*:)?Body(\s[^>]*)?>"#, options: .regularExpression),
              let close = text.range(of: #"</([A-Za-z_][\w.-]*:)?Body\s*>"#, options: [.regularExpression, .backwards]),
              open.upperBound <= close.lowerBound else { return nil }
        return text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ECP legs: the IdP's SOAP answers carrying a Response, and the client's SOAP posts to
    /// the SP's PAOS consumer.
    static func ecpServed(_ entries: [TrafficEntry]) -> [(entry: TrafficEntry, body: String)] {
        entries.compactMap { entry in
            guard entry.mock == "idp", let response = entry.response, response.status == 200,
                  entry.annotations["idp.login"] == "ok", entry.request.method == "POST",
                  (response.header("Content-Type") ?? "").contains("xml"),
                  let body = soapBodyContent(response.bodyText), body.contains("Response") else { return nil }
            return (entry, body)
        }
    }

    static func ecpPosted(_ entries: [TrafficEntry]) -> [(entry: TrafficEntry, body: String)] {
        MessageTraffic.clientEntries(entries).compactMap { entry in
            // A SOAP Fault the client sends the SP (a consumer URL mismatch, SAML 2.0 Profiles
            // §4.2.4.5) carries no Response to compare.
            guard entry.mock == "sp", entry.request.method == "POST", entry.request.path.hasSuffix("/ECP"),
                  let body = soapBodyContent(entry.request.bodyText),
                  body.range(of: #"<([A-Za-z_][\w.-]*:)?Response[\s>/]"#, options: .regularExpression) != nil else { return nil }
            return (entry, body)
        }
    }
}
