import Foundation
internal import CXMLSec

/// Reading helpers shared by the SAML parsers: each failure becomes a ``SAMLError`` that
/// names the element (as written), the attribute and the line.
extension XMLElement {
    /// `prefix:localName` as written.
    var qualifiedName: String {
        if let prefix, !prefix.isEmpty { return prefix + ":" + localName }
        return localName
    }

    func error(_ reason: SAMLError.Reason, _ message: String, attribute: String? = nil) -> SAMLError {
        SAMLError(reason, message, element: qualifiedName, attribute: attribute, line: line)
    }

    /// Throws unless this is `{namespaceURI}localName`.
    func expect(_ localName: String, _ namespaceURI: String) throws {
        guard self.is(localName, namespaceURI) else {
            throw error(.unexpectedElement,
                        "expected {\(namespaceURI)}\(localName), found {\(self.namespaceURI ?? "")}\(self.localName)")
        }
    }

    func requiredAttribute(_ name: String) throws -> String {
        guard let value = attribute(name) else {
            throw error(.missingAttribute, "required attribute \(name) is missing", attribute: name)
        }
        return value
    }

    func dateAttribute(_ name: String) throws -> Date? {
        guard let value = attribute(name) else { return nil }
        do {
            return try SAMLDateTime.date(from: value)
        } catch let e as SAMLError {
            throw e.located(element: qualifiedName, attribute: name, line: line)
        }
    }

    func requiredDateAttribute(_ name: String) throws -> Date {
        guard let date = try dateAttribute(name) else {
            throw error(.missingAttribute, "required attribute \(name) is missing", attribute: name)
        }
        return date
    }

    /// xs:boolean (XML Schema Part 2 §3.2.2.1): `true`, `false`, `1`, `0`.
    func boolAttribute(_ name: String) throws -> Bool? {
        guard let value = attribute(name) else { return nil }
        switch value.trimmingCharacters(in: .whitespaces) {
        case "true", "1": return true
        case "false", "0": return false
        default:
            throw error(.invalidAttribute, "'\(value)' is not an xs:boolean", attribute: name)
        }
    }

    func intAttribute(_ name: String) throws -> Int? {
        guard let value = attribute(name) else { return nil }
        guard let int = Int(value.trimmingCharacters(in: .whitespaces)), int >= 0 else {
            throw error(.invalidAttribute, "'\(value)' is not a non-negative integer", attribute: name)
        }
        return int
    }

    /// saml-core-2.0-os §3.2.2 / §2.3.3: `Version` must be `2.0`.
    func requireVersion2() throws {
        let version = try requiredAttribute("Version")
        guard version == "2.0" else {
            throw error(.unsupportedVersion, "Version is '\(version)'; only 2.0 is supported", attribute: "Version")
        }
    }

    /// The only child with this name, or nil; throws when there are several.
    func optionalChild(_ localName: String, _ namespaceURI: String) throws -> XMLElement? {
        let found = children(localName, namespaceURI)
        if found.count > 1 {
            throw found[1].error(.duplicateElement, "\(localName) may occur at most once in \(qualifiedName)")
        }
        return found.first
    }

    /// The only child with this name; throws when it is absent or repeated.
    func requiredChild(_ localName: String, _ namespaceURI: String) throws -> XMLElement {
        guard let child = try optionalChild(localName, namespaceURI) else {
            throw error(.missingElement, "required child element \(localName) is missing")
        }
        return child
    }

    /// The text content with surrounding whitespace removed (xs:anyURI and xs:token
    /// collapse whitespace); throws when it is empty.
    func requiredTrimmedText() throws -> String {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else { throw error(.invalidValue, "\(localName) is empty") }
        return value
    }

    /// The namespace URI bound to `prefix` in scope at this element.
    func namespaceURI(forPrefix prefix: String?) -> String? {
        guard let ns = xmlSearchNs(document.pointer, node, prefix), let href = ns.pointee.href else { return nil }
        return String(cString: href)
    }

    /// The element and its subtree as standalone text: namespaces declared on ancestors and
    /// used inside are re-declared on the copy's root, so the text parses on its own.
    func standaloneSerialization() -> String {
        guard let doc = xmlNewDoc("1.0") else { return String(decoding: serialized(), as: UTF8.self) }
        defer { xmlFreeDoc(doc) }
        guard let copy = xmlDocCopyNode(node, doc, 1) else { return String(decoding: serialized(), as: UTF8.self) }
        xmlDocSetRootElement(doc, copy)
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        _ = xmlNodeDump(buffer, doc, copy, 0, 0)
        guard let content = xmlBufferContent(buffer) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer))), as: UTF8.self)
    }
}
