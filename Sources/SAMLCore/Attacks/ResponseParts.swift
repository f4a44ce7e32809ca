import Foundation

/// A signed Response taken apart into the pieces of XML text the attack generators put back
/// together in another order (the way SAML Raider and the XSW papers describe the shapes).
struct ResponseParts {
    /// `<samlp:Response …>`, the start tag as serialised (namespace declarations included).
    let start: String
    /// `</samlp:Response>`.
    let end: String
    let issuer: String
    let status: String
    /// The first Assertion as serialised (with its Signature, when signed).
    let assertion: String
    let assertionID: String
    /// The Assertion's enveloped `ds:Signature`, when it has one.
    let assertionSignature: String?

    init(_ xml: String) throws {
        let document = try XMLDocument(parsing: xml)
        let root = document.root
        guard let assertion = root.firstChild("Assertion", SAMLNamespace.assertion) else {
            throw SAMLError(.missingElement, "the Response has no plaintext Assertion")
        }
        let rootXML = Self.text(root)
        guard let close = rootXML.firstIndex(of: ">") else {
            throw SAMLError(.invalidValue, "the Response start tag cannot be found")
        }
        start = String(rootXML[...close])
        end = "</\(root.prefix.map { "\($0):" } ?? "")Response>"
        issuer = root.firstChild("Issuer", SAMLNamespace.assertion).map(Self.text) ?? ""
        status = root.firstChild("Status", SAMLNamespace.protocol_).map(Self.text) ?? ""
        self.assertion = Self.text(assertion)
        assertionID = assertion.attribute("ID") ?? ""
        assertionSignature = XMLSignatureVerifier.signatureElement(of: assertion).map(Self.text)
    }

    /// The Assertion with its Signature taken out.
    var unsignedAssertion: String {
        assertionSignature.map { assertion.replacingOccurrences(of: $0, with: "") } ?? assertion
    }

    /// The unsigned Assertion made out to `nameID`, with ID `id` (default: a new one derived
    /// from the original, so nothing collides).
    func evilAssertion(nameID original: String, as evil: String, id: String? = nil) -> String {
        unsignedAssertion
            .replacingOccurrences(of: ">\(XMLWriter.escapeText(original))</", with: ">\(XMLWriter.escapeText(evil))</")
            .replacingOccurrences(of: "ID=\"\(assertionID)\"", with: "ID=\"\(id ?? assertionID + "-evil")\"")
    }

    /// `xml` with `insert` right after the first `saml:Issuer` element (where saml-core's
    /// schema puts `ds:Signature`).
    static func insertAfterIssuer(_ xml: String, _ insert: String) -> String {
        guard let end = xml.range(of: "</saml:Issuer>")?.upperBound else { return xml }
        return String(xml[..<end]) + insert + String(xml[end...])
    }

    static func text(_ element: XMLElement) -> String {
        String(decoding: element.serialized(), as: UTF8.self)
    }
}
