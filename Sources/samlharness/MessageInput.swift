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
            return String(decoding: bytes, as: UTF8.self)
        } catch let f as BoundedInput.Failure {
            throw Failure(code: f.reason.rawValue, message: f.message)
        }
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
