import Foundation
internal import CXMLSec

/// A parsed XML document (libxml2 tree), owned by one task at a time.
///
/// Not `Sendable`: libxml2 trees are not thread-safe. Parse, sign, verify or read it on one
/// task; pass bytes or Swift values between tasks.
public final class XMLDocument {
    let pointer: xmlDocPtr

    init(adopting pointer: xmlDocPtr) {
        self.pointer = pointer
    }

    deinit {
        xmlFreeDoc(pointer)
    }

    /// Parses a document safely: no network, no DTD, no entity substitution, a DOCTYPE
    /// refused outright, size and depth bounded.
    ///
    /// ```swift
    /// let doc = try XMLDocument(parsing: Array(xml.utf8))
    /// print(doc.root.localName)
    /// ```
    public convenience init(parsing bytes: [UInt8], limits: XMLParsingLimits = .default) throws {
        try XMLLibrary.ensureInitialized()
        if bytes.isEmpty { throw XMLError(.empty, "empty document") }
        if bytes.count > limits.maxBytes {
            throw XMLError(.tooLarge, "document is \(bytes.count) bytes; the limit is \(limits.maxBytes)")
        }
        // XML_PARSE_NONET: no network. No NOENT (entities stay unsubstituted), no DTDLOAD,
        // no DTDATTR, never HUGE. NOCDATA turns CDATA into text: the signed content is the
        // same after exclusive c14n, and NameID reading sees one text value.
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue)
        var sawDoctype: Int32 = 0
        var line: Int32 = 0
        var column: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let doc: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { base in
                cxmlsec_parse_memory(base, Int32(buffer.count), options, &sawDoctype,
                                     &message, Int32(message.count), &line, &column)
            }
        }
        if sawDoctype != 0 {
            throw XMLError(.doctypeRefused,
                           "a DOCTYPE is not allowed in SAML messages (external entities, entity expansion and DOCTYPE-smuggled content are refused)",
                           line: Int(line) > 0 ? Int(line) : nil)
        }
        guard let doc else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if text.contains("Excessive depth") {
                throw XMLError(.tooDeep, "elements nested deeper than the parser allows", line: Int(line))
            }
            throw XMLError(.notWellFormed, text.isEmpty ? "not well-formed" : text,
                           line: line > 0 ? Int(line) : nil, column: column > 0 ? Int(column) : nil)
        }
        self.init(adopting: doc)
        guard xmlDocGetRootElement(doc) != nil else {
            throw XMLError(.notWellFormed, "no root element")
        }
        if let depth = Self.depthExceeding(limits.maxDepth, from: xmlDocGetRootElement(doc)) {
            throw XMLError(.tooDeep, "elements nested \(depth) deep; the limit is \(limits.maxDepth)")
        }
    }

    /// Parses UTF-8 text.
    public convenience init(parsing text: String, limits: XMLParsingLimits = .default) throws {
        try self.init(parsing: Array(text.utf8), limits: limits)
    }

    /// The root element.
    public var root: XMLElement {
        XMLElement(node: xmlDocGetRootElement(pointer)!, document: self)
    }

    /// The document as UTF-8 bytes, exactly as libxml2 serialises the tree (no reformatting,
    /// so signatures stay valid). Without an XML declaration unless asked.
    public func serialized(xmlDeclaration: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        if xmlDeclaration {
            out.append(contentsOf: Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8))
        }
        out.append(contentsOf: root.serialized())
        return out
    }

    /// The document serialised as a String.
    public func serializedString(xmlDeclaration: Bool = false) -> String {
        String(decoding: serialized(xmlDeclaration: xmlDeclaration), as: UTF8.self)
    }

    /// Indented for people to read (never for signing).
    public func prettyPrinted() -> String {
        var mem: UnsafeMutablePointer<xmlChar>?
        var size: Int32 = 0
        xmlDocDumpFormatMemoryEnc(pointer, &mem, &size, "UTF-8", 1)
        defer { cxmlsec_xml_free(mem) }
        guard let mem else { return "" }
        var text = String(decoding: UnsafeBufferPointer(start: mem, count: Int(size)), as: UTF8.self)
        if text.hasPrefix("<?xml"), let end = text.firstIndex(of: "\n") {
            text = String(text[text.index(after: end)...])
        }
        return text
    }

    /// Registers the `ID` attribute of every element as an XML ID (SAML's `ID` is not an ID to
    /// libxml2 until registered), and returns the IDs that occur more than once.
    ///
    /// A duplicate ID lets a signature reference resolve to an element other than the one a
    /// consumer reads: callers treat duplicates as an attack.
    @discardableResult
    public func registerIDs(attributeNames: [String] = ["ID", "AssertionID"]) -> Set<String> {
        var seen = Set<String>()
        var duplicates = Set<String>()
        root.walk { element in
            for name in attributeNames {
                guard let attr = xmlHasProp(element.node, name) else { continue }
                guard attr.pointee.ns == nil else { continue }
                let value = element.attribute(name) ?? ""
                if !seen.insert(value).inserted {
                    duplicates.insert(value)
                    continue
                }
                if xmlGetID(pointer, value) == nil {
                    xmlAddID(nil, pointer, value, attr)
                }
            }
        }
        return duplicates
    }

    /// The element whose registered ID is `id`, if any.
    public func element(withID id: String) -> XMLElement? {
        guard let attr = xmlGetID(pointer, id) else { return nil }
        let attrPtr = UnsafeMutableRawPointer(attr).assumingMemoryBound(to: xmlAttr.self)
        guard let parent = attrPtr.pointee.parent else { return nil }
        return XMLElement(node: parent, document: self)
    }

    private static func depthExceeding(_ limit: Int, from node: xmlNodePtr?) -> Int? {
        // Iterative walk: a recursive one is what a 10,000-deep document is built to overflow.
        var current = node
        var depth = 1
        var maxDepth = 1
        while let n = current {
            if depth > limit { return depth }
            maxDepth = max(maxDepth, depth)
            if let child = firstElementChild(n) {
                current = child
                depth += 1
                continue
            }
            var climb: xmlNodePtr? = n
            while let c = climb {
                if let next = nextElementSibling(c) {
                    current = next
                    break
                }
                climb = c.pointee.parent
                depth -= 1
                if depth == 0 || climb == nil || climb?.pointee.type != XML_ELEMENT_NODE {
                    return nil
                }
            }
            if climb == nil { return nil }
        }
        return nil
    }

    private static func firstElementChild(_ node: xmlNodePtr) -> xmlNodePtr? {
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE { return c }
            child = c.pointee.next
        }
        return nil
    }

    private static func nextElementSibling(_ node: xmlNodePtr) -> xmlNodePtr? {
        var next = node.pointee.next
        while let n = next {
            if n.pointee.type == XML_ELEMENT_NODE { return n }
            next = n.pointee.next
        }
        return nil
    }
}
