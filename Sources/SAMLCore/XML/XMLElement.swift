internal import CXMLSec

/// An element of a parsed ``XMLDocument``. Keeps its document alive; not `Sendable`.
public struct XMLElement {
    let node: xmlNodePtr
    /// The document this element belongs to.
    public let document: XMLDocument

    init(node: xmlNodePtr, document: XMLDocument) {
        self.node = node
        self.document = document
    }

    /// The local name, without prefix.
    public var localName: String { String(cString: node.pointee.name) }

    /// The namespace URI, if the element is in a namespace.
    public var namespaceURI: String? {
        guard let ns = node.pointee.ns, let href = ns.pointee.href else { return nil }
        return String(cString: href)
    }

    /// The prefix as written, if any.
    public var prefix: String? {
        guard let ns = node.pointee.ns, let p = ns.pointee.prefix else { return nil }
        return String(cString: p)
    }

    /// The line the element starts on in the parsed input.
    public var line: Int { Int(xmlGetLineNo(node)) }

    /// True when the element has this local name and namespace.
    public func `is`(_ localName: String, _ namespaceURI: String) -> Bool {
        self.localName == localName && self.namespaceURI == namespaceURI
    }

    /// The value of an attribute without namespace (SAML's attributes are unqualified), or of
    /// a namespaced one when `namespace` is given.
    public func attribute(_ name: String, namespace: String? = nil) -> String? {
        let value: UnsafeMutablePointer<xmlChar>?
        if let namespace {
            value = xmlGetNsProp(node, name, namespace)
        } else {
            value = xmlGetNoNsProp(node, name)
        }
        guard let value else { return nil }
        defer { cxmlsec_xml_free(value) }
        return String(cString: value)
    }

    /// Every attribute, in document order: (namespace URI, local name, value).
    public var attributes: [(namespaceURI: String?, name: String, value: String)] {
        var result: [(String?, String, String)] = []
        var attr = node.pointee.properties
        while let a = attr {
            let name = String(cString: a.pointee.name)
            let ns = a.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) }
            let value = ns == nil ? attribute(name) : attribute(name, namespace: ns)
            result.append((ns, name, value ?? ""))
            attr = a.pointee.next
        }
        return result
    }

    /// Child elements, in document order (text, comments and PIs skipped).
    public var children: [XMLElement] {
        var result: [XMLElement] = []
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE {
                result.append(XMLElement(node: c, document: document))
            }
            child = c.pointee.next
        }
        return result
    }

    /// Child elements with this name and namespace.
    public func children(_ localName: String, _ namespaceURI: String) -> [XMLElement] {
        children.filter { $0.is(localName, namespaceURI) }
    }

    /// The first child element with this name and namespace.
    public func firstChild(_ localName: String, _ namespaceURI: String) -> XMLElement? {
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE {
                let e = XMLElement(node: c, document: document)
                if e.is(localName, namespaceURI) { return e }
            }
            child = c.pointee.next
        }
        return nil
    }

    /// The parent element, if any.
    public var parent: XMLElement? {
        guard let p = node.pointee.parent, p.pointee.type == XML_ELEMENT_NODE else { return nil }
        return XMLElement(node: p, document: document)
    }

    /// The text of the element read canonically: every text node of the element and its
    /// descendants, concatenated in document order; comments and processing instructions are
    /// skipped, never treated as the end of the value.
    ///
    /// This is how a NameID must be read: `<NameID>admin@evil.com<!---->.example.org</NameID>`
    /// is `admin@evil.com.example.org`, not `admin@evil.com` (CVE-2017-11427 and siblings).
    public var text: String {
        var bytes: [UInt8] = []
        collectText(node, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text of the first text node only — the way the vulnerable libraries read NameID.
    /// Kept so the harness can show what a naive consumer would have seen.
    public var firstTextNode: String {
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_TEXT_NODE || c.pointee.type == XML_CDATA_SECTION_NODE,
               let content = c.pointee.content {
                return String(cString: content)
            }
            child = c.pointee.next
        }
        return ""
    }

    /// True when a comment sits among this element's descendants.
    public var containsComment: Bool {
        var found = false
        walkNodes(node) { if $0.pointee.type == XML_COMMENT_NODE { found = true } }
        return found
    }

    private func collectText(_ start: xmlNodePtr, into bytes: inout [UInt8]) {
        walkNodes(start) { n in
            if n.pointee.type == XML_TEXT_NODE || n.pointee.type == XML_CDATA_SECTION_NODE,
               let content = n.pointee.content {
                var p = content
                while p.pointee != 0 {
                    bytes.append(p.pointee)
                    p += 1
                }
            }
        }
    }

    /// Calls `body` for this element and every descendant element, in document order.
    public func walk(_ body: (XMLElement) -> Void) {
        let doc = document
        walkNodes(node) { n in
            if n.pointee.type == XML_ELEMENT_NODE { body(XMLElement(node: n, document: doc)) }
        }
    }

    /// Every descendant element (and this one) with this name and namespace.
    public func descendants(_ localName: String, _ namespaceURI: String) -> [XMLElement] {
        var result: [XMLElement] = []
        walk { if $0.is(localName, namespaceURI) { result.append($0) } }
        return result
    }

    /// The element and its subtree, serialised by libxml2 without reformatting.
    public func serialized() -> [UInt8] {
        guard let buffer = xmlBufferCreate() else { return [] }
        defer { xmlBufferFree(buffer) }
        _ = xmlNodeDump(buffer, document.pointer, node, 0, 0)
        guard let content = xmlBufferContent(buffer) else { return [] }
        return Array(UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer))))
    }

    /// Removes this element (and its subtree) from the document.
    public func remove() {
        xmlUnlinkNode(node)
        xmlFreeNode(node)
    }

    /// Sets (or replaces) an unqualified attribute.
    public func setAttribute(_ name: String, _ value: String) {
        xmlSetProp(node, name, value)
    }

    /// Replaces the element's content with one text node.
    public func setText(_ value: String) {
        xmlNodeSetContent(node, nil)
        xmlNodeAddContent(node, value)
    }

    /// Same node?
    public func isSameNode(as other: XMLElement) -> Bool { node == other.node }
}

/// Iterative pre-order walk over `start` and its descendants (no recursion: hostile depth).
func walkNodes(_ start: xmlNodePtr, _ body: (xmlNodePtr) -> Void) {
    body(start)
    var current = start.pointee.children
    while let n = current {
        body(n)
        if let child = n.pointee.children, n.pointee.type == XML_ELEMENT_NODE {
            current = child
            continue
        }
        var climb: xmlNodePtr? = n
        current = nil
        while let c = climb, c != start {
            if let next = c.pointee.next {
                current = next
                break
            }
            climb = c.pointee.parent
        }
    }
}
