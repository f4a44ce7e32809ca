import Foundation
import MockServers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One client connection to the recording proxy. Reads complete requests (answering
/// `Expect: 100-continue` itself), answers them one at a time in order, and switches the
/// connection into a TLS interception or a byte tunnel after `CONNECT`.
final class ProxyFrontHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The bounds of a lingering close: the mocks' (MockServers' `ConnectionCloseHandler`).
    static let lingerBytes = 64 * 1024 * 1024
    static let lingerTime = TimeAmount.seconds(10)

    static let encoderName = "record.http-encoder"
    static let decoderName = "record.http-decoder"
    static let frontName = "record.front"

    /// The HTTP/1.1 server codec, named so a CONNECT can take it out.
    static func httpHandlers() -> [(any ChannelHandler, String)] {
        [(HTTPResponseEncoder(), encoderName),
         (ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)), decoderName)]
    }

    private let proxy: RecordingProxy
    private let connectionID: Int
    /// Set once a CONNECT was intercepted: every request after it goes to this origin over TLS
    /// (at the addresses checked when the CONNECT came, when the proxy guards destinations).
    private var tunnel: (host: String, port: Int, addresses: [String])?
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    private var started = Date()
    private var startedClock = ContinuousClock.now
    private var queue: [RecordingProxy.ClientRequest] = []
    private var tooLarge: Set<Int> = []
    private var busy = false
    private var closing = false
    private var requestCount = 0
    /// After an early 413: the rest of the body is read and dropped, then the connection
    /// closed (a lingering close, bounded as the mocks bound theirs).
    private var lingering = false
    private var lingered = 0
    private var lingerDeadline: Scheduled<Void>?

    init(proxy: RecordingProxy, connectionID: Int) {
        self.proxy = proxy
        self.connectionID = connectionID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if lingering {
            switch unwrapInboundIn(data) {
            case .body(let buffer):
                lingered += buffer.readableBytes
                if lingered > Self.lingerBytes { context.close(promise: nil) }
            case .end:
                context.close(promise: nil)
            case .head:
                break
            }
            return
        }
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
            bodyTooLarge = false
            started = Date()
            startedClock = .now
            if requestHead.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: requestHead.version, status: .continue))),
                                      promise: nil)
            }
        case .body(var buffer):
            guard !bodyTooLarge else { return }
            if body.count + buffer.readableBytes > proxy.options.maxBodyBytes {
                bodyTooLarge = true
                body = []
                if queue.isEmpty, !busy { refuseEarly(context: context) }
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let requestHead = head else { return }
            head = nil
            let request = RecordingProxy.ClientRequest(
                head: requestHead, body: body, started: started, startedClock: startedClock, receivedClock: .now,
                connectionID: connectionID, clientAddress: context.channel.remoteAddress?.ipAddress)
            if bodyTooLarge { tooLarge.insert(requestCount) }
            requestCount += 1
            body = []
            queue.append(request)
            processNext(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingerDeadline?.cancel()
        lingerDeadline = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case NIOSSLError.uncleanShutdown = error {
            context.close(promise: nil)  // a client that closes without close_notify: common, harmless
            return
        }
        if let tunnel, case NIOSSLError.handshakeFailed = error {
            let host = Authority.format(host: tunnel.host, port: tunnel.port, scheme: "")
            proxy.note { $0.clientRefusedCertificate[host] = "\(error)" }
            proxy.report("warning: the client's TLS handshake for \(host) failed (\(error)): does the client trust the "
                + "recording CA \(proxy.ca.certificateURL.path)? See docs/recording.md")
            context.close(promise: nil)
            return
        }
        if error is HTTPParserError, !busy {
            let answer = RecordingProxy.problem(400, "Bad Request", "samlharness record could not read the request: \(error).")
            closing = true
            write(answer, keepAlive: false, isHead: false, context: context)
            return
        }
        context.close(promise: nil)
    }

    /// The body is over the limit and no earlier answer is pending: the 413 goes out now, as
    /// Apache and nginx answer, and the rest of the body is read and dropped — at most
    /// ``lingerBytes`` more, for at most ``lingerTime`` — before the connection closes. A client
    /// that writes its whole body before reading gets the answer instead of a reset.
    private func refuseEarly(context: ChannelHandlerContext) {
        closing = true
        lingering = true
        let answer = RecordingProxy.problem(413, "Content Too Large",
                                            "samlharness record keeps bodies up to \(proxy.options.maxBodyBytes) bytes.")
        let written = write(answer, keepAlive: false, isHead: false, context: context, closeAfter: false)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.whenComplete { _ in loopBound.value.close(mode: .output, promise: nil) }
        lingerDeadline = context.eventLoop.scheduleTask(in: Self.lingerTime) {
            loopBound.value.close(promise: nil)
        }
    }

    // MARK: - Dispatch

    private func processNext(context: ChannelHandlerContext) {
        guard !busy, !closing, !queue.isEmpty else { return }
        let request = queue.removeFirst()
        let index = requestCount - queue.count - 1
        busy = true
        let keepAlive = request.head.isKeepAlive
        if tooLarge.remove(index) != nil {
            closing = true
            finish(RecordingProxy.problem(413, "Content Too Large",
                                          "samlharness record keeps bodies up to \(proxy.options.maxBodyBytes) bytes."),
                   request: request, keepAlive: false, context: context)
            return
        }
        if request.head.method == .CONNECT, tunnel == nil {
            if let denied = authenticationRefusal(request) {
                closing = true
                finish(denied, request: request, keepAlive: false, context: context)
                return
            }
            handleConnect(request, context: context)
            return
        }
        let target: RecordingProxy.Destination
        let intercepted: Bool
        switch route(of: request) {
        case nil:
            finish(RecordingProxy.problem(400, "Bad Request",
                                          "samlharness record could not tell where `\(request.head.uri)` goes: send absolute-form "
                                          + "requests (GET http://host/path) or CONNECT host:port."),
                   request: request, keepAlive: keepAlive, context: context)
            return
        case .proxyPage?:
            finish(servePage(request), request: request, keepAlive: keepAlive, context: context)
            return
        case .origin(let destination, let inTunnel)?:
            target = destination
            intercepted = inTunnel
        }
        // Inside an intercepted tunnel the CONNECT was authenticated.
        if !intercepted, let denied = authenticationRefusal(request) {
            finish(denied, request: request, keepAlive: keepAlive, context: context)
            return
        }
        let allowed = intercepted || proxy.isAllowed(host: target.host, port: target.port)
        if !allowed, proxy.options.effectiveOthers == .refuse {
            proxy.note { $0.refused[target.key, default: 0] += 1 }
            finish(refusal(target.key, host: target.host), request: request, keepAlive: keepAlive, context: context)
            return
        }
        if !allowed { proxy.note { $0.passedThrough[target.key, default: 0] += 1 } }
        let proxy = self.proxy
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // A tunnel's addresses were checked at its CONNECT; a plain request's are checked now.
        let guarding = proxy.options.guardsDestinations && !intercepted
        Task {
            var target = target
            if guarding {
                let guarded = await ProxyFrontHandler.guardDestination(target.host, key: target.key, proxy: proxy)
                if let refusal = guarded.refusal {
                    eventLoop.execute {
                        handler.value.finish(refusal, request: request, keepAlive: keepAlive, context: boundContext.value)
                    }
                    return
                }
                target.addresses = guarded.addresses
            }
            let answer = await proxy.exchange(request, to: target, record: allowed, intercepted: intercepted)
            eventLoop.execute {
                handler.value.finish(answer, request: request, keepAlive: keepAlive, context: boundContext.value)
            }
        }
    }

    /// What ``guardDestination(_:key:proxy:)`` decided: the addresses to connect to, or the
    /// answer that refuses the destination.
    struct Guarded: Sendable {
        var addresses: [String] = []
        var refusal: RecordingProxy.Answer?
    }

    /// Resolves and checks `host` (``DestinationGuard``): the addresses to connect to, or the
    /// answer that refuses it (403 naming the address, its range and the flag that allows it;
    /// 502 when the name does not resolve).
    static func guardDestination(_ host: String, key: String, proxy: RecordingProxy) async -> Guarded {
        switch await DestinationGuard.check(host: host) {
        case .allowed(let addresses):
            return Guarded(addresses: addresses.map(\.text))
        case .unresolved(let reason):
            proxy.note { $0.upstreamFailures[key] = "could not resolve \(host): \(reason)" }
            return Guarded(refusal: RecordingProxy.problem(502, "Bad Gateway", "samlharness record could not resolve \(host): \(reason)."))
        case .refused(let refusal):
            let what = "\(refusal.address), \(refusal.range)"
            proxy.note { $0.refusedDestinations[key] = what }
            proxy.report("refused \(key): \(what) (the proxy listens beyond loopback; --allow-private-destinations allows it)")
            let subject = host == refusal.address ? host : "\(host) resolves to \(refusal.address), which"
            return Guarded(refusal: RecordingProxy.problem(
                403, "Forbidden",
                "samlharness record refuses \(key): \(subject) is in \(refusal.range). The proxy listens on \(proxy.options.host), "
                + "beyond loopback, so it does not reach loopback, private, link-local (cloud metadata), CGNAT or unspecified "
                + "addresses for whoever can reach its port. To record an IdP on a private network, restart it with "
                + "--allow-private-destinations."))
        }
    }

    /// nil when the proxy asks no password or `request` carries the right one; else the 407.
    private func authenticationRefusal(_ request: RecordingProxy.ClientRequest) -> RecordingProxy.Answer? {
        guard let credentials = proxy.options.credentials,
              !credentials.accepts(request.head.headers["proxy-authorization"]) else { return nil }
        proxy.note { $0.unauthenticated += 1 }
        var answer = RecordingProxy.problem(
            407, "Proxy Authentication Required",
            "samlharness record asks for its user and password (Proxy-Authorization: Basic). They are in its ready line and on "
            + "its stderr: give them in the device's proxy settings, or as http://USER:PASSWORD@HOST:PORT. The CA "
            + "(/ca.crt, /ca.pem) needs none.")
        answer.headers.insert(("Proxy-Authenticate", ProxyCredentials.challenge), at: 0)
        return answer
    }

    /// Where a request goes.
    enum Route {
        /// The proxy's own page (`/`, `/ca.pem`, `/ca.crt`, or `http://samlharness.record/…`).
        case proxyPage
        /// An origin; `intercepted` inside an intercepted CONNECT tunnel.
        case origin(RecordingProxy.Destination, intercepted: Bool)
    }

    /// The request's route; nil when it names no readable destination.
    private func route(of request: RecordingProxy.ClientRequest) -> Route? {
        let uri = request.head.uri
        if let tunnel {
            let originForm = uri.hasPrefix("/") ? uri : Self.originForm(of: uri)
            return .origin(.init(scheme: "https", host: tunnel.host, port: tunnel.port, originForm: originForm,
                                 addresses: tunnel.addresses), intercepted: true)
        }
        if uri.hasPrefix("/") || uri == "*" {
            return .proxyPage  // addressed to the proxy itself
        }
        guard let range = uri.range(of: "://") else { return nil }
        let scheme = uri[..<range.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = uri[range.upperBound...]
        let authorityText = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        let withoutUser = authorityText.split(separator: "@").last.map(String.init) ?? authorityText
        guard let (host, port) = Authority.split(withoutUser) else { return nil }
        if host.lowercased() == "samlharness.record" { return .proxyPage }
        let origin = RecordingProxy.Destination(scheme: scheme, host: host, port: port ?? (scheme == "https" ? 443 : 80),
                                                originForm: Self.originForm(of: uri))
        return .origin(origin, intercepted: false)
    }

    /// `/path?query` of an absolute-form target, exactly as sent.
    static func originForm(of uri: String) -> String {
        guard let range = uri.range(of: "://") else { return uri }
        let rest = uri[range.upperBound...]
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = String(rest[start...])
        let withoutFragment = tail.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? tail
        return withoutFragment.hasPrefix("?") ? "/" + withoutFragment : withoutFragment
    }

    private func refusal(_ key: String, host: String) -> RecordingProxy.Answer {
        let list = "samlharness record refuses \(key): it is not on the allow-list ("
            + proxy.options.allow.map(\.description).joined(separator: ", ") + ")"
        guard proxy.options.listensBeyondLoopback else {
            return RecordingProxy.problem(403, "Forbidden", list + " and --others refuse is set.")
        }
        let name = host.contains(":") ? "[\(host)]" : host
        return RecordingProxy.problem(403, "Forbidden", list + ". The proxy listens on \(proxy.options.host), beyond loopback, "
            + "so hosts outside --allow-host are refused whatever --others says (only a proxy on loopback tunnels other hosts). "
            + "To record \(name) too, restart it with --allow-host \(name).")
    }

    private func finish(_ answer: RecordingProxy.Answer, request: RecordingProxy.ClientRequest, keepAlive: Bool,
                        context: ChannelHandlerContext) {
        let keep = keepAlive && !closing
        write(answer, keepAlive: keep, isHead: request.head.method == .HEAD, context: context)
        busy = false
        if keep {
            processNext(context: context)
        } else {
            closing = true
        }
    }

    @discardableResult
    private func write(_ answer: RecordingProxy.Answer, keepAlive: Bool, isHead: Bool, context: ChannelHandlerContext,
                       closeAfter: Bool = true) -> EventLoopFuture<Void> {
        var headers = HTTPHeaders()
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: answer.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !isHead, !answer.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive, closeAfter {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
        return written
    }

    // MARK: - CONNECT

    private func handleConnect(_ request: RecordingProxy.ClientRequest, context: ChannelHandlerContext) {
        guard let (host, port) = Authority.split(request.head.uri), let port else {
            closing = true
            finish(RecordingProxy.problem(400, "Bad Request", "CONNECT needs host:port, not `\(request.head.uri)`."),
                   request: request, keepAlive: false, context: context)
            return
        }
        let key = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        if proxy.isAllowed(host: host, port: port) {
            guard proxy.options.guardsDestinations else {
                intercept(host: host, port: port, addresses: [], context: context)
                return
            }
            // Checked before the 200: the tunnel then goes to these addresses and no other.
            let proxy = self.proxy
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            Task {
                let guarded = await ProxyFrontHandler.guardDestination(host, key: key, proxy: proxy)
                eventLoop.execute {
                    let front = handler.value
                    if let refusal = guarded.refusal {
                        front.closing = true
                        front.finish(refusal, request: request, keepAlive: false, context: boundContext.value)
                    } else {
                        front.intercept(host: host, port: port, addresses: guarded.addresses, context: boundContext.value)
                    }
                }
            }
        } else if proxy.options.effectiveOthers == .refuse {
            proxy.note { $0.refused[key, default: 0] += 1 }
            closing = true
            finish(refusal(key, host: host), request: request, keepAlive: false, context: context)
        } else {
            proxy.note { $0.passedThrough[key, default: 0] += 1 }
            passThrough(host: host, port: port, request: request, context: context)
        }
    }

    private static let established = "HTTP/1.1 200 Connection Established\r\n\r\n"

    /// Takes the HTTP codec out, says 200, puts TLS (the recording CA's leaf for `host`) and a
    /// new HTTP codec in front of this handler.
    private func intercept(host: String, port: Int, addresses: [String], context: ChannelHandlerContext) {
        let tlsContext: NIOSSLContext
        do {
            tlsContext = try proxy.ca.serverContext(for: host)
        } catch {
            proxy.report("error: cannot make a certificate for \(host): \(error)")
            closing = true
            write(RecordingProxy.problem(502, "Bad Gateway", "samlharness record could not make a certificate for \(host): \(error)."),
                  keepAlive: false, isHead: false, context: context)
            return
        }
        let pipeline = context.pipeline
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        pipeline.removeHandler(name: Self.decoderName)
            .flatMap { pipeline.removeHandler(name: Self.encoderName) }
            .flatMap { channel.writeAndFlush(channel.allocator.buffer(string: Self.established)) }
            .flatMapThrowing {
                let front = handler.value
                let context = boundContext.value
                try pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext), position: .before(front))
                for (codec, name) in Self.httpHandlers() {
                    try pipeline.syncOperations.addHandler(codec, name: name, position: .before(front))
                }
                front.tunnel = (host, port, addresses)
                front.busy = false
                front.processNext(context: context)
            }
            .whenFailure { error in
                handler.value.proxy.report("warning: CONNECT \(host):\(port) could not be intercepted: \(error)")
                channel.close(promise: nil)
            }
    }

    /// Connects to `host:port`, says 200, and relays bytes both ways without reading them.
    private func passThrough(host: String, port: Int, request: RecordingProxy.ClientRequest, context: ChannelHandlerContext) {
        let channel = context.channel
        let pipeline = context.pipeline
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port)
            .hop(to: context.eventLoop)
            .whenComplete { result in
                let front = handler.value
                switch result {
                case .failure(let error):
                    front.closing = true
                    front.finish(RecordingProxy.problem(502, "Bad Gateway", "samlharness record could not reach \(host):\(port): \(error)."),
                                 request: request, keepAlive: false, context: boundContext.value)
                case .success(let upstream):
                    pipeline.removeHandler(name: Self.decoderName)
                        .flatMap { pipeline.removeHandler(name: Self.encoderName) }
                        .flatMap { channel.writeAndFlush(channel.allocator.buffer(string: Self.established)) }
                        .flatMap { pipeline.removeHandler(name: Self.frontName) }
                        .flatMapThrowing {
                            // Both channels are on this event loop (the bootstrap above).
                            let (ours, theirs) = ByteRelay.pair()
                            try channel.pipeline.syncOperations.addHandler(ours)
                            try upstream.pipeline.syncOperations.addHandler(theirs)
                        }
                        .whenFailure { _ in
                            channel.close(promise: nil)
                            upstream.close(promise: nil)
                        }
                }
            }
    }

    // MARK: - The proxy's own page

    private func servePage(_ request: RecordingProxy.ClientRequest) -> RecordingProxy.Answer {
        let path = Self.originForm(of: request.head.uri)
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        switch bare {
        case "/ca.pem":
            return .init(status: 200, headers: [("Content-Type", "application/x-pem-file"),
                                                ("Content-Disposition", "attachment; filename=\"samlharness-recording-ca.pem\""),
                                                ("Cache-Control", "no-store")],
                         body: Array(proxy.ca.certificatePEM.utf8)).withLength()
        case "/ca.crt", "/ca.cer", "/ca.der":
            return .init(status: 200, headers: [("Content-Type", "application/x-x509-ca-cert"),
                                                ("Content-Disposition", "attachment; filename=\"samlharness-recording-ca.crt\""),
                                                ("Cache-Control", "no-store")],
                         body: proxy.ca.certificateDER).withLength()
        case "/", "/index.html":
            return .init(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                         body: Array(RecordingPage.html(ca: proxy.ca, allow: proxy.options.allow,
                                                        others: proxy.options.effectiveOthers).utf8))
                .withLength()
        default:
            return RecordingProxy.problem(404, "Not Found",
                                          "This is the samlharness record proxy. Its own pages: / (how to trust the CA), /ca.pem, /ca.crt. "
                                          + "Send requests for other sites through it as a proxy.")
        }
    }
}

extension RecordingProxy.Answer {
    func withLength() -> Self {
        var copy = self
        copy.headers.append(("Content-Length", String(body.count)))
        return copy
    }
}

/// Relays bytes between two channels on one event loop (a CONNECT tunnel that is not read).
final class ByteRelay: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: ByteRelay?
    private var context: ChannelHandlerContext?

    /// Two relays for channels that share an event loop.
    static func pair() -> (ByteRelay, ByteRelay) {
        let first = ByteRelay()
        let second = ByteRelay()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
        partner = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
