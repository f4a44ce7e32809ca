internal import CXMLSec

/// XML canonicalization methods (the ones SAML uses).
public enum CanonicalizationMethod: String, Sendable, CaseIterable {
    /// Exclusive XML Canonicalization 1.0, without comments — what SAML signs with.
    case exclusive = "http://www.w3.org/2001/10/xml-exc-c14n#"
    /// Exclusive XML Canonicalization 1.0, with comments.
    case exclusiveWithComments = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"
    /// Canonical XML 1.0 (inclusive), without comments.
    case inclusive = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
    /// Canonical XML 1.0 (inclusive), with comments.
    case inclusiveWithComments = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"

    var libxmlMode: Int32 {
        switch self {
        case .exclusive, .exclusiveWithComments: Int32(XML_C14N_EXCLUSIVE_1_0.rawValue)
        case .inclusive, .inclusiveWithComments: Int32(XML_C14N_1_0.rawValue)
        }
    }

    var withComments: Bool {
        self == .exclusiveWithComments || self == .inclusiveWithComments
    }
}

extension XMLDocument {
    /// Canonicalises the whole document.
    ///
    /// `inclusiveNamespaces` is exclusive c14n's InclusiveNamespaces PrefixList (xml-exc-c14n
    /// §3): prefixes treated as inclusive c14n would, `#default` for the default namespace.
    public func canonicalized(_ method: CanonicalizationMethod = .exclusive,
                              inclusiveNamespaces: [String] = []) throws -> [UInt8] {
        try canonicalize(nodes: nil, method: method, inclusiveNamespaces: inclusiveNamespaces)
    }

    func canonicalize(nodes: xmlNodeSetPtr?, method: CanonicalizationMethod,
                      inclusiveNamespaces: [String]) throws -> [UInt8] {
        // libxml2 takes the prefix list as a NULL-terminated array of C strings; "#default"
        // is spelled as an empty-prefix marker by the spec and passed through unchanged.
        var cStrings: [UnsafeMutablePointer<xmlChar>?] = inclusiveNamespaces.map { prefix in
            xmlStrdup(prefix)
        }
        cStrings.append(nil)
        defer { for p in cStrings { cxmlsec_xml_free(p) } }
        var out: UnsafeMutablePointer<xmlChar>?
        let count = cStrings.withUnsafeMutableBufferPointer { buffer in
            xmlC14NDocDumpMemory(pointer, nodes, method.libxmlMode,
                                 inclusiveNamespaces.isEmpty ? nil : buffer.baseAddress,
                                 method.withComments ? 1 : 0, &out)
        }
        defer { cxmlsec_xml_free(out) }
        guard count >= 0, let out else {
            throw XMLError(.library, "canonicalization failed")
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(count)))
    }
}

extension XMLElement {
    /// Canonicalises this element and its subtree (a document subset, as a Reference to
    /// `#ID` with the enveloped-signature transform removed would see it, less that transform).
    public func canonicalized(_ method: CanonicalizationMethod = .exclusive,
                              inclusiveNamespaces: [String] = []) throws -> [UInt8] {
        // The node set of an element subtree: the element, its descendants, their attributes
        // and in-scope namespace nodes, built with libxml2's XPath.
        guard let ctx = xmlXPathNewContext(document.pointer) else {
            throw XMLError(.library, "xmlXPathNewContext failed")
        }
        defer { xmlXPathFreeContext(ctx) }
        ctx.pointee.node = node
        guard let result = xmlXPathEvalExpression("(. | .//node() | .//@* | .//namespace::*)", ctx) else {
            throw XMLError(.library, "XPath for the subtree failed")
        }
        defer { xmlXPathFreeObject(result) }
        return try document.canonicalize(nodes: result.pointee.nodesetval, method: method,
                                         inclusiveNamespaces: inclusiveNamespaces)
    }
}
