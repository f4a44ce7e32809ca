import Foundation

/// `<md:EntitiesDescriptor>`, saml-metadata-2.0-os §2.3.1: an aggregate (a federation's
/// metadata feed). Nested EntitiesDescriptors are flattened into ``entities``, in document
/// order.
///
/// ```swift
/// let feed = try EntitiesDescriptor(xml: aggregateBytes)
/// let idp = feed.entity(withID: "https://idp.example.org/idp/shibboleth")
/// ```
public struct EntitiesDescriptor: SAMLElementCodable {
    public var name: String?
    public var id: String?
    public var validUntil: Date?
    public var cacheDuration: String?
    public var entities: [EntityDescriptor]

    public init(name: String? = nil, id: String? = nil, validUntil: Date? = nil, cacheDuration: String? = nil,
                entities: [EntityDescriptor]) {
        self.name = name
        self.id = id
        self.validUntil = validUntil
        self.cacheDuration = cacheDuration
        self.entities = entities
    }

    /// The entity with this entityID.
    public func entity(withID entityID: String) -> EntityDescriptor? {
        entities.first { $0.entityID == entityID }
    }

    public init(element: XMLElement) throws {
        try element.expect("EntitiesDescriptor", SAMLNamespace.metadata)
        name = element.attribute("Name")
        id = element.attribute("ID")
        validUntil = try element.dateAttribute("validUntil")
        cacheDuration = element.attribute("cacheDuration")
        var found: [EntityDescriptor] = []
        for child in element.children where child.namespaceURI == SAMLNamespace.metadata {
            switch child.localName {
            case "EntityDescriptor": found.append(try EntityDescriptor(element: child))
            case "EntitiesDescriptor": found.append(contentsOf: try EntitiesDescriptor(element: child).entities)
            default: continue
            }
        }
        // §2.3.1: one or more EntityDescriptor or EntitiesDescriptor elements.
        if found.isEmpty, element.children("EntitiesDescriptor", SAMLNamespace.metadata).isEmpty {
            throw element.error(.missingElement, "EntitiesDescriptor has no EntityDescriptor (§2.3.1)")
        }
        entities = found
    }

    public func write(to writer: inout XMLWriter, declaringNamespaces: Bool) {
        writer.open("md:EntitiesDescriptor", [
            "xmlns:md": declaringNamespaces ? SAMLNamespace.metadata : nil,
            "xmlns:ds": declaringNamespaces ? SAMLNamespace.dsig : nil,
            "Name": name,
            "ID": id,
            "validUntil": validUntil.map { SAMLDateTime.string(from: $0) },
            "cacheDuration": cacheDuration,
        ])
        for entity in entities { entity.write(to: &writer, declaringNamespaces: false) }
        writer.close("md:EntitiesDescriptor")
    }
}
