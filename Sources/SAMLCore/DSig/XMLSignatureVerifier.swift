import Foundation
internal import CXMLSec

/// What a successful verification established.
public struct VerifiedSignature: Sendable, Equatable {
    /// The ID the single Reference points at (the element that was verified).
    public let referencedID: String
    public let algorithm: SignatureAlgorithm
    public let digest: DigestAlgorithm
    /// Index into ``XMLSignatureVerifier/trustedKeys`` of the key that verified it.
    public let keyIndex: Int
}

/// Verifies an enveloped signature on one element against configured trusted keys only.
///
/// Hardened the way NOTES-xmlsec.md describes: the key is preset (a certificate in
/// `KeyInfo` is never used to verify — only, afterwards, to explain a failure); Reference
/// URIs are same-document only; transforms and algorithms are allow-listed; exactly one
/// Reference, pointing at the element being verified, whose ID is unique in the document.
/// `xmlSecDSigCtxVerify` returns 0 for a bad signature too: success is judged on
/// `status == xmlSecDSigStatusSucceeded`.
public struct XMLSignatureVerifier: Sendable {
    public let trustedKeys: [PublicKey]
    /// SHA-1 signature and digest methods (refused by default: a deliberate downgrade).
    public var allowSHA1: Bool

    /// Transforms a SAML signature may use (saml-core-2.0-os §5.4.4): enveloped signature and
    /// c14n. XSLT, XPath, XPath Filter 2 and XPointer are refused.
    public static let allowedTransforms: Set<String> = [
        "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
        CanonicalizationMethod.exclusive.rawValue,
        CanonicalizationMethod.exclusiveWithComments.rawValue,
        CanonicalizationMethod.inclusive.rawValue,
        CanonicalizationMethod.inclusiveWithComments.rawValue,
    ]

    public init(trustedKeys: [PublicKey], allowSHA1: Bool = false) {
        self.trustedKeys = trustedKeys
        self.allowSHA1 = allowSHA1
    }

    public init(trustedCertificates: [Certificate], allowSHA1: Bool = false) {
        self.init(trustedKeys: trustedCertificates.map(\.publicKey), allowSHA1: allowSHA1)
    }

    /// The `ds:Signature` children of `element` (enveloped signatures only).
    public static func signatureElement(of element: XMLElement) -> XMLElement? {
        element.firstChild("Signature", SAMLNamespace.dsig)
    }

    /// Verifies the signature enveloped in `element` and that it covers exactly `element`.
    public func verify(_ element: XMLElement) throws -> VerifiedSignature {
        try XMLLibrary.ensureInitialized()
        let signatures = element.children("Signature", SAMLNamespace.dsig)
        guard let signature = signatures.first else {
            throw SignatureError(.missing, "<\(element.localName)> is not signed")
        }
        if signatures.count > 1 {
            throw SignatureError(.malformed, "<\(element.localName)> carries \(signatures.count) Signature elements")
        }
        let duplicates = element.document.registerIDs()
        if !duplicates.isEmpty {
            throw SignatureError(.duplicateID, "ID \"\(duplicates.sorted().joined(separator: "\", \""))\" occurs more than once in the document")
        }
        guard let ownID = element.attribute("ID") ?? element.attribute("AssertionID") else {
            throw SignatureError(.malformed, "<\(element.localName)> has no ID attribute, so nothing can reference it")
        }
        let (algorithm, digest, uri) = try checkSignedInfo(signature)
        let expected = "#" + ownID
        guard uri == expected else {
            let target = uri.isEmpty ? "the whole document (URI=\"\")" : uri
            throw SignatureError(.wrongReference, "the signature in <\(element.localName) ID=\"\(ownID)\"> references \(target), not \(expected)")
        }
        guard let resolved = element.document.element(withID: ownID), resolved.isSameNode(as: element) else {
            throw SignatureError(.wrongReference, "\(expected) does not resolve to the element carrying the signature")
        }

        var digestFailed = false
        for (index, key) in trustedKeys.enumerated() {
            switch try runXMLSec(signature: signature, key: key) {
            case .valid:
                return VerifiedSignature(referencedID: ownID, algorithm: algorithm, digest: digest, keyIndex: index)
            case .digestMismatch:
                digestFailed = true
            case .signatureMismatch, .unusableKey:
                continue
            }
        }
        if digestFailed {
            throw SignatureError(.invalid, "the digest of \(expected) does not match: the signed content was changed after signing")
        }
        if let embedded = embeddedCertificate(signature),
           case .valid = try runXMLSec(signature: signature, key: embedded.publicKey) {
            throw SignatureError(.untrustedKey, "signed with the key of the certificate in its own KeyInfo (\(embedded.subject)), which is not the trusted key")
        }
        throw SignatureError(.invalid, "the SignatureValue does not verify with the trusted key\(trustedKeys.count == 1 ? "" : "s")")
    }

    private func checkSignedInfo(_ signature: XMLElement) throws -> (SignatureAlgorithm, DigestAlgorithm, String) {
        guard let signedInfo = signature.firstChild("SignedInfo", SAMLNamespace.dsig) else {
            throw SignatureError(.malformed, "Signature has no SignedInfo")
        }
        let c14n = signedInfo.firstChild("CanonicalizationMethod", SAMLNamespace.dsig)?.attribute("Algorithm") ?? ""
        guard CanonicalizationMethod(rawValue: c14n) != nil else {
            throw SignatureError(.forbiddenTransform, "CanonicalizationMethod \"\(c14n)\" is not a c14n method SAML allows")
        }
        let methodURI = signedInfo.firstChild("SignatureMethod", SAMLNamespace.dsig)?.attribute("Algorithm") ?? ""
        guard let algorithm = SignatureAlgorithm(rawValue: methodURI) else {
            throw SignatureError(.forbiddenAlgorithm, "SignatureMethod \"\(methodURI)\" is not allowed")
        }
        if algorithm.usesSHA1 && !allowSHA1 {
            throw SignatureError(.forbiddenAlgorithm, "SignatureMethod rsa-sha1 is refused (SHA-1 downgrade); allow it explicitly to accept")
        }
        let references = signedInfo.children("Reference", SAMLNamespace.dsig)
        guard references.count == 1, let reference = references.first else {
            throw SignatureError(.referenceCount, "SignedInfo has \(references.count) References; exactly one is allowed")
        }
        let digestURI = reference.firstChild("DigestMethod", SAMLNamespace.dsig)?.attribute("Algorithm") ?? ""
        guard let digest = DigestAlgorithm(rawValue: digestURI) else {
            throw SignatureError(.forbiddenAlgorithm, "DigestMethod \"\(digestURI)\" is not allowed")
        }
        if digest.usesSHA1 && !allowSHA1 {
            throw SignatureError(.forbiddenAlgorithm, "DigestMethod sha1 is refused (SHA-1 downgrade); allow it explicitly to accept")
        }
        for transform in reference.firstChild("Transforms", SAMLNamespace.dsig)?.children("Transform", SAMLNamespace.dsig) ?? [] {
            let uri = transform.attribute("Algorithm") ?? ""
            if !Self.allowedTransforms.contains(uri) {
                throw SignatureError(.forbiddenTransform, "Transform \"\(uri)\" is not allowed in a SAML signature")
            }
        }
        return (algorithm, digest, reference.attribute("URI") ?? "")
    }

    private func embeddedCertificate(_ signature: XMLElement) -> Certificate? {
        guard let text = signature.firstChild("KeyInfo", SAMLNamespace.dsig)?
            .firstChild("X509Data", SAMLNamespace.dsig)?
            .firstChild("X509Certificate", SAMLNamespace.dsig)?.text else { return nil }
        return try? Certificate.cached(base64DER: text)
    }

    private enum Outcome { case valid, digestMismatch, signatureMismatch, unusableKey }

    private func runXMLSec(signature: XMLElement, key: PublicKey) throws -> Outcome {
        guard let ctx = xmlSecDSigCtxCreate(nil) else {
            throw SignatureError(.malformed, "cannot create a signature context")
        }
        defer { xmlSecDSigCtxDestroy(ctx) }
        ctx.pointee.signKey = try key.makeXMLSecKey()
        ctx.pointee.enabledReferenceUris = xmlSecTransformUriType(xmlSecTransformUriTypeSameDocument)
        for klass in [xmlSecTransformEnvelopedGetKlass(), xmlSecTransformExclC14NGetKlass(),
                      xmlSecTransformExclC14NWithCommentsGetKlass(), xmlSecTransformInclC14NGetKlass(),
                      xmlSecTransformInclC14NWithCommentsGetKlass()] + DigestAlgorithm.allCases.map(\.transformID) {
            xmlSecDSigCtxEnableReferenceTransform(ctx, klass)
        }
        for klass in [xmlSecTransformExclC14NGetKlass(), xmlSecTransformExclC14NWithCommentsGetKlass(),
                      xmlSecTransformInclC14NGetKlass(), xmlSecTransformInclC14NWithCommentsGetKlass()]
            + SignatureAlgorithm.allCases.map(\.transformID) {
            xmlSecDSigCtxEnableSignatureTransform(ctx, klass)
        }
        XMLLibrary.clearLastXMLSecError()
        if xmlSecDSigCtxVerify(ctx, signature.node) < 0 {
            _ = XMLLibrary.takeLastXMLSecError()
            return .unusableKey
        }
        if ctx.pointee.status == xmlSecDSigStatusSucceeded {
            return .valid
        }
        // The list lives inside the heap-allocated context: address it by field offset.
        let offset = MemoryLayout<xmlSecDSigCtx>.offset(of: \xmlSecDSigCtx.signedInfoReferences)!
        let refs = (UnsafeMutableRawPointer(ctx) + offset).assumingMemoryBound(to: xmlSecPtrList.self)
        for i in 0..<xmlSecPtrListGetSize(refs) {
            guard let raw = xmlSecPtrListGetItem(refs, i) else { continue }
            let ref = raw.assumingMemoryBound(to: xmlSecDSigReferenceCtx.self)
            if ref.pointee.status != xmlSecDSigStatusSucceeded {
                return .digestMismatch
            }
        }
        return .signatureMismatch
    }
}
