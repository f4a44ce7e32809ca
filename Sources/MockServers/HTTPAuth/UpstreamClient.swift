import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// The HTTP/1.1 client ``ForwardProxyMock`` and `samlharness record` forward with: one
/// request per connection, over plain TCP or TLS, redirects never followed (the client behind
/// the proxy must see every 3xx itself), the request target sent exactly as given, headers
/// relayed in order with repeated fields kept apart (several `Set-Cookie`), and the body
/// bounded in time and size.
public struct UpstreamClient: Sendable {
    /// The upstream's answer.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// `HTTP/1.1` or `HTTP/1.0`, as the status line said.
        public var version: String = "HTTP/1.1"
        /// The address connected to (`203.0.113.7`), when known.
        public var remoteAddress: String?
        /// When the final answer's head arrived (the end of the wait, the start of the body).
        public var headArrived: ContinuousClock.Instant?
    }

    /// TLS towards the upstream: the client context (its trust roots and verification) and the
    /// name sent as SNI and verified (nil for an IP address: the address is verified instead).
    public struct TLS: Sendable {
        public var context: NIOSSLContext
        public var serverHostname: String?

        public init(context: NIOSSLContext, serverHostname: String?) {
            self.context = context
            self.serverHostname = serverHostname
        }
    }

    /// Why no answer came back.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case connect(String)
        case timeout(seconds: Int64)
        case tooLarge(limit: Int)
        case closedEarly
        case protocolError(String)
        /// The TLS handshake failed (a certificate refused, no common protocol version, …).
        case tls(String)

        public var description: String {
            switch self {
            case .connect(let reason): "could not connect: \(reason)"
            case .timeout(let seconds): "no complete answer within \(seconds) s"
            case .tooLarge(let limit): "the answer's body exceeds \(limit) bytes, the most the proxy relays"
            case .closedEarly: "the connection closed before a complete answer"
            case .protocolError(let reason): "the answer is not valid HTTP/1.1: \(reason)"
            case .tls(let reason): "the TLS handshake failed: \(reason)"
            }
        }
    }

    var timeout: Duration
    var maxBodyBytes: Int

    public init(timeout: Duration, maxBodyBytes: Int) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// Sends one request to `host:port` and returns the final (non-1xx) answer.
    public func send(host: String, port: Int, method: String, target: String,
                     headers: [(name: String, value: String)], body: [UInt8], tls: TLS? = nil) async throws -> Response {
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let requestHead = head
        let limit = maxBodyBytes
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: Response.self)
        let seconds = timeout.components.seconds
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(max(1, seconds)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            try channel.pipeline.syncOperations.addHandler(
                                try NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            Exchange(head: requestHead, body: body, maxBodyBytes: limit, promise: promise))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            promise.fail(Failure.connect("\(error)"))
            throw Failure.connect("\(error)")
        }
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(max(1, seconds))) {
            promise.fail(Failure.timeout(seconds: seconds))
            channel.close(promise: nil)
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        return try await promise.futureResult.get()
    }

    /// A TLS handshake with `host:port` and nothing else (no request): returns the leaf the
    /// server presented; throws ``Failure/tls(_:)`` when the handshake fails (a certificate the
    /// context's verification refuses), ``Failure/connect(_:)`` when no connection is made.
    public static func handshake(host: String, port: Int, tls: TLS, timeout: Duration = .seconds(10)) async throws
        -> NIOSSLCertificate? {
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: NIOSSLCertificate?.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname))
                        try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise: promise))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            promise.fail(Failure.connect("\(error)"))
            throw Failure.connect("\(error)")
        }
        let seconds = timeout.components.seconds
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            promise.fail(Failure.timeout(seconds: seconds))
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        return try await promise.futureResult.get()
    }

    /// The leaf `host:port` presents, read with verification off (to say why a verified
    /// handshake failed); nil when no handshake completes.
    public static func presentedCertificate(host: String, port: Int, serverHostname: String?,
                                            timeout: Duration = .seconds(5)) async -> NIOSSLCertificate? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        return (try? await handshake(host: host, port: port, tls: TLS(context: context, serverHostname: serverHostname),
                                     timeout: timeout)) ?? nil
    }

    /// Completes the promise with the peer's leaf once the handshake is done, or fails it.
    private final class HandshakeWatcher: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        let promise: EventLoopPromise<NIOSSLCertificate?>

        init(promise: EventLoopPromise<NIOSSLCertificate?>) { self.promise = promise }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
                promise.succeed(certificate)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(Failure.tls("\(error)"))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(Failure.closedEarly)
            context.fireChannelInactive()
        }
    }

    /// Writes the request once connected and collects the answer into the promise.
    private final class Exchange: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        let head: HTTPRequestHead
        let body: [UInt8]
        let maxBodyBytes: Int
        let promise: EventLoopPromise<Response>
        private var response: Response?

        init(head: HTTPRequestHead, body: [UInt8], maxBodyBytes: Int, promise: EventLoopPromise<Response>) {
            self.head = head
            self.body = body
            self.maxBodyBytes = maxBodyBytes
            self.promise = promise
        }

        func channelActive(context: ChannelHandlerContext) {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                // 1xx answers are interim (RFC 9110 §15.2): wait for the final one.
                guard head.status.code >= 200 || head.status.code == 101 else { response = nil; return }
                response = Response(status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: [],
                                    version: "HTTP/\(head.version.major).\(head.version.minor)",
                                    remoteAddress: context.channel.remoteAddress?.ipAddress,
                                    headArrived: ContinuousClock.now)
            case .body(var buffer):
                guard response != nil else { return }
                if response!.body.count + buffer.readableBytes > maxBodyBytes {
                    promise.fail(Failure.tooLarge(limit: maxBodyBytes))
                    context.close(promise: nil)
                    return
                }
                response!.body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                guard let response else { return }
                promise.succeed(response)
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(Failure.closedEarly)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
                promise.fail(Failure.tls("\(error)"))
            } else {
                promise.fail(Failure.protocolError("\(error)"))
            }
            context.close(promise: nil)
        }
    }
}
