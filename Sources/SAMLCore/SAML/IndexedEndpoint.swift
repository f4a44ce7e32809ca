/// An `md:IndexedEndpointType` element (AssertionConsumerService, ArtifactResolutionService),
/// saml-metadata-2.0-os §2.2.3: an ``Endpoint`` with an index and an isDefault flag.
public struct IndexedEndpoint: Sendable, Equatable {
    public var binding: String
    public var location: String
    public var responseLocation: String?
    /// xs:unsignedShort, required.
    public var index: Int
    public var isDefault: Bool?

    public init(binding: String, location: String, index: Int, isDefault: Bool? = nil,
                responseLocation: String? = nil) {
        self.binding = binding
        self.location = location
        self.index = index
        self.isDefault = isDefault
        self.responseLocation = responseLocation
    }

    /// The endpoint without its index.
    public var endpoint: Endpoint { Endpoint(binding: binding, location: location, responseLocation: responseLocation) }

    /// Reads any element of IndexedEndpointType.
    public init(element: XMLElement) throws {
        binding = try element.requiredAttribute("Binding")
        location = try element.requiredAttribute("Location")
        responseLocation = element.attribute("ResponseLocation")
        guard let index = try element.intAttribute("index") else {
            throw element.error(.missingAttribute, "required attribute index is missing", attribute: "index")
        }
        guard index <= Int(UInt16.max) else {
            throw element.error(.invalidAttribute, "index \(index) is not an xs:unsignedShort", attribute: "index")
        }
        self.index = index
        isDefault = try element.boolAttribute("isDefault")
    }

    /// Writes the endpoint as `name` (e.g. `md:AssertionConsumerService`).
    public func write(to writer: inout XMLWriter, as name: String) {
        writer.empty(name, [
            "Binding": binding,
            "Location": location,
            "ResponseLocation": responseLocation,
            "index": String(index),
            "isDefault": isDefault.map { $0 ? "true" : "false" },
        ])
    }

    /// saml-metadata-2.0-os §2.2.3: the default among indexed endpoints is the first with
    /// isDefault="true", else the first without an isDefault attribute, else the first.
    public static func defaultEndpoint(in endpoints: [IndexedEndpoint]) -> IndexedEndpoint? {
        endpoints.first { $0.isDefault == true } ?? endpoints.first { $0.isDefault == nil } ?? endpoints.first
    }
}
