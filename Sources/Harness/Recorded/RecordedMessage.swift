import Foundation
import SAMLCore

/// What the import reads out of one decoded SAML message, and how it turns the XML into a
/// template: recorded signatures removed (when re-signing), personal values replaced (when
/// redacting), pretty-printed, timestamps turned into `time` variables relative to the
/// message's own `IssueInstant`.
struct RecordedMessage {
    /// The decoded bytes as recorded.
    let bytes: [UInt8]
    /// Root element local name (`AuthnRequest`, `Response`…).
    let rootName: String
    /// `ID`s with the local name of their element, in document order.
    let ids: [(element: String, value: String)]
    let inResponseTo: [String]
    let sessionIndexes: [String]
    let responseSigned: Bool
    let assertionSigned: Bool
    /// NameID texts and AttributeValue texts (with the attribute's FriendlyName or Name).
    let nameIDs: [String]
    let attributeValues: [(attribute: String, value: String)]
    /// The root `IssueInstant`.
    let issueInstant: Date?
    let issuer: String?

    /// The attributes holding SAML timestamps (saml-core-2.0-os §2.3.3, §2.4.1.2, §2.5.1, §2.7.2).
    static let timeAttributes = ["IssueInstant", "NotBefore", "NotOnOrAfter", "AuthnInstant", "SessionNotOnOrAfter"]

    /// Parses with SAMLCore's hardened parser (no DTD, bounded); nil when it is not XML.
    init?(bytes: [UInt8]) {
        guard let document = try? XMLDocument(parsing: bytes) else { return nil }
        let root = document.root
        self.bytes = bytes
        rootName = root.localName
        var ids: [(String, String)] = []
        var inResponseTo: [String] = []
        var sessionIndexes: [String] = []
        var nameIDs: [String] = []
        var attributeValues: [(String, String)] = []
        root.walk { element in
            if let id = element.attribute("ID") { ids.append((element.localName, id)) }
            if let value = element.attribute("InResponseTo") { inResponseTo.append(value) }
            if let value = element.attribute("SessionIndex") { sessionIndexes.append(value) }
            if element.is("NameID", SAMLNamespace.assertion) { nameIDs.append(element.text) }
            if element.is("AttributeValue", SAMLNamespace.assertion) {
                let attribute = element.parent.map { $0.attribute("FriendlyName") ?? $0.attribute("Name") ?? "attribute" }
                attributeValues.append((attribute ?? "attribute", element.text))
            }
        }
        self.ids = ids
        self.inResponseTo = inResponseTo
        self.sessionIndexes = sessionIndexes
        self.nameIDs = nameIDs.filter { !$0.isEmpty }
        self.attributeValues = attributeValues.filter { !$0.1.isEmpty }
        responseSigned = XMLSignatureVerifier.signatureElement(of: root) != nil
        assertionSigned = root.children("Assertion", SAMLNamespace.assertion)
            .contains { XMLSignatureVerifier.signatureElement(of: $0) != nil }
        issueInstant = root.attribute("IssueInstant").flatMap { try? SAMLDateTime.date(from: $0) }
        issuer = root.firstChild("Issuer", SAMLNamespace.assertion)?.text
    }

    var isSigned: Bool { responseSigned || assertionSigned }

    /// `AuthnRequest` → `authn_request`.
    var snakeName: String { Self.snakeCase(rootName) }

    static func snakeCase(_ name: String) -> String {
        var out = ""
        for (index, character) in name.enumerated() {
            if character.isUppercase, index > 0 { out += "_" }
            out += character.lowercased()
        }
        return out.isEmpty ? "message" : out
    }

    /// A timestamp found in the XML, as a `time` variable.
    struct Timestamp {
        var recorded: String
        var offset: Int
        var milliseconds: Bool
    }

    /// The XML as a template, and the timestamps it now references.
    ///
    /// - Parameters:
    ///   - stripSignatures: remove the `ds:Signature` of the root and of its assertions.
    ///   - personal: replacements for NameID and AttributeValue texts (redaction).
    ///   - verbatim: keep the recorded bytes (a signed message served as recorded): nothing is
    ///     templated, so the recorded signature still verifies.
    func template(stripSignatures: Bool, personal: [String: String],
                  verbatim: Bool = false) -> (xml: String, timestamps: [Timestamp]) {
        guard !verbatim, let document = try? XMLDocument(parsing: bytes) else {
            return (ReplayTemplate.escape(String(decoding: bytes, as: UTF8.self)), [])
        }
        let root = document.root
        if stripSignatures {
            for assertion in root.children("Assertion", SAMLNamespace.assertion) {
                XMLSignatureVerifier.signatureElement(of: assertion)?.remove()
            }
            XMLSignatureVerifier.signatureElement(of: root)?.remove()
        }
        if !personal.isEmpty {
            root.walk { element in
                guard element.is("NameID", SAMLNamespace.assertion) || element.is("AttributeValue", SAMLNamespace.assertion),
                      element.children.isEmpty, let replacement = personal[element.text] else { return }
                element.setText(replacement)
            }
        }
        var timestamps: [String: Timestamp] = [:]
        root.walk { element in
            for name in Self.timeAttributes {
                guard let value = element.attribute(name), timestamps[value] == nil,
                      let date = try? SAMLDateTime.date(from: value) else { continue }
                let anchor = issueInstant ?? date
                timestamps[value] = Timestamp(recorded: value, offset: Self.clampedOffset(date.timeIntervalSince(anchor)),
                                              milliseconds: value.contains("."))
            }
        }
        var xml = ReplayTemplate.escape(document.prettyPrinted())
        for timestamp in timestamps.values {
            // Attribute values are quoted; the whole quoted value is replaced.
            xml = xml.replacingOccurrences(of: "\"\(timestamp.recorded)\"",
                                           with: "\"" + ReplayTemplate.placeholder(Self.timeName(timestamp)) + "\"")
        }
        return (xml, timestamps.values.sorted { $0.offset < $1.offset })
    }

    /// Offsets are whole seconds within a year either way (a longer one is a recording error).
    static func clampedOffset(_ seconds: TimeInterval) -> Int {
        Int(max(-31_622_400, min(31_622_400, seconds.rounded())))
    }

    /// `now`, `now_plus_300`, `now_minus_5_ms`…
    static func timeName(_ timestamp: Timestamp) -> String {
        let seconds = timestamp.offset
        let base = seconds == 0 ? "now" : seconds > 0 ? "now_plus_\(seconds)" : "now_minus_\(-seconds)"
        return base + (timestamp.milliseconds ? "_ms" : "")
    }
}
