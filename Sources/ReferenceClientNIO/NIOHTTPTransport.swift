import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ReferenceClient

/// The reference client's plain-http transport in `samlh-reference-client`: AsyncHTTPClient on
/// SwiftNIO instead of URLSession, whose Linux implementation watches each socket with a
/// libdispatch source and, under load, let a connection reset mid-answer crash libdispatch's
/// manager thread (the whole story, and the program that reproduces it:
/// docs/reference-client.md).
///
/// It sends what the flows give it plus the fields a plain HTTP library adds — `Accept: */*`
/// unless the flow set one, `Accept-Encoding` naming only what it decodes (gzip and deflate),
/// `Connection: keep-alive`, its `User-Agent`, `Accept-Language: en` — over HTTP/1.1 with
/// keep-alive: one pooled connection per origin for requests made one after another, so an
/// NTLM handshake's three legs share one.
///
/// It carries `http` only. `https` stays on URLSession, whose libcurl and OpenSSL 3 refuse
/// what the TLS catalog expects refused (a SHA-1-signed or RSA-1024 certificate; BoringSSL
/// under SwiftNIO accepts both), and so does the `proxy` flow, which needs absolute-form
/// requests to the proxy (AsyncHTTPClient tunnels every proxied request with CONNECT).
public final class NIOHTTPTransport: HTTPTransport {
    /// What the client calls itself on the wire.
    public static let userAgent = "samlh-reference-client (AsyncHTTPClient)"
    /// The codings it decodes, and so accepts.
    public static let acceptEncoding = "gzip, deflate"
    /// The largest answer body it reads.
    static let bodyLimit = 64 << 20

    private let client: HTTPClient

    public init() {
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration)
    }

    public func carries(_ url: URL) -> Bool { url.scheme?.lowercased() == "http" }

    /// Closes every connection; call once, before the process ends.
    public func shutdown() async {
        try? await client.shutdown()
    }

    static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .ratio(200)))
        configuration.httpVersion = .http1Only
        // A refused connection fails the request at once, not retried until its deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    public func send(_ request: TransportRequest) async throws -> TransportAnswer {
        // A client of its own has a pool of its own: a new connection (`ntlm-new-connection`).
        let owned = request.freshConnection ? HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration) : nil
        let client = owned ?? self.client
        let outgoing = Self.request(request)
        // The whole exchange, head and body, within the request's time (`min(SAMLH_REQUEST_TIMEOUT,
        // time left)`: the last request of a run ends by the run's deadline), on NIO's own clock;
        // AsyncHTTPClient's deadline covers the head only.
        let seconds = max(request.timeout, 0.05)
        let expired = NIOLockedValueBox(false)
        let work = Task { try await Self.exchange(outgoing, on: client, seconds: seconds) }
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            expired.withLockedValue { $0 = true }
            work.cancel()
        }
        let result: Result<TransportAnswer, any Error>
        do {
            result = .success(try await withTaskCancellationHandler { try await work.value } onCancel: { work.cancel() })
        } catch {
            result = .failure(error)
        }
        timer.cancel()
        try? await owned?.shutdown()
        switch result {
        case .success(let answer):
            return answer
        case .failure(let error):
            if expired.withLockedValue({ $0 }) {
                throw TransportFailure(.timedOut, "no whole answer within \(String(format: "%.2f", seconds)) s")
            }
            throw Self.failure(error)
        }
    }

    /// The request as it goes out: the library's fields around the flow's.
    static func request(_ request: TransportRequest) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        let given = Set(request.headers.map { $0.name.lowercased() })
        func add(_ name: String, _ value: String) {
            if !given.contains(name.lowercased()) { outgoing.headers.add(name: name, value: value) }
        }
        add("Accept", "*/*")
        add("Accept-Encoding", acceptEncoding)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        add("Connection", "keep-alive")
        add("User-Agent", userAgent)
        add("Accept-Language", "en")
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return outgoing
    }

    private static func exchange(_ request: HTTPClientRequest, on client: HTTPClient, seconds: Double) async throws -> TransportAnswer {
        try await answer(of: try await client.execute(request, timeout: .nanoseconds(Int64(seconds * 1e9))))
    }

    /// A response read whole (at most ``bodyLimit`` bytes), field names lowercased and repeated
    /// fields joined with ", ", as URLSession gives them; both transports of this target read so.
    static func answer(of response: HTTPClientResponse) async throws -> TransportAnswer {
        var fields: [String: String] = [:]
        for header in response.headers {
            let name = header.name.lowercased()
            fields[name] = fields[name].map { "\($0), \(header.value)" } ?? header.value
        }
        let body = try await response.body.collect(upTo: bodyLimit)
        return TransportAnswer(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
    }

    /// Sorts a SwiftNIO / AsyncHTTPClient error into the kinds the client reports.
    static func failure(_ error: any Error) -> TransportFailure {
        let detail = String(describing: error)
        let words = detail.lowercased()
        if let error = error as? HTTPClientError {
            switch error {
            case .remoteConnectionClosed: return TransportFailure(.closed, "the server closed the connection (\(detail))")
            case .readTimeout, .connectTimeout, .deadlineExceeded: return TransportFailure(.timedOut, detail)
            default: break
            }
        }
        if error is NIOTooManyBytesError {
            return TransportFailure(.other, "the answer's body is over \(bodyLimit >> 20) MiB")
        }
        if error is NIOConnectionError || words.contains("connection refused") || words.contains("econnrefused") {
            return TransportFailure(.refused, detail)
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNRESET, EPIPE: return TransportFailure(.reset, "connection reset by peer (\(detail))")
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return TransportFailure(.refused, detail)
            default: break
            }
        }
        if let error = error as? HTTPParserError, error == .invalidEOFState {
            return TransportFailure(.cutOff, "the answer ended before its body was complete (\(detail))")
        }
        return TransportFailure(.other, detail)
    }
}
