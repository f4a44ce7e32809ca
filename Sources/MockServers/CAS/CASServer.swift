import Foundation
import SAMLCore

/// The mock CAS server (Apereo CAS protocol 1, 2, 3 and REST) under `/cas`.
public struct CASServer: MockHandler {
    public let name = "cas"
    public let environment: MockEnvironment

    public init(environment: MockEnvironment) {
        self.environment = environment
    }

    /// The paths, as Apereo CAS serves them.
    public enum Path {
        public static let login = "/cas/login"
        public static let logout = "/cas/logout"
        public static let tickets = "/cas/v1/tickets"
        public static let validate = "/cas/validate"
        public static let serviceValidate = "/cas/serviceValidate"
        public static let proxyValidate = "/cas/proxyValidate"
        public static let p3ServiceValidate = "/cas/p3/serviceValidate"
        public static let p3ProxyValidate = "/cas/p3/proxyValidate"
        public static let proxy = "/cas/proxy"
        public static let samlValidate = "/cas/samlValidate"
        /// A CAS-protected application on the same listener: the default `service`.
        public static let app = "/app/"
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        .notFound(request.path)
    }
}
