/// Anti-wrapping structure rules (Somorovsky et al., "On Breaking SAML", 2012: XSW1–XSW8).
/// Every wrapping attack moves the signed element somewhere the verifier still finds it but
/// the consumer does not read, and puts an unsigned one where the consumer reads. So: one
/// Response (the root), assertions only as its direct children, none nested anywhere else,
/// and if several are present (for an SP that consumes one), a signed one behind an unsigned
/// one is named as wrapping. An SP that consumes every assertion (Shibboleth) judges each on
/// its own instead, so an unsigned one is skipped, not taken for the signed one.
enum StructureCheck {
    static func check(_ root: XMLElement, verifier: XMLSignatureVerifier, oneAssertion: Bool = true) throws {
        var hidden: [XMLElement] = []
        root.walk { element in
            guard !element.isSameNode(as: root) else { return }
            let isAssertion = element.is("Assertion", SAMLNamespace.assertion) || element.is("EncryptedAssertion", SAMLNamespace.assertion)
            let isResponse = element.is("Response", SAMLNamespace.protocol_)
            if isResponse { hidden.append(element); return }
            if isAssertion, let parent = element.parent, !parent.isSameNode(as: root) { hidden.append(element) }
        }
        if let first = hidden.first {
            let path = ancestry(of: first)
            throw ValidationFailure(.signatureWrapping, "a \(first.localName) element is hidden at \(path): the signed element has been moved out of the place the SP reads (signature wrapping)", line: first.line)
        }
        let direct = root.children("Assertion", SAMLNamespace.assertion)
        if direct.count > 1, oneAssertion {
            let consumed = direct[0]
            let consumedSigned = (try? verifier.verify(consumed)) != nil
            if !consumedSigned, let signed = direct.dropFirst().first(where: { (try? verifier.verify($0)) != nil }) {
                throw ValidationFailure(.signatureWrapping, "the signed Assertion \(signed.attribute("ID") ?? "?") (line \(signed.line)) is not the one an SP consumes first, \(consumed.attribute("ID") ?? "?") (line \(consumed.line)), which is unsigned (signature wrapping)", line: consumed.line)
            }
            // A Signature inside one assertion whose Reference points at a sibling assertion.
            for assertion in direct {
                guard let signature = XMLSignatureVerifier.signatureElement(of: assertion),
                      let uri = signature.firstChild("SignedInfo", SAMLNamespace.dsig)?
                        .firstChild("Reference", SAMLNamespace.dsig)?.attribute("URI"),
                      uri != "#" + (assertion.attribute("ID") ?? ""),
                      let target = direct.first(where: { "#" + ($0.attribute("ID") ?? "") == uri }) else { continue }
                throw ValidationFailure(.signatureWrapping, "the Signature inside Assertion \(assertion.attribute("ID") ?? "?") (line \(assertion.line)) covers the other Assertion \(target.attribute("ID") ?? "?") (line \(target.line)) (signature wrapping)", line: assertion.line)
            }
        }
    }

    /// A decrypted assertion must be a plain Assertion with no assertion or response inside.
    static func checkDecrypted(_ assertion: XMLElement) throws {
        guard assertion.is("Assertion", SAMLNamespace.assertion) else {
            throw ValidationFailure(.responseMalformed, "the EncryptedAssertion decrypted to \(assertion.localName), not saml:Assertion", line: assertion.line)
        }
        var nested: XMLElement?
        assertion.walk { element in
            if nested == nil, !element.isSameNode(as: assertion),
               element.is("Assertion", SAMLNamespace.assertion) || element.is("Response", SAMLNamespace.protocol_) {
                nested = element
            }
        }
        if let nested {
            throw ValidationFailure(.signatureWrapping, "the decrypted Assertion hides another \(nested.localName) at \(ancestry(of: nested)) (signature wrapping)", line: nested.line)
        }
    }

    static func ancestry(of element: XMLElement) -> String {
        var names: [String] = []
        var current: XMLElement? = element
        while let c = current {
            names.append(c.localName)
            current = c.parent
        }
        return "/" + names.reversed().joined(separator: "/")
    }
}
