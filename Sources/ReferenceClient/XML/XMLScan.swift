import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A flat list of the elements of an XML document (namespace, local name, attributes,
/// direct text), read with Foundation's `XMLParser` — external entities off. Enough to
/// find a PAOS header, a SOAP fault, a CAS answer or an Atom link.
struct XMLScan {
    struct Element {
        var namespace: String
        var name: String
        var attributes: [String: String]
        var text: String
        var depth: Int
    }

    var elements: [Element]

    /// Parses `data`; nil when it is not well-formed XML.
    init?(_ data: Data) {
        let delegate = Collector()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        guard parser.parse() else { return nil }
        elements = delegate.elements
    }

    /// Elements named `name` (and in `namespace`, when given).
    func all(_ name: String, namespace: String? = nil) -> [Element] {
        elements.filter { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    func first(_ name: String, namespace: String? = nil) -> Element? { all(name, namespace: namespace).first }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            open.append(elements.count)
            elements.append(Element(namespace: namespaceURI ?? "", name: elementName, attributes: attributeDict, text: "", depth: open.count))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            _ = open.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let index = open.last { elements[index].text += string }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if let index = open.last { elements[index].text += String(decoding: CDATABlock, as: UTF8.self) }
        }
    }
}

enum XMLText {
    /// XML 1.0 §2.4: `&` and `<` must be escaped in character data, and `>` in `]]>`;
    /// quotes too so the same function serves attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The raw bytes between `<p:local …>` and `</p:local>` (the first such element, any
    /// prefix) — for moving a SAML message from one SOAP envelope to another byte for byte,
    /// so its signature still verifies. The inner element must declare its own namespaces
    /// (SAML messages do).
    static func rawContent(of local: String, in xml: String) -> String? {
        var search = xml.startIndex
        while let lt = xml[search...].firstIndex(of: "<") {
            let nameStart = xml.index(after: lt)
            let nameEnd = xml[nameStart...].firstIndex { " \t\r\n>/".contains($0) } ?? xml.endIndex
            let qualified = xml[nameStart..<nameEnd]
            let localName = qualified.split(separator: ":").last.map(String.init) ?? ""
            if localName == local, !qualified.hasPrefix("/"), let gt = xml[nameEnd...].firstIndex(of: ">") {
                let contentStart = xml.index(after: gt)
                guard let close = xml.range(of: "</\(qualified)>", options: .backwards, range: contentStart..<xml.endIndex) else { return nil }
                return String(xml[contentStart..<close.lowerBound])
            }
            search = nameStart
        }
        return nil
    }
}
