/// An `md:EndpointType` element (SingleSignOnService, SingleLogoutService, …),
/// saml-metadata-2.0-os §2.2.2: a binding URI, a location, and an optional response location.
public struct Endpoint: Sendable, Equatable {
    public var binding: String
    public var location: String
    public var responseLocation: String?

    public init(binding: String, location: String, responseLocation: String? = nil) {
        self.binding = binding
        self.location = location
        self.responseLocation = responseLocation
    }

    /// Reads any element of EndpointType (the caller picks the element by name).
    public init(element: XMLElement) throws {
        binding = try element.requiredAttribute("Binding")
        location = try element.requiredAttribute("Location")
        responseLocation = element.attribute("ResponseLocation")
    }

    /// Writes the endpoint as `name` (e.g. `md:SingleSignOnService`).
    public func write(to writer: inout XMLWriter, as name: String) {
        writer.empty(name, ["Binding": binding, "Location": location, "ResponseLocation": responseLocation])
    }
}
