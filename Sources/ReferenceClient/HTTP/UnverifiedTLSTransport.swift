import Foundation

/// An HTTPS transport that does NOT verify the server's certificate, for the client's two
/// buggy trust variants only (``ClientBehaviour/ServerTrust``). URLSession on Linux cannot skip
/// verification (no server-trust challenge, libcurl's CA bundle fixed), so the executable
/// supplies one built on SwiftNIO; this library stays Foundation-only. Never use such a
/// transport outside a test of what the harness catches.
public protocol UnverifiedTLSTransport: Sendable {
    /// One HTTP/1.1 exchange over TLS without certificate verification (TLS 1.2 at least).
    /// Header names come back lowercased.
    func send(method: String, url: URL, headers: [(name: String, value: String)], body: Data?,
              timeout: TimeInterval) async throws -> (status: Int, headers: [String: String], body: Data)

    /// The certificate chain the server at `url` presents (handshake only, nothing sent),
    /// as (subject DER, issuer DER) per certificate, leaf first.
    func presentedChain(of url: URL, timeout: TimeInterval) async throws -> [(subject: [UInt8], issuer: [UInt8])]
}
