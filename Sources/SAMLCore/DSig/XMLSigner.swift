import Foundation
internal import CXMLSec

/// Makes enveloped XML signatures with libxmlsec1, the way SAML IdPs and SPs sign:
/// `Reference URI="#ID"` to the signed element, the enveloped-signature and exclusive c14n
/// transforms, the `ds:Signature` placed right after `saml:Issuer` (saml-core-2.0-os §5.4.1–5.4.4).
///
/// ```swift
/// let signer = XMLSigner(key: idpKey, certificate: idpCert)
/// let signed = try signer.sign(xml: responseXML, elementIDs: [assertionID, responseID])
/// ```
public struct XMLSigner: Sendable {
    public let key: PrivateKey
    /// Written into `ds:KeyInfo/ds:X509Data/ds:X509Certificate` when present.
    public let certificate: Certificate?
    public var algorithm: SignatureAlgorithm
    public var digest: DigestAlgorithm
    /// `CanonicalizationMethod` of SignedInfo and the c14n transform of the Reference.
    public var canonicalization: CanonicalizationMethod
    /// Exclusive c14n InclusiveNamespaces PrefixList on the Reference's transform (e.g.
    /// `["xs", "xsi"]`, as Shibboleth IdP writes when attribute values are typed).
    public var inclusiveNamespacePrefixes: [String]
    /// Resolve `URI="#ID"` through the registered ID rather than an XPointer (same bytes, less
    /// work; see `signRegistered`). Off only in tests that compare the two.
    var resolvesIDsDirectly = true

    public init(key: PrivateKey, certificate: Certificate? = nil,
                algorithm: SignatureAlgorithm? = nil, digest: DigestAlgorithm? = nil,
                canonicalization: CanonicalizationMethod = .exclusive,
                inclusiveNamespacePrefixes: [String] = []) {
        self.key = key
        self.certificate = certificate
        let algo = algorithm ?? (key.kind == .ec ? .ecdsaSha256 : .rsaSha256)
        self.algorithm = algo
        self.digest = digest ?? algo.defaultDigest
        self.canonicalization = canonicalization
        self.inclusiveNamespacePrefixes = inclusiveNamespacePrefixes
    }

    /// Parses `xml`, signs the elements with these IDs in the order given (sign the inner
    /// Assertion before the outer Response), and returns the serialised result.
    public func sign(xml: String, elementIDs: [String], limits: XMLParsingLimits = .default) throws -> String {
        let doc = try XMLDocument(parsing: xml, limits: limits)
        for id in elementIDs {
            try sign(elementWithID: id, in: doc)
        }
        return doc.serializedString()
    }

    /// Signs the element of `document` whose `ID` attribute is `id`.
    public func sign(elementWithID id: String, in document: XMLDocument) throws {
        let duplicates = document.registerIDs()
        if duplicates.contains(id) {
            throw SignatureError(.duplicateID, "two elements carry ID \"\(id)\"")
        }
        guard let element = document.element(withID: id) else {
            throw SignatureError(.signingFailed, "no element with ID \"\(id)\" to sign")
        }
        try signRegistered(element)
    }

    /// Signs `element` (it must carry an `ID` attribute) with an enveloped signature.
    public func sign(_ element: XMLElement) throws {
        element.document.registerIDs()
        try signRegistered(element)
    }

    /// Signs `element`, whose document's IDs are already registered (the Reference must resolve).
    private func signRegistered(_ element: XMLElement) throws {
        try XMLLibrary.ensureInitialized()
        guard key.kind == algorithm.keyKind else {
            throw SignatureError(.signingFailed, "a \(key.kind.rawValue) key cannot make \(algorithm.shortName) signatures")
        }
        guard let id = element.attribute("ID") ?? element.attribute("AssertionID") else {
            throw SignatureError(.signingFailed, "<\(element.localName)> has no ID attribute to reference")
        }
        let doc = element.document.pointer
        guard let sig = xmlSecTmplSignatureCreateNsPref(doc, canonicalization.transformID, algorithm.transformID, nil, "ds") else {
            throw SignatureError(.signingFailed, "cannot create the Signature template")
        }
        // saml-core-2.0-os §5.4.1 / schema: ds:Signature follows saml:Issuer.
        let node = element.node
        if let first = element.children.first {
            if first.localName == "Issuer" {
                xmlAddNextSibling(first.node, sig)
            } else {
                xmlAddPrevSibling(first.node, sig)
            }
        } else {
            xmlAddChild(node, sig)
        }
        guard let ref = xmlSecTmplSignatureAddReference(sig, digest.transformID, nil, "#" + id, nil),
              xmlSecTmplReferenceAddTransform(ref, xmlSecTransformEnvelopedGetKlass()) != nil,
              let c14n = xmlSecTmplReferenceAddTransform(ref, canonicalization.transformID) else {
            xmlUnlinkNode(sig)
            xmlFreeNode(sig)
            throw SignatureError(.signingFailed, "cannot build the Reference")
        }
        if !inclusiveNamespacePrefixes.isEmpty {
            xmlSecTmplTransformAddC14NInclNamespaces(c14n, inclusiveNamespacePrefixes.joined(separator: " "))
        }
        guard let ctx = xmlSecDSigCtxCreate(nil) else {
            throw SignatureError(.signingFailed, "cannot create a signature context")
        }
        defer { xmlSecDSigCtxDestroy(ctx) }
        // `URI="#ID"` resolved by xmlGetID on the registered ID, not by evaluating the XPointer
        // `id('ID')` (which builds an XPath context with every XPath function registered, per
        // reference: issue 25's profile). Both select the element's subtree without comments
        // (xmldsig-core §4.4.3.3), so the digest and the signature are the same bytes
        // (XMLSignatureTests compares them). Kept to the methods without comments, where that
        // sameness is tested. Only for signing: verification keeps the XPointer path.
        if resolvesIDsDirectly, !canonicalization.withComments {
            ctx.pointee.flags |= UInt32(XMLSEC_DSIG_FLAGS_USE_VISA3D_HACK)
        }
        ctx.pointee.signKey = try key.makeXMLSecKey()
        XMLLibrary.clearLastXMLSecError()
        if xmlSecDSigCtxSign(ctx, sig) < 0 {
            let detail = XMLLibrary.takeLastXMLSecError() ?? "unknown error"
            xmlUnlinkNode(sig)
            xmlFreeNode(sig)
            throw SignatureError(.signingFailed, "libxmlsec1 could not sign #\(id): \(detail)")
        }
        // KeyInfo is outside SignedInfo: written after signing, from the certificate's DER,
        // so the key stays bare and signing stays fast (NOTES-xmlsec.md, "Cost").
        if let certificate {
            guard let keyInfo = xmlSecTmplSignatureEnsureKeyInfo(sig, nil),
                  let x509Data = xmlSecTmplKeyInfoAddX509Data(keyInfo),
                  let certNode = xmlSecAddChild(x509Data, "X509Certificate", SAMLNamespace.dsig) else {
                throw SignatureError(.signingFailed, "cannot add KeyInfo")
            }
            xmlNodeSetContent(certNode, certificate.base64DER)
        }
    }
}

extension CanonicalizationMethod {
    var transformID: xmlSecTransformId {
        switch self {
        case .exclusive: xmlSecTransformExclC14NGetKlass()
        case .exclusiveWithComments: xmlSecTransformExclC14NWithCommentsGetKlass()
        case .inclusive: xmlSecTransformInclC14NGetKlass()
        case .inclusiveWithComments: xmlSecTransformInclC14NWithCommentsGetKlass()
        }
    }
}
