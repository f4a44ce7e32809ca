import Foundation
import SAMLCore

/// The mock AD FS: WS-Trust (active) and the passive sign-on pages.
public struct ADFSServer: MockHandler {
    public let name = "adfs"
    public let environment: MockEnvironment

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    /// The paths, as AD FS serves them.
    public enum Path {
        public static let usernameMixed13 = "/adfs/services/trust/13/usernamemixed"
        public static let usernameMixed2005 = "/adfs/services/trust/2005/usernamemixed"
        public static let mex = "/adfs/services/trust/mex"
        public static let federationMetadata = "/FederationMetadata/2007-06/FederationMetadata.xml"
        public static let idpInitiatedSignOn = "/adfs/ls/IdpInitiatedSignOn.aspx"
        public static let ls = "/adfs/ls/"
    }

    /// The federation service identifier (the token Issuer).
    public var entityID: String {
        environment.expand(environment.profile.profile.adfs.entityID, base: environment.baseURL(of: name))
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        .notFound(request.path)
    }
}
