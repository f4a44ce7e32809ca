import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP/1.1 client ``ForwardProxyMock`` forwards with: one request per connection over
/// plain TCP, redirects never followed (the client behind the proxy must see every 3xx
/// itself), headers relayed in order with repeated fields kept apart (several `Set-Cookie`),
/// and the body bounded in time and size.
struct UpstreamClient: Sendable {
    /// The upstream's answer.
    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
    }

    /// Why no answer came back.
    enum Failure: Error, Sendable, CustomStringConvertible {
        case connect(String)
        case timeout(seconds: Int64)
        case tooLarge(limit: Int)
        case closedEarly
        case protocolError(String)

        var description: String {
            switch self {
            case .connect(let reason): "could not connect: \(reason)"
            case .timeout(let seconds): "no complete answer within \(seconds) s"
            case .tooLarge(let limit): "the answer's body exceeds \(limit) bytes, the most the proxy relays"
            case .closedEarly: "the connection closed before a complete answer"
            case .protocolError(let reason): "the answer is not valid HTTP/1.1: \(reason)"
            }
        }
    }

    var timeout: Duration
    var maxBodyBytes: Int

    /// Sends one request to `host:port` and returns the final (non-1xx) answer.
    func send(host: String, port: Int, method: String, target: String,
              headers: [(name: String, value: String)], body: [UInt8]) async throws -> Response {
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
                response = Response(status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: [])
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
            promise.fail(Failure.protocolError("\(error)"))
            context.close(promise: nil)
        }
    }
}
