import Foundation
internal import CXMLSec

/// Encrypts an element to a recipient's RSA key with libxmlsec1, SAML style: the element is
/// replaced by `<saml:EncryptedAssertion>` (or `EncryptedID`, …) holding `xenc:EncryptedData`
/// (`Type=…#Element`) whose `ds:KeyInfo` carries the `xenc:EncryptedKey` (saml-core-2.0-os
/// §2.2.4, §2.3.4; xmlenc-core §3).
///
/// Not byte-reproducible: the AES session key and IV come from OpenSSL's generator.
public struct XMLEncryptor: Sendable {
    public let recipient: PublicKey
    /// Written into the EncryptedKey's `ds:KeyInfo/ds:X509Data` when present, as Shibboleth
    /// IdP does, so the SP can pick its decryption key.
    public let recipientCertificate: Certificate?
    public var dataAlgorithm: DataEncryptionAlgorithm
    public var keyTransport: KeyTransportAlgorithm

    public init(recipientCertificate: Certificate, dataAlgorithm: DataEncryptionAlgorithm = .aes256GCM,
                keyTransport: KeyTransportAlgorithm = .rsaOAEP) {
        self.recipient = recipientCertificate.publicKey
        self.recipientCertificate = recipientCertificate
        self.dataAlgorithm = dataAlgorithm
        self.keyTransport = keyTransport
    }

    public init(recipient: PublicKey, dataAlgorithm: DataEncryptionAlgorithm = .aes256GCM,
                keyTransport: KeyTransportAlgorithm = .rsaOAEP) {
        self.recipient = recipient
        self.recipientCertificate = nil
        self.dataAlgorithm = dataAlgorithm
        self.keyTransport = keyTransport
    }

    /// Encrypts `element` in place; it is replaced by `<prefix:wrapperName>` in the SAML
    /// assertion namespace. Returns the wrapper.
    @discardableResult
    public func encrypt(_ element: XMLElement, wrapperName: String = "EncryptedAssertion") throws -> XMLElement {
        try XMLLibrary.ensureInitialized()
        guard recipient.kind == .rsa else {
            throw EncryptionError(.encryptionFailed, "key transport needs an RSA recipient key")
        }
        let doc = element.document.pointer
        let node = element.node
        guard node.pointee.parent != nil, node != xmlDocGetRootElement(doc) else {
            throw EncryptionError(.encryptionFailed, "cannot encrypt the root element")
        }
        // The ciphertext must stand alone: declare on the element every namespace in scope
        // (prefixes used inside it may be declared on an ancestor only). Exclusive c14n writes
        // only the namespaces used, so an enclosed signature stays valid.
        declareInScopeNamespaces(on: node, in: doc)
        guard let encData = xmlSecTmplEncDataCreate(doc, dataAlgorithm.transformID, nil,
                                                    "http://www.w3.org/2001/04/xmlenc#Element", nil, nil),
              xmlSecTmplEncDataEnsureCipherValue(encData) != nil,
              let keyInfo = xmlSecTmplEncDataEnsureKeyInfo(encData, nil),
              let encKey = xmlSecTmplKeyInfoAddEncryptedKey(keyInfo, keyTransport.transformID, nil, nil, nil),
              xmlSecTmplEncDataEnsureCipherValue(encKey) != nil else {
            throw EncryptionError(.encryptionFailed, "cannot build the EncryptedData template")
        }
        var templateOwned = true
        defer { if templateOwned { xmlFreeNode(encData) } }

        guard let manager = xmlSecKeysMngrCreate() else {
            throw EncryptionError(.encryptionFailed, "cannot create a keys manager")
        }
        defer { xmlSecKeysMngrDestroy(manager) }
        guard xmlSecOpenSSLAppDefaultKeysMngrInit(manager) >= 0 else {
            throw EncryptionError(.encryptionFailed, "cannot initialise the keys manager")
        }
        let transportKey = try recipient.makeXMLSecKey()
        guard xmlSecOpenSSLAppDefaultKeysMngrAdoptKey(manager, transportKey) >= 0 else {
            xmlSecKeyDestroy(transportKey)
            throw EncryptionError(.encryptionFailed, "cannot add the recipient key")
        }
        guard let ctx = xmlSecEncCtxCreate(manager) else {
            throw EncryptionError(.encryptionFailed, "cannot create an encryption context")
        }
        defer { xmlSecEncCtxDestroy(ctx) }
        // The manager holds the recipient's key alone, which the EncryptedKey written from this
        // context does not name: xmlsec 1.3 uses it only when asked to search (shim.h).
        ctx.pointee.keyInfoReadCtx.flags |= cxmlsec_lax_key_search()
        ctx.pointee.keyInfoWriteCtx.flags |= cxmlsec_lax_key_search()
        // `.init`: xmlSecSize is a macro for `unsigned int` in xmlsec 1.2 (Swift cannot name it) and
        // size_t in 1.3 (Homebrew's): the parameter's own type.
        guard let sessionKey = xmlSecKeyGenerate(xmlSecOpenSSLKeyDataAesGetKlass(), .init(dataAlgorithm.keyBits),
                                                 xmlSecKeyDataType(xmlSecKeyDataTypeSession)) else {
            throw EncryptionError(.encryptionFailed, "cannot generate the AES session key")
        }
        ctx.pointee.encKey = sessionKey
        XMLLibrary.clearLastXMLSecError()
        // xmlSecEncCtxXmlEncrypt replaces `node` by the filled template.
        if xmlSecEncCtxXmlEncrypt(ctx, encData, node) < 0 {
            let detail = XMLLibrary.takeLastXMLSecError() ?? "unknown error"
            throw EncryptionError(.encryptionFailed, "libxmlsec1 could not encrypt: \(detail)")
        }
        // The template is now in the tree, and libxmlsec1 freed the replaced element.
        templateOwned = false

        if let recipientCertificate {
            let encKeyInfo = xmlSecTmplEncDataEnsureKeyInfo(encKey, nil)
            if let encKeyInfo, let x509 = xmlSecTmplKeyInfoAddX509Data(encKeyInfo),
               let certNode = xmlSecAddChild(x509, "X509Certificate", SAMLNamespace.dsig) {
                xmlNodeSetContent(certNode, recipientCertificate.base64DER)
            }
        }
        // Wrap: <saml:EncryptedAssertion><xenc:EncryptedData/></saml:EncryptedAssertion>.
        guard let wrapper = xmlNewDocNode(doc, nil, wrapperName, nil) else {
            throw EncryptionError(.encryptionFailed, "cannot create \(wrapperName)")
        }
        let ns = xmlSearchNsByHref(doc, encData, SAMLNamespace.assertion)
            ?? xmlNewNs(wrapper, SAMLNamespace.assertion, "saml")
        xmlSetNs(wrapper, ns)
        xmlAddPrevSibling(encData, wrapper)
        xmlUnlinkNode(encData)
        xmlAddChild(wrapper, encData)
        return XMLElement(node: wrapper, document: element.document)
    }

    private func declareInScopeNamespaces(on node: xmlNodePtr, in doc: xmlDocPtr) {
        guard let list = xmlGetNsList(doc, node) else { return }
        defer { cxmlsec_xml_free(list) }
        var declared = Set<String>()
        var ns = node.pointee.nsDef
        while let n = ns {
            declared.insert(n.pointee.prefix.map { String(cString: $0) } ?? "")
            ns = n.pointee.next
        }
        var i = 0
        while let n = list[i] {
            let prefix = n.pointee.prefix.map { String(cString: $0) } ?? ""
            if !declared.contains(prefix), let href = n.pointee.href, prefix != "xml" {
                xmlNewNs(node, href, n.pointee.prefix)
                declared.insert(prefix)
            }
            i += 1
        }
    }
}
