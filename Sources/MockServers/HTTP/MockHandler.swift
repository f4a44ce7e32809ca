/// A mock server's logic: answers one request. Implementations are the IdP, the SP, the
/// HTTP-auth resources, the proxy… They never see sockets; ``MockListener`` does the HTTP.
public protocol MockHandler: Sendable {
    /// The name the traffic log and the ready line use (`idp`, `sp`, `auth`, `proxy`…).
    var name: String { get }
    func handle(_ request: MockRequest) async -> MockResponse
}
