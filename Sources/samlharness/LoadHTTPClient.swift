import NIOCore
import NIOHTTP1
import NIOPosix
import SAMLCore

/// The HTTP/1.1 client of `samlharness load`: plain `http://` on loopback, keep-alive
/// connections pooled per origin and reused across logins, one request in flight per
/// connection, the whole body collected. It does only what a login through the mocks needs, so
/// the load generator stays a small share of the machine (issue 25: AsyncHTTPClient — request
/// building, its pool's state machine, a deadline timer per request, streamed bodies — cost
/// the client ≈ 0.2 ms of CPU per request, four times the team's compiled libcurl client).
final class LoadHTTPClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Response: Sendable {
        let status: Int
        let headers: [(String, String)]
        let body: ByteBuffer
        /// The response lets the connection serve another request (HTTP/1.1 without
        /// `Connection: close`, or HTTP/1.0 with `keep-alive`).
        let keepAlive: Bool
    }

    let group: any EventLoopGroup
    /// The longest a request waits for its answer, and an idle pooled connection is kept.
    let readTimeout: TimeAmount
    /// The largest body read; a larger one fails the request.
    let maxBodyBytes: Int
    /// Idle keep-alive connections by `host:port`.
    private let idle = LockedValue<[String: [Channel]]>([:])

    init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, readTimeout: TimeAmount = .seconds(60),
         maxBodyBytes: Int = 16 << 20) {
        self.group = group
        self.readTimeout = readTimeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// Where a request goes: `http://host:port/path?query` split once (the cookie jar keys on
    /// `authority`).
    struct Endpoint: Sendable {
        /// `host:port`, the port spelled out (80 by default).
        let authority: String
        let host: String
        let port: Int
        /// The request target (path and query).
        let target: String
    }

    /// `http://host:port/path?query` split into an ``Endpoint``.
    static func split(_ url: String) throws -> Endpoint {
        guard url.hasPrefix("http://") else {
            throw Failure(description: "load's client speaks plain http on loopback only, not \(url)")
        }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = String(rest[..<slash])
        var target = String(rest[slash...])
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        let host: String
        let port: Int
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {  // [v6]:port
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            port = after.hasPrefix(":") ? Int(after.dropFirst()) ?? 80 : 80
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let number = Int(authority[authority.index(after: colon)...]) else {
                throw Failure(description: "no port number in \(url)")
            }
            port = number
        } else {
            host = authority
            port = 80
        }
        return Endpoint(authority: authority.contains(":") && !authority.hasSuffix("]") ? authority : authority + ":\(port)",
                        host: host, port: port, target: target)
    }

    func execute(_ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]?) async throws -> Response {
        try await execute(method, Self.split(url), headers: headers, body: body)
    }

    func execute(_ method: HTTPMethod, _ endpoint: Endpoint, headers: [(String, String)], body: [UInt8]?) async throws -> Response {
        let (authority, host, port, target) = (endpoint.authority, endpoint.host, endpoint.port, endpoint.target)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "Host", value: authority)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        // A pooled connection can have been closed by the server since: one retry on a new one.
        for attempt in 0..<2 {
            let channel = try await connection(to: authority, host: host, port: port, fresh: attempt > 0)
            let promise = channel.eventLoop.makePromise(of: Response.self)
            let request = head
            channel.eventLoop.execute {
                // On the loop: a pooled connection the server closed meanwhile has already seen
                // channelInactive, and nothing would ever complete a promise given to it now.
                guard channel.isActive,
                      let collector = try? channel.pipeline.syncOperations.handler(type: ResponseCollector.self) else {
                    promise.fail(ResponseCollector.ClosedBeforeAnswer(reused: attempt == 0))
                    return
                }
                collector.expect(promise)
                channel.write(HTTPClientRequestPart.head(request), promise: nil)
                if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
                // A write that fails closes the channel: channelInactive fails the request.
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            }
            do {
                let response = try await promise.futureResult.get()
                if response.keepAlive, channel.isActive {
                    idle.withLock { $0[authority, default: []].append(channel) }
                } else {
                    try? await channel.close()
                }
                return response
            } catch let error as ResponseCollector.ClosedBeforeAnswer where attempt == 0 && error.reused {
                // A keep-alive connection the server had closed (its idle timeout): sent again
                // once on a new connection, as curl and browsers do; nothing of an answer came.
                try? await channel.close()
                continue
            }
        }
        throw Failure(description: "http://\(authority)\(target): the connection closed before an answer, twice")
    }

    /// An idle connection to `authority`, or a new one.
    private func connection(to authority: String, host: String, port: Int, fresh: Bool) async throws -> Channel {
        if !fresh {
            while let pooled = idle.withLock({ $0[authority]?.popLast() }) {
                if pooled.isActive { return pooled }
            }
        }
        let timeout = readTimeout
        let maxBody = maxBodyBytes
        return try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHTTPClientHandlers()
                    // Reads and writes both restart it: a request written on a connection that sat in
                    // the pool has its whole timeout for the answer.
                    try sync.addHandler(IdleStateHandler(allTimeout: timeout))
                    try sync.addHandler(ResponseCollector(maxBodyBytes: maxBody))
                }
            }
            .connect(host: host, port: port).get()
    }

    /// Closes every idle connection.
    func shutdown() async {
        let channels = idle.withLock { pool in
            defer { pool = [:] }
            return pool.values.flatMap { $0 }
        }
        for channel in channels { try? await channel.close() }
    }
}

/// Collects one response at a time on its channel and completes the waiting request's promise.
/// Touched only on its channel's event loop (NIO's pipeline guarantees it), hence
/// `@unchecked Sendable`.
final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    /// The connection ended before the answer; `reused` says it came from the pool (a stale
    /// keep-alive connection the server had closed: the request is sent again once).
    struct ClosedBeforeAnswer: Error, CustomStringConvertible {
        let reused: Bool
        var description: String { "the connection closed before the answer" }
    }

    private var waiting: EventLoopPromise<LoadHTTPClient.Response>?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    private let maxBodyBytes: Int
    /// True once the connection has answered a request (a later request on it may find it
    /// closed by the server's keep-alive timeout).
    private var reused = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    func expect(_ promise: EventLoopPromise<LoadHTTPClient.Response>) {
        waiting = promise
    }

    /// Fails the waiting request, if any (each promise is completed once).
    func fail(_ error: any Error) {
        waiting?.fail(error)
        waiting = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let responseHead):
            head = responseHead
            body.clear()
        case .body(var buffer):
            guard body.readableBytes + buffer.readableBytes <= maxBodyBytes else {
                fail(LoadHTTPClient.Failure(description: "an answer larger than \(maxBodyBytes) bytes"))
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&buffer)
        case .end:
            let finished = head
            let content = body
            head = nil
            body = ByteBuffer()
            reused = true
            guard let finished, let promise = waiting else { return }
            waiting = nil
            promise.succeed(LoadHTTPClient.Response(status: Int(finished.status.code),
                                                    headers: finished.headers.map { ($0.name, $0.value) }, body: content,
                                                    keepAlive: finished.isKeepAlive))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .all {
            fail(LoadHTTPClient.Failure(description: "no answer within the read timeout"))
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset on a reused connection before any answer is the stale keep-alive case too.
        fail(reused && head == nil ? ClosedBeforeAnswer(reused: true) : error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ClosedBeforeAnswer(reused: reused && head == nil))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(ClosedBeforeAnswer(reused: false))
    }
}
