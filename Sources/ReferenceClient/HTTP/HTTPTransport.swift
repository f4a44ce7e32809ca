import Foundation

/// How the client's requests reach the network, when not through URLSession.
///
/// The library's own transport is URLSession (``HTTPSession``, Foundation only, what an app on
/// Apple platforms uses). `samlh-reference-client` supplies one on SwiftNIO instead
/// (`NIOHTTPTransport`, target `ReferenceClientNIO`): on Linux, FoundationNetworking watches
/// every socket with a libdispatch source, and a reset connection under load can crash
/// libdispatch's manager thread (docs/reference-client.md, "A crash on a reset connection").
///
/// A transport sends exactly what it is given plus the fields of its own a plain HTTP library
/// adds (`Host`, `Content-Length`, `Accept`, `Accept-Encoding`, `User-Agent`…), follows no
/// redirect, answers no challenge and keeps no cookie: ``HTTPSession`` does those.
public protocol HTTPTransport: Sendable {
    /// One exchange. Throws ``TransportFailure`` for what went wrong on the connection.
    func send(_ request: TransportRequest) async throws -> TransportAnswer

    /// Whether it carries requests to `url` (those it does not go through URLSession).
    func carries(_ url: URL) -> Bool
}

/// One request as the transport puts it on the wire.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: URL
    /// In order; names as given.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Seconds until the whole answer must be in (head and body).
    public var timeout: TimeInterval
    /// On a connection of its own, not a pooled one (the `ntlm-new-connection` bug).
    public var freshConnection: Bool

    public init(method: String, url: URL, headers: [(name: String, value: String)], body: Data?, timeout: TimeInterval,
                freshConnection: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.freshConnection = freshConnection
    }
}

/// What came back.
public struct TransportAnswer: Sendable {
    public var status: Int
    /// Names lowercased; repeated fields joined with ", " (as URLSession joins them).
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A transport's failure, sorted into what the client reports in its own words.
public struct TransportFailure: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The answer did not come within the request's time.
        case timedOut
        /// Nobody listens, or the host has no address.
        case refused
        /// The server closed the connection before any answer.
        case closed
        /// The server closed the connection in the middle of its answer (a body shorter than
        /// its `Content-Length`, a chunked body never ended).
        case cutOff
        /// The connection was reset (TCP RST).
        case reset
        /// The server's certificate was not accepted.
        case certificateRefused
        /// Any other failure of the TLS handshake.
        case tls
        /// Anything else.
        case other
    }

    public var kind: Kind
    /// The library's own words for it.
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
