import Foundation
import MockServers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SAMLCore

/// `samlharness record`'s proxy: an HTTP/1.1 forward proxy that records every exchange with an
/// allowed host (``HostPattern``) into a ``TrafficLog`` — full bodies, headers in the order
/// sent, timings, the client connection — and hands the rest through untouched (or refuses it).
///
/// - Plain requests (`GET http://idp.example.org/…`) are forwarded as sent.
/// - `CONNECT host:port` to an allowed host is intercepted: the proxy answers `200`, completes
///   the client's TLS handshake with a leaf from ``RecordingCA`` and reads the requests inside.
///   `CONNECT` to any other host is tunnelled byte for byte (or refused, ``Options/others``).
/// - Upstream TLS is verified against the system trust store (plus ``Options/upstreamCAFile``);
///   a certificate that fails is answered `502` with the reason, recorded, and reported — the
///   recording never hides it. ``Options/insecureUpstream`` forwards anyway, still recording
///   what verification said (the first handshake with each host is a verified one).
/// - `Accept-Encoding` goes upstream as `identity`, so every body is recorded readable.
/// - Requests to the proxy itself, or to `http://samlharness.record/`, get a page that hands out
///   the CA certificate (`/ca.pem`, `/ca.crt`) for installing on a device — never its key.
/// - Listening beyond loopback (``Options/listensBeyondLoopback``) it is no open proxy: hosts
///   outside the allow-list are refused whatever ``Options/others`` says, loopback, private and
///   link-local destinations are refused after one resolution and the connection goes to the
///   checked addresses (``DestinationGuard``; ``Options/allowPrivateDestinations`` lifts it),
///   and ``Options/credentials`` (made per session by the command) are demanded with a 407.
public final class RecordingProxy: Sendable {
    public enum Others: String, Sendable, CaseIterable {
        /// Not recorded: CONNECT tunnelled byte for byte, plain requests forwarded.
        case tunnel
        /// `403`, naming the allow-list.
        case refuse
    }

    public struct Options: Sendable {
        /// The address the proxy listens on. Anything but loopback (``listensBeyondLoopback``)
        /// turns on the guards: hosts outside ``allow`` refused whatever ``others`` says, and
        /// loopback, private and link-local destinations refused (``DestinationGuard``).
        public var host: String
        public var port: Int
        public var allow: [HostPattern]
        /// Hosts outside ``allow`` when listening on loopback; beyond it they are refused.
        public var others: Others
        public var insecureUpstream: Bool
        public var upstreamCAFile: String?
        public var maxBodyBytes: Int
        public var upstreamTimeout: Duration
        /// Beyond loopback, still reach loopback, private and link-local destinations
        /// (`--allow-private-destinations`: an IdP on the private network).
        public var allowPrivateDestinations: Bool
        /// The user and password every proxied request and CONNECT must carry in
        /// `Proxy-Authorization` (407 otherwise); nil asks none. The proxy's own pages
        /// (`/`, `/ca.crt`, `/ca.pem`) stay open: a device needs the CA before anything else.
        public var credentials: ProxyCredentials?

        public init(host: String = "127.0.0.1", port: Int = 8080, allow: [HostPattern], others: Others = .tunnel,
                    insecureUpstream: Bool = false, upstreamCAFile: String? = nil,
                    maxBodyBytes: Int = 64 * 1024 * 1024, upstreamTimeout: Duration = .seconds(60),
                    allowPrivateDestinations: Bool = false, credentials: ProxyCredentials? = nil) {
            self.host = host
            self.port = port
            self.allow = allow
            self.others = others
            self.insecureUpstream = insecureUpstream
            self.upstreamCAFile = upstreamCAFile
            self.maxBodyBytes = maxBodyBytes
            self.upstreamTimeout = upstreamTimeout
            self.allowPrivateDestinations = allowPrivateDestinations
            self.credentials = credentials
        }

        /// Whether others than this machine's own users can reach the proxy: it listens on an
        /// address other than loopback (`0.0.0.0`, `::`, a LAN address, a host name). Keyed on
        /// the listen address, never on a client's: a LAN client may come through a local relay.
        public var listensBeyondLoopback: Bool { !DestinationGuard.isLoopback(listenHost: host) }

        /// ``others`` as it applies: `refuse` beyond loopback, whatever was asked.
        public var effectiveOthers: Others { listensBeyondLoopback ? .refuse : others }

        /// Whether destinations are resolved and checked before the proxy connects.
        var guardsDestinations: Bool { listensBeyondLoopback && !allowPrivateDestinations }
    }

    /// The annotation keys recorded exchanges carry (HAR `_annotations`).
    public enum Key {
        /// `host:port` the exchange went to.
        public static let upstream = "record.upstream"
        /// `intercepted` (TLS through the recording CA) or `plain`.
        public static let transport = "record.transport"
        /// `verified`, or `NOT verified: …` (with --insecure-upstream).
        public static let upstreamTLS = "record.upstream-tls"
        /// Why the proxy answered itself (upstream certificate refused, unreachable, …).
        public static let upstreamError = "record.upstream-error"
        /// The client's `Accept-Encoding`, replaced upstream by `identity`.
        public static let acceptEncoding = "record.client-accept-encoding"
        /// Milliseconds from the answer's head to its last byte.
        public static let receiveMS = "record.receive-ms"
        public static let upstreamIP = "record.upstream-ip"
        public static let upstreamVersion = "record.upstream-http-version"
    }

    /// What happened besides recorded exchanges, for the summary.
    public struct Summary: Sendable {
        /// Recorded exchanges per `host:port`.
        public var recorded: [String: Int] = [:]
        /// Hosts not allowed, passed through unrecorded: `host:port` → connections or requests.
        public var passedThrough: [String: Int] = [:]
        /// Hosts not allowed and refused.
        public var refused: [String: Int] = [:]
        /// Destinations refused for their address (beyond loopback): `host:port` → the address
        /// and its range.
        public var refusedDestinations: [String: String] = [:]
        /// Requests and CONNECTs answered 407 (no or wrong `Proxy-Authorization`).
        public var unauthenticated = 0
        /// Upstream certificate problems: `host:port` → what verification said.
        public var upstreamCertificateProblems: [String: String] = [:]
        /// Other upstream failures (unreachable, timeout): `host:port` → the last one.
        public var upstreamFailures: [String: String] = [:]
        /// Clients that refused the proxy's certificate: `host` → the handshake error.
        public var clientRefusedCertificate: [String: String] = [:]
    }

    public let options: Options
    public let ca: RecordingCA
    public let log: TrafficLog
    let client: UpstreamClient
    let verifiedTLS: NIOSSLContext
    let unverifiedTLS: NIOSSLContext
    private let state = LockedValue(State())
    private let serverChannel = LockedValue<(any Channel)?>(nil)
    /// Called with one line per recorded exchange and per warning (stderr in the command).
    let report: @Sendable (String) -> Void

    struct State {
        var summary = Summary()
        var nextConnection = 1
        var inFlight = 0
        /// Per upstream `host:port`: nil not yet tried, else verified or the failure.
        var verification: [String: String?] = [:]
        var stopping = false
    }

    public init(options: Options, ca: RecordingCA, report: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.options = options
        self.ca = ca
        self.report = report
        log = TrafficLog(capacity: 1_000_000, maxBodyBytes: 4 * 1024 * 1024 * 1024)
        client = UpstreamClient(timeout: options.upstreamTimeout, maxBodyBytes: options.maxBodyBytes)
        var verified = TLSConfiguration.makeClientConfiguration()
        verified.applicationProtocols = ["http/1.1"]
        if let file = options.upstreamCAFile {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw RecordingCA.Failure("--upstream-ca \(file): no such readable file")
            }
            do {
                verified.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            } catch {
                throw RecordingCA.Failure("--upstream-ca \(file): not PEM certificates (\(error))")
            }
        }
        verifiedTLS = try NIOSSLContext(configuration: verified)
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.applicationProtocols = ["http/1.1"]
        unverified.certificateVerification = .none
        unverifiedTLS = try NIOSSLContext(configuration: unverified)
    }

    /// Binds and starts accepting; returns the bound address.
    public func start() async throws -> (host: String, port: Int) {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                let connection = self.nextConnectionID()
                return channel.eventLoop.makeCompletedFuture {
                    let front = ProxyFrontHandler(proxy: self, connectionID: connection)
                    for (codec, name) in ProxyFrontHandler.httpHandlers() {
                        try channel.pipeline.syncOperations.addHandler(codec, name: name)
                    }
                    try channel.pipeline.syncOperations.addHandler(front, name: ProxyFrontHandler.frontName)
                }
            }
        let channel = try await bootstrap.bind(host: options.host, port: options.port).get()
        serverChannel.withLock { $0 = channel }
        let port = channel.localAddress?.port ?? options.port
        return (options.host, port)
    }

    /// Stops accepting, then waits (at most `grace`) for exchanges in flight to be recorded.
    public func stop(grace: Duration = .seconds(10)) async {
        state.withLock { $0.stopping = true }
        let channel = serverChannel.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, state.withLock({ $0.inFlight }) > 0 {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    public var summary: Summary { state.withLock { $0.summary } }

    func nextConnectionID() -> Int {
        state.withLock { state in
            defer { state.nextConnection += 1 }
            return state.nextConnection
        }
    }

    func isAllowed(host: String, port: Int) -> Bool {
        options.allow.contains { $0.matches(host: host, port: port) }
    }

    func note(_ update: (inout Summary) -> Void) {
        state.withLock { update(&$0.summary) }
    }

    func beginExchange() { state.withLock { $0.inFlight += 1 } }
    func endExchange() { state.withLock { $0.inFlight -= 1 } }

    // MARK: - Forwarding

    /// One client request, complete, as the front handler read it.
    struct ClientRequest: Sendable {
        var head: HTTPRequestHead
        var body: [UInt8]
        var started: Date
        var startedClock: ContinuousClock.Instant
        var receivedClock: ContinuousClock.Instant
        var connectionID: Int
        var clientAddress: String?
    }

    /// Where a request goes.
    struct Destination: Sendable {
        var scheme: String
        var host: String
        var port: Int
        /// The request target to send upstream (origin-form).
        var originForm: String
        /// The addresses to connect to, checked by ``DestinationGuard`` (beyond loopback); empty:
        /// connect to ``host`` by name.
        var addresses: [String] = []
        /// What to connect to, in order.
        var connectHosts: [String] { addresses.isEmpty ? [host] : addresses }
        var origin: String { "\(scheme)://" + Authority.format(host: host, port: port, scheme: scheme) }
        var key: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    /// The answer to write to the client.
    struct Answer: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
    }

    /// Forwards `request` to `destination`; records it when `record` is set.
    func exchange(_ request: ClientRequest, to destination: Destination, record: Bool, intercepted: Bool) async -> Answer {
        beginExchange()
        defer { endExchange() }
        var upstreamHeaders: [(name: String, value: String)] = []
        var clientAcceptEncoding: String?
        let connectionTokens = Set(request.head.headers[canonicalForm: "connection"].map { $0.lowercased() })
        for (name, value) in request.head.headers {
            let lower = name.lowercased()
            if Self.hopByHop.contains(lower) || connectionTokens.contains(lower) || lower == "content-length" { continue }
            if lower == "accept-encoding" {
                clientAcceptEncoding = (clientAcceptEncoding.map { $0 + ", " } ?? "") + value
                continue
            }
            if lower == "host", request.head.uri.contains("://") { continue }  // replaced below (RFC 9112 §3.2.2)
            upstreamHeaders.append((name, value))
        }
        if request.head.uri.contains("://") || !upstreamHeaders.contains(where: { $0.name.lowercased() == "host" }) {
            upstreamHeaders.insert(("Host", Authority.format(host: destination.host, port: destination.port,
                                                              scheme: destination.scheme)), at: 0)
        }
        if clientAcceptEncoding != nil { upstreamHeaders.append(("Accept-Encoding", "identity")) }
        if !request.body.isEmpty || request.head.headers.contains(name: "content-length")
            || request.head.headers.contains(name: "transfer-encoding") {
            upstreamHeaders.append(("Content-Length", String(request.body.count)))
        }

        var annotations: [String: String] = [Key.upstream: destination.key,
                                             Key.transport: intercepted ? "intercepted" : "plain"]
        if let clientAcceptEncoding { annotations[Key.acceptEncoding] = clientAcceptEncoding }

        var tls: UpstreamClient.TLS?
        if destination.scheme == "https" {
            let serverHostname = RecordingCA.ipAddressBytes(destination.host) == nil ? destination.host : nil
            let verdict = await verification(for: destination, serverHostname: serverHostname)
            switch verdict {
            case nil:
                tls = .init(context: verifiedTLS, serverHostname: serverHostname)
                annotations[Key.upstreamTLS] = "verified"
            case let reason?:
                if options.insecureUpstream {
                    tls = .init(context: unverifiedTLS, serverHostname: serverHostname)
                    annotations[Key.upstreamTLS] = "NOT verified (--insecure-upstream): \(reason)"
                } else {
                    let answer = Self.problem(502, "Bad Gateway",
                        "samlharness record did not forward this request: the certificate \(destination.key) presented failed verification "
                        + "against the system trust store\(options.upstreamCAFile.map { " and \($0)" } ?? ""): \(reason). "
                        + "The recording keeps this exchange. If the server is meant to be trusted, pass its CA with --upstream-ca FILE; "
                        + "to record through it anyway, restart with --insecure-upstream.")
                    annotations[Key.upstreamError] = "certificate refused: \(reason)"
                    annotations[Key.upstreamTLS] = "refused: \(reason)"
                    if record { recordExchange(request, destination: destination, answer: answer, annotations: annotations,
                                               upstream: nil) }
                    return answer
                }
            }
        }

        var response: UpstreamClient.Response?
        do {
            // Each checked address in turn while the connection itself fails.
            for (index, connectHost) in destination.connectHosts.enumerated() {
                do {
                    response = try await client.send(host: connectHost, port: destination.port, method: request.head.method.rawValue,
                                                     target: destination.originForm, headers: upstreamHeaders, body: request.body,
                                                     tls: tls)
                    break
                } catch UpstreamClient.Failure.connect(let reason) where index < destination.connectHosts.count - 1 {
                    report("warning: \(destination.key) at \(connectHost): could not connect (\(reason)); trying its next address")
                }
            }
        } catch {
            let description = (error as? UpstreamClient.Failure)?.description ?? "\(error)"
            let status = if case UpstreamClient.Failure.timeout = error { 504 } else { 502 }
            let answer = Self.problem(status, status == 504 ? "Gateway Timeout" : "Bad Gateway",
                                      "samlharness record could not get an answer from \(destination.key): \(description).")
            annotations[Key.upstreamError] = description
            note { $0.upstreamFailures[destination.key] = description }
            report("warning: \(request.head.method.rawValue) \(destination.origin)\(destination.originForm): \(description) (answered \(status))")
            if record { recordExchange(request, destination: destination, answer: answer, annotations: annotations, upstream: nil) }
            return answer
        }
        guard let response else { return Self.problem(502, "Bad Gateway", "samlharness record could not reach \(destination.key).") }
        let answerTokens = Set(response.headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } })
        var relayed = response.headers.filter { field in
            let lower = field.name.lowercased()
            return !Self.hopByHop.contains(lower) && !answerTokens.contains(lower)
                && (lower != "content-length" || request.head.method == .HEAD)
        }
        if request.head.method != .HEAD, Self.mayHaveBody(response.status) {
            relayed.append(("Content-Length", String(response.body.count)))
        }
        let answer = Answer(status: response.status, headers: relayed, body: response.body)
        if record { recordExchange(request, destination: destination, answer: answer, annotations: annotations, upstream: response) }
        return answer
    }

    /// nil when `destination`'s certificate verified (or will be tried verified now), else why not.
    /// The first connection to each upstream decides; with --insecure-upstream it is a probe.
    private func verification(for destination: Destination, serverHostname: String?) async -> String? {
        if let known = state.withLock({ $0.verification[destination.key] }) { return known }
        do {
            _ = try await UpstreamClient.handshake(host: destination.connectHosts[0], port: destination.port,
                                                   tls: .init(context: verifiedTLS, serverHostname: serverHostname))
            state.withLock { $0.verification[destination.key] = .some(nil) }
            return nil
        } catch UpstreamClient.Failure.tls(let error) {
            let reason = await UpstreamCertificateDiagnosis.explain(host: destination.host, connectHost: destination.connectHosts[0],
                                                                    port: destination.port, serverHostname: serverHostname,
                                                                    error: error)
            state.withLock { $0.verification[destination.key] = .some(reason) }
            note { $0.upstreamCertificateProblems[destination.key] = reason }
            report("warning: \(destination.key) presented a certificate that failed verification: \(reason)"
                + (options.insecureUpstream ? " — forwarding anyway (--insecure-upstream), every exchange with it is marked"
                                            : " — its requests are answered 502 and recorded as such"))
            return reason
        } catch {
            // Not a certificate problem (no answer to HEAD, a timeout): the real request will say.
            return nil
        }
    }

    private func recordExchange(_ request: ClientRequest, destination: Destination, answer: Answer,
                                annotations: [String: String], upstream: UpstreamClient.Response?) {
        var notes = annotations
        let now = ContinuousClock.now
        let headArrived = upstream?.headArrived ?? now
        notes[Key.receiveMS] = String(format: "%.3f", Self.milliseconds(now - headArrived))
        if let ip = upstream?.remoteAddress { notes[Key.upstreamIP] = ip }
        if let version = upstream?.version { notes[Key.upstreamVersion] = version }
        // What the client sent its origin: the proxy's own hop fields are not part of it.
        let headers = request.head.headers.filter { !["proxy-connection", "proxy-authorization"].contains($0.name.lowercased()) }
            .map { (name: $0.name, value: $0.value) }
        let mockRequest = MockRequest(method: request.head.method.rawValue, target: request.head.uri, headers: headers,
                                      body: request.body, connectionID: request.connectionID,
                                      remoteAddress: request.clientAddress, origin: destination.origin)
        var response = MockResponse(status: answer.status, headers: answer.headers, body: answer.body)
        response.annotations = notes
        let (sequence, run) = log.reserve()
        log.record(TrafficEntry(sequence: sequence, mock: destination.key, run: run, request: mockRequest,
                                started: request.started,
                                receiveDuration: Self.seconds(request.receivedClock - request.startedClock),
                                waitDuration: Self.seconds(headArrived - request.receivedClock), response: response))
        note { $0.recorded[destination.key, default: 0] += 1 }
        report(Self.line(sequence: sequence, request: mockRequest, answer: answer, notes: notes))
    }

    static func line(sequence: Int, request: MockRequest, answer: Answer, notes: [String: String]) -> String {
        var url = request.url
        if url.count > 110 { url = String(url.prefix(107)) + "…" }
        var carried: [String] = []
        let text = request.target + " " + String(decoding: request.body.prefix(1 << 20), as: UTF8.self)
        for name in ["SAMLRequest", "SAMLResponse", "SAMLart", "ticket"] where text.contains(name + "=") { carried.append(name) }
        let answerText = String(decoding: answer.body.prefix(1 << 20), as: UTF8.self)
        for name in ["SAMLResponse", "SAMLRequest"] where answerText.contains("name=\"\(name)\"") { carried.append("form with " + name) }
        if let location = answer.headers.first(where: { $0.name.lowercased() == "location" })?.value,
           location.contains("SAMLRequest=") || location.contains("SAMLResponse=") {
            carried.append("redirect with " + (location.contains("SAMLRequest=") ? "SAMLRequest" : "SAMLResponse"))
        }
        var line = "#\(sequence + 1) \(request.method) \(url) → \(answer.status)"
        if !carried.isEmpty { line += "  [" + carried.joined(separator: ", ") + "]" }
        if let error = notes[Key.upstreamError] { line += "  (proxy answered: \(error))" }
        return line
    }

    /// The hop-by-hop fields (RFC 9110 §7.6.1) plus the proxy's own and `Expect` (the proxy
    /// answers `100 Continue` itself and holds the whole body).
    static let hopByHop: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer",
        "transfer-encoding", "upgrade", "expect",
    ]

    static func mayHaveBody(_ status: Int) -> Bool { !(100..<200 ~= status) && status != 204 && status != 304 }

    static func problem(_ status: Int, _ title: String, _ detail: String) -> Answer {
        let body = Array("\(status) \(title)\n\n\(detail)\n".utf8)
        return Answer(status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("X-Content-Type-Options", "nosniff"),
                                                ("Content-Length", String(body.count)), ("Cache-Control", "no-store")],
                      body: body)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (s, attos) = duration.components
        return max(0, TimeInterval(s) + TimeInterval(attos) / 1e18)
    }

    static func milliseconds(_ duration: Duration) -> Double { seconds(duration) * 1000 }
}
