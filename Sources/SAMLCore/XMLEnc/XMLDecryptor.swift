import Foundation
internal import CXMLSec

/// Decrypts `xenc:EncryptedData` (inside `EncryptedAssertion`, `EncryptedID`, …) with the
/// recipient's private key. The decrypted element replaces the wrapper in the document.
public struct XMLDecryptor: Sendable {
    public let keys: [PrivateKey]
    /// Data algorithms accepted (all by default).
    public var allowedDataAlgorithms: Set<DataEncryptionAlgorithm>
    /// Key transports accepted: RSA-OAEP only by default (RSA 1.5 is a padding-oracle risk).
    public var allowedKeyTransports: Set<KeyTransportAlgorithm>

    public init(keys: [PrivateKey],
                allowedDataAlgorithms: Set<DataEncryptionAlgorithm> = Set(DataEncryptionAlgorithm.allCases),
                allowedKeyTransports: Set<KeyTransportAlgorithm> = [.rsaOAEP]) {
        self.keys = keys
        self.allowedDataAlgorithms = allowedDataAlgorithms
        self.allowedKeyTransports = allowedKeyTransports
    }

    /// Decrypts the EncryptedData inside `wrapper` (for example `saml:EncryptedAssertion`) and
    /// replaces the wrapper with the plaintext element, which is returned.
    @discardableResult
    public func decrypt(_ wrapper: XMLElement) throws -> XMLElement {
        try XMLLibrary.ensureInitialized()
        guard let encData = wrapper.is("EncryptedData", SAMLNamespace.xenc) ? wrapper
                : wrapper.firstChild("EncryptedData", SAMLNamespace.xenc) else {
            throw EncryptionError(.malformed, "<\(wrapper.localName)> holds no xenc:EncryptedData")
        }
        let dataURI = encData.firstChild("EncryptionMethod", SAMLNamespace.xenc)?.attribute("Algorithm") ?? ""
        guard let dataAlgorithm = DataEncryptionAlgorithm(rawValue: dataURI), allowedDataAlgorithms.contains(dataAlgorithm) else {
            throw EncryptionError(.forbiddenAlgorithm, "data EncryptionMethod \"\(dataURI)\" is not allowed")
        }
        let encKeys = encData.descendants("EncryptedKey", SAMLNamespace.xenc)
            + (wrapper.isSameNode(as: encData) ? [] : wrapper.children("EncryptedKey", SAMLNamespace.xenc))
        for encKey in encKeys {
            let uri = encKey.firstChild("EncryptionMethod", SAMLNamespace.xenc)?.attribute("Algorithm") ?? ""
            guard let transport = KeyTransportAlgorithm(rawValue: uri), allowedKeyTransports.contains(transport) else {
                throw EncryptionError(.forbiddenAlgorithm, "key transport \"\(uri)\" is not allowed")
            }
        }
        var lastError = "no decryption key configured"
        for key in keys {
            do {
                return try decrypt(encData: encData, wrapper: wrapper, key: key)
            } catch let error as EncryptionError {
                lastError = error.message
            }
        }
        throw EncryptionError(.decryptionFailed, lastError)
    }

    private func decrypt(encData: XMLElement, wrapper: XMLElement, key: PrivateKey) throws -> XMLElement {
        guard let manager = xmlSecKeysMngrCreate() else {
            throw EncryptionError(.decryptionFailed, "cannot create a keys manager")
        }
        defer { xmlSecKeysMngrDestroy(manager) }
        guard xmlSecOpenSSLAppDefaultKeysMngrInit(manager) >= 0 else {
            throw EncryptionError(.decryptionFailed, "cannot initialise the keys manager")
        }
        let xkey = try key.makeXMLSecKey()
        guard xmlSecOpenSSLAppDefaultKeysMngrAdoptKey(manager, xkey) >= 0 else {
            xmlSecKeyDestroy(xkey)
            throw EncryptionError(.decryptionFailed, "cannot add the decryption key")
        }
        guard let ctx = xmlSecEncCtxCreate(manager) else {
            throw EncryptionError(.decryptionFailed, "cannot create a decryption context")
        }
        defer { xmlSecEncCtxDestroy(ctx) }
        // A certificate in KeyInfo only names the key; it is not a trust decision here.
        ctx.pointee.keyInfoReadCtx.flags |= UInt32(XMLSEC_KEYINFO_FLAGS_X509DATA_DONT_VERIFY_CERTS)
        // The manager holds the SP's key alone: xmlsec 1.3 uses it only when asked to search, and
        // only when no certificate in the EncryptedKey's KeyInfo stands in the way (shim.h).
        ctx.pointee.keyInfoReadCtx.flags |= cxmlsec_lax_key_search()
        guard cxmlsec_read_only_key_references(&ctx.pointee.keyInfoReadCtx) == 0 else {
            throw EncryptionError(.decryptionFailed, "cannot configure the decryption context")
        }
        // xmlsec looks up an EncryptedKey by reference through this element's document; keep
        // the EncryptedKey a child of KeyInfo or of the wrapper (saml-core §2.2.4 allows both).
        let parent = encData.node.pointee.parent
        let previous = encData.node.pointee.prev
        XMLLibrary.clearLastXMLSecError()
        if xmlSecEncCtxDecrypt(ctx, encData.node) < 0 || ctx.pointee.result == nil {
            let detail = XMLLibrary.takeLastXMLSecError() ?? "unknown error"
            throw EncryptionError(.decryptionFailed, "libxmlsec1 could not decrypt: \(detail)")
        }
        // The EncryptedData node was replaced by the plaintext node(s): find the element that
        // now sits where it was.
        var candidate = previous != nil ? previous!.pointee.next : parent?.pointee.children
        while let c = candidate, c.pointee.type != XML_ELEMENT_NODE {
            candidate = c.pointee.next
        }
        guard let plain = candidate else {
            throw EncryptionError(.decryptionFailed, "decryption produced no element")
        }
        if !wrapper.isSameNode(as: encData) {
            // Move the plaintext element out of the wrapper and drop the wrapper.
            xmlUnlinkNode(plain)
            xmlAddPrevSibling(wrapper.node, plain)
            xmlUnlinkNode(wrapper.node)
            xmlFreeNode(wrapper.node)
        }
        // Namespace declarations of the plaintext may now dangle: reconcile against the tree.
        xmlReconciliateNs(encData.document.pointer, plain)
        return XMLElement(node: plain, document: encData.document)
    }
}
