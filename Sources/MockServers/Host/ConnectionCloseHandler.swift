import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Ends connections the way HTTP/1.1 servers do, where Hummingbird's loop keeps them open:
///
/// - An HTTP/1.0 request without `Connection: keep-alive` (or any request with
///   `Connection: close`) gets its answer, marked `Connection: close`, and then the connection
///   is closed (RFC 9112 §9.3, §9.6): ApacheBench and other HTTP/1.0 clients read to the close.
///   An HTTP/1.0 request that asks for keep-alive gets `Connection: keep-alive` back.
/// - An answer marked `Connection: close` sent before the request's body has arrived (the 413
///   for a body over the limit) is followed by a *lingering close*, as Apache and nginx do it:
///   the answer is written, the output side shut (the client sees the end of the answer), the
///   rest of the body read and thrown away, and the connection closed once the body ends — or
///   after ``lingerBytes`` more bytes or ``lingerTime``, whichever comes first. A client that
///   writes its whole body before reading (python's `http.client`, raw sockets) therefore gets
///   the 413 and a closed connection instead of waiting for its own timeout, and one that stops
///   writing gets no reset that would destroy the unread answer (RFC 9112 §9.6).
///
/// Sits between NIO's HTTP/1 decoder and the HTTP-types codec, where the request's version and
/// its `Connection` field are still known.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The most body bytes read and discarded after an early `Connection: close` answer.
    static let lingerBytes = 64 * 1024 * 1024
    /// The longest a lingering close waits for the rest of the body.
    static let lingerTime = TimeAmount.seconds(10)

    /// A request read and not yet answered (pipelined requests queue up here in order).
    private struct Pending {
        var version: HTTPVersion
        var keepAlive: Bool
        var complete = false
    }

    private var pending: [Pending] = []
    private var closeAfterAnswer = false
    private var lingering = false
    private var lingeredBytes = 0
    private var lingerDeadline: Scheduled<Void>?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            pending.append(Pending(version: head.version, keepAlive: head.isKeepAlive))
        case .body(let buffer):
            if lingering {
                lingeredBytes += buffer.readableBytes
                if lingeredBytes > Self.lingerBytes { context.close(promise: nil) }
            }
        case .end:
            if !pending.isEmpty { pending[pending.count - 1].complete = true }
            if lingering {
                context.close(promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            let request = pending.first ?? Pending(version: .http1_1, keepAlive: true, complete: true)
            let marked = head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            closeAfterAnswer = marked || !request.keepAlive
            if closeAfterAnswer, !marked {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
            } else if !closeAfterAnswer, request.version == .http1_0 {
                head.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            let request = pending.isEmpty ? nil : pending.removeFirst()
            guard closeAfterAnswer else {
                context.write(data, promise: promise)
                return
            }
            let bound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
            let complete = request?.complete ?? true
            context.writeAndFlush(data).whenComplete { result in
                let (context, handler) = bound.value
                promise?.completeWith(result)
                if complete {
                    context.close(promise: nil)
                } else {
                    handler.linger(context: context)
                }
            }
        }
    }

    private func linger(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        lingering = true
        context.close(mode: .output, promise: nil)
        let loopBound = context.loopBound
        lingerDeadline = context.eventLoop.scheduleTask(in: Self.lingerTime) {
            loopBound.value.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
        lingerDeadline = nil
        context.fireChannelInactive()
    }
}

/// Hummingbird's HTTP/1 child channel with a ``ConnectionCloseHandler`` in its pipeline.
struct MockHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    /// Under TLS: where connections that carried no request are recorded.
    let handshakes: TLSHandshakeRecorder?
    var responder: HTTPChannelHandler.Responder { inner.responder }

    init(responder: @escaping HTTPChannelHandler.Responder, handshakes: TLSHandshakeRecorder? = nil) {
        inner = HTTP1Channel(responder: responder)
        self.handshakes = handshakes
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        ConnectionNumbers.assign(channel)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.context(
                handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionCloseHandler(), position: .after(decoder.handler))
            if let handshakes { try TLSHandshakeObserver.install(on: channel, recorder: handshakes) }
            return value
        }
    }

    /// The connection's requests are handled on its own event loop (``EventLoopTaskExecutor``).
    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 as the mocks serve it: Hummingbird's, closing connections as RFC 9112 says, each
    /// connection's requests handled on its own event loop. The console serves on it too, so a
    /// refused body ends in the same bounded lingering close at every listener.
    public static var mockHTTP1: HTTPServerBuilder {
        .init { responder in MockHTTP1Channel(responder: responder) }
    }

    /// The same, recording TLS connections that carried no request (for `.tls(…)`).
    static func mockHTTP1(handshakes: TLSHandshakeRecorder) -> HTTPServerBuilder {
        .init { responder in MockHTTP1Channel(responder: responder, handshakes: handshakes) }
    }
}
