import Foundation

/// Edits of a signed document that the attack generators need beyond what ``XMLSigner``
/// makes on purpose (it only writes what SAML allows): signatures removed, a Reference's
/// transforms rewritten and its SignedInfo signed again, a comment slipped into a text node.
enum SignatureTampering {
    /// Every `ds:Signature` removed (signature exclusion).
    static func removingSignatures(_ xml: String) throws -> String {
        let document = try XMLDocument(parsing: xml)
        var signatures: [XMLElement] = []
        document.root.walk { element in
            if element.is("Signature", SAMLNamespace.dsig) { signatures.append(element) }
        }
        // Reverse document order: a nested Signature is removed before the one holding it.
        for signature in signatures.reversed() { signature.remove() }
        return document.serializedString()
    }

    /// Replaces the one Reference's `ds:Transforms` and `ds:DigestValue` in `xml` (a document
    /// with exactly one signature), then signs its SignedInfo again with `signer`'s key, so
    /// the SignatureValue is genuine over the new SignedInfo.
    ///
    /// xmldsig-core §4.4.3.2: the digest is computed over the output of the transforms, so a
    /// transform that discards the content (an XPath filter selecting nothing, an XSLT that
    /// prints a constant) leaves the digest — and the signature — independent of it.
    static func rewritingReference(_ xml: String, transforms: String, digestValue: String,
                                   signer: XMLSigner) throws -> String {
        var text = xml
        text = try replacingOnly(in: text, from: "<ds:Transforms>", to: "</ds:Transforms>", with: transforms)
        text = try replacingOnly(in: text, from: "<ds:DigestValue>", to: "</ds:DigestValue>",
                                 with: "<ds:DigestValue>\(digestValue)</ds:DigestValue>")
        return try resigningSignedInfo(text, signer: signer)
    }

    /// Signs the (only) SignedInfo of `xml` again, as xmldsig-core §3.1.2 does: exclusive
    /// c14n of SignedInfo, then the signature method over those octets.
    static func resigningSignedInfo(_ xml: String, signer: XMLSigner) throws -> String {
        let document = try XMLDocument(parsing: xml)
        var signedInfo: XMLElement?
        var signatureValue: XMLElement?
        document.root.walk { element in
            if signedInfo == nil, element.is("SignedInfo", SAMLNamespace.dsig) { signedInfo = element }
            if signatureValue == nil, element.is("SignatureValue", SAMLNamespace.dsig) { signatureValue = element }
        }
        guard let signedInfo, let signatureValue else {
            throw SAMLError(.missingElement, "no SignedInfo / SignatureValue to sign again")
        }
        let method = CanonicalizationMethod(rawValue: signedInfo.firstChild("CanonicalizationMethod", SAMLNamespace.dsig)?
            .attribute("Algorithm") ?? "") ?? .exclusive
        let octets = try signedInfo.canonicalized(method)
        let value = try RedirectSigner(key: signer.key, algorithm: signer.algorithm).sign(octets)
        signatureValue.setText(Data(value).base64EncodedString())
        return document.serializedString()
    }

    /// `xml` with the one span from `from` through `to` replaced; throws unless there is
    /// exactly one.
    static func replacingOnly(in xml: String, from: String, to: String, with replacement: String) throws -> String {
        guard let start = xml.range(of: from), let end = xml.range(of: to, range: start.upperBound..<xml.endIndex) else {
            throw SAMLError(.missingElement, "\(from) not found")
        }
        if xml.range(of: from, range: end.upperBound..<xml.endIndex) != nil {
            throw SAMLError(.invalidValue, "\(from) occurs more than once")
        }
        return String(xml[..<start.lowerBound]) + replacement + String(xml[end.upperBound...])
    }
}
