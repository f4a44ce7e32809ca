import Foundation
import SAMLCore

/// The mock OPDS circulation manager (Library Simplified / SimplyE) with SAML login.
public struct CirculationManager: MockHandler {
    public let name = "cm"
    public let environment: MockEnvironment

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    /// The paths, as the Library Simplified circulation manager serves them.
    public enum Path {
        public static let catalog = "/"
        public static let authenticationDocument = "/authentication_document"
        public static let samlAuthenticate = "/SAML/saml_authenticate"
        public static let samlCallback = "/SAML/saml_callback"
        public static let metadata = "/SAML/metadata"
        public static let loans = "/loans"
    }

    /// The SP entity ID the circulation manager logs in as.
    public static func entityID(environment: MockEnvironment) -> String {
        environment.expand(environment.profile.profile.circulationManager.entityID, base: environment.baseURL(of: "cm"))
    }

    /// The circulation manager's SP metadata (the mock IdP trusts it).
    public static func metadata(environment: MockEnvironment) -> EntityDescriptor {
        let base = environment.baseURL(of: "cm")
        let descriptor = SPSSODescriptor(
            authnRequestsSigned: false, wantAssertionsSigned: false,
            keyDescriptors: [KeyDescriptor(use: nil, certificates: [environment.profile.spCertificate.base64DER])],
            singleLogoutServices: [], nameIDFormats: [NameIDFormat.transient],
            assertionConsumerServices: [
                IndexedEndpoint(binding: SAMLBindingURI.httpPost, location: base + Path.samlCallback, index: 0, isDefault: true),
            ])
        return EntityDescriptor(entityID: entityID(environment: environment), spSSODescriptor: descriptor)
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        .notFound(request.path)
    }
}
