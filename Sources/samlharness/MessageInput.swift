import Foundation
import SAMLCore

/// Reads a SAML message the way the CLI verbs accept it: raw XML, a base64 value (line-wrapped
/// or not), a form body `SAMLResponse=…&RelayState=…`, a URL with a Redirect-binding query, or
/// an HTML page with an auto-submit form — from a file, `-` (standard input) or, for
/// `decode`, the argument itself.
enum MessageInput {
    /// Where the bytes came from, and what the binding layer found on the way.
    struct Loaded {
        let xml: [UInt8]
        let source: String
        let relayState: String?
        let deviations: [EncodingDeviation]
        let diagnosis: EncodingDiagnosis?
    }

    struct Failure: Error, CustomStringConvertible {
        let code: String
        let message: String
        var description: String { "\(code): \(message)" }
    }

    static func read(path: String, limit: Int = BoundedInput.defaultLimit) throws -> String {
        do {
            let bytes = try BoundedInput.read(path: path, limit: limit)
            // A SAML message, its base64, a form body, a URL and an HTML page are all UTF-8 text;
            // decoding invalid bytes leniently would turn them into U+FFFD and hide the damage.
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let offset = firstInvalidUTF8Offset(bytes) ?? 0
                throw Failure(code: "input.invalid-utf8", message: "\(path == "-" ? "standard input" : path) is not UTF-8 text: "
                    + "byte 0x\(String(bytes[offset], radix: 16, uppercase: true)) at offset \(offset) is not valid UTF-8")
            }
            return text
        } catch let f as BoundedInput.Failure {
            throw Failure(code: f.reason.rawValue, message: f.message)
        }
    }

    /// The offset of the first sequence that is not valid UTF-8 (RFC 3629 §4: lead byte, the
    /// right number of continuation bytes, no overlong form, no surrogate, at most U+10FFFF).
    static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            let length: Int
            switch lead {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return i
            }
            guard i + length <= bytes.count,
                  String(validating: bytes[i..<(i + length)], as: UTF8.self) != nil else { return i }
            i += length
        }
        return nil
    }

    static func decode(_ raw: String, source: String) throws -> Loaded {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw Failure(code: "input.empty", message: "\(source) is empty") }
        if text.hasPrefix("<") && !text.lowercased().contains("<form") && !text.lowercased().hasPrefix("<!doctype html")
            && !text.lowercased().hasPrefix("<html") {
            return Loaded(xml: Array(text.utf8), source: "\(source) (XML)", relayState: nil, deviations: [], diagnosis: nil)
        }
        if text.lowercased().contains("<form") {
            let forms = HTMLFormParser.forms(in: text)
            for form in forms {
                let name = form.value("SAMLResponse") != nil ? "SAMLResponse" : (form.value("SAMLRequest") != nil ? "SAMLRequest" : nil)
                guard let name, let value = form.value(name) else { continue }
                let kind: SAMLMessageKind = name == "SAMLResponse" ? .response : .request
                let message = try wrap { try PostBinding.decode(value, kind: kind, relayState: form.value("RelayState")) }
                return Loaded(xml: message.xml, source: "\(source) (HTML form → \(form.action ?? "?"), field \(name))",
                              relayState: message.relayState, deviations: message.deviations,
                              diagnosis: EncodingDiagnoser.diagnose(value, binding: .post))
            }
            throw Failure(code: "input.no-saml-form", message: "\(source) holds \(forms.count) HTML form(s), none with a SAMLResponse or SAMLRequest field")
        }
        if text.contains("SAMLRequest=") || text.contains("SAMLResponse=") {
            // A URL or a bare query is the Redirect binding (deflated); a bare body that does
            // not inflate is an HTTP-POST form body.
            if text.contains("://") || text.hasPrefix("?") {
                let m = try wrap { try RedirectBinding.decode(text) }
                return Loaded(xml: m.xml, source: "\(source) (Redirect binding URL)", relayState: m.relayState, deviations: m.deviations, diagnosis: nil)
            }
            if let m = try? RedirectBinding.decode(text) {
                return Loaded(xml: m.xml, source: "\(source) (Redirect binding query)", relayState: m.relayState, deviations: m.deviations, diagnosis: nil)
            }
            let m = try wrap { try PostBinding.decode(formBody: text) }
            return Loaded(xml: m.xml, source: "\(source) (HTTP-POST form body)", relayState: m.relayState, deviations: m.deviations, diagnosis: nil)
        }
        // A bare value: base64 (POST) or deflated base64 (Redirect), maybe damaged.
        let diagnosis = EncodingDiagnoser.diagnose(text, binding: .unknown)
        if let xml = diagnosis.recoveredXML {
            return Loaded(xml: xml, source: "\(source) (base64 value)", relayState: nil, deviations: [], diagnosis: diagnosis)
        }
        throw Failure(code: "encoding.invalid", message: "\(source) is neither XML nor a decodable SAML value: " +
                      diagnosis.findings.map { "\($0.code) — \($0.message)" }.joined(separator: "; "))
    }

    private static func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as BindingError {
            throw Failure(code: e.code, message: e.message + (e.offset.map { " (offset \($0))" } ?? ""))
        }
    }
}
