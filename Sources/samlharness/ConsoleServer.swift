import Foundation
import Harness
import HTTPTypes
import Hummingbird
import Logging
import MockServers
import NIOCore
import SAMLCore
import ServiceLifecycle
import Synchronization

/// The live console of `samlharness serve` (docs/devices.md): one self-contained page on a
/// listener of its own that shows the session as it happens, pushed by Server-Sent Events —
/// every exchange with the SAML decoded (as the report's trace has it), the knobs and the
/// clock, and, with `--scenario`, the scenario's checks judged on the traffic so far. Its
/// controls go to the control API in-process (so its loopback-only rule applies to the
/// console's own client), and it offers the session's HAR and, with a scenario, its verdicts
/// and HTML report (without one nothing is judged, and the page says so instead).
///
/// It listens on loopback unless `--console-host` says otherwise, and every path needs the
/// session's token (``SessionGuard``), as Jupyter's and mitmweb's pages do: the URL serve
/// prints carries it (`/?token=…`), and opening it leaves an `HttpOnly`, `SameSite=Strict`
/// cookie that the page's own requests carry. `Host`, `Origin` and the media type of state
/// changes are checked like the control API's. Its downloads are masked like the page
/// unless serve was given `--show-secrets`.
///
/// | request | what |
/// |---|---|
/// | `GET /` | the page (``ConsolePage``) |
/// | `GET /events` | `text/event-stream`: `hello`, then `exchange` (one per exchange, those so far first), `verdicts`, `state` |
/// | `… /api/PATH` | the control API's `PATH` (`state`, `knobs`, `clock`, `reset`, `profile`) |
/// | `GET /traffic.har`, `/verdicts.json`, `/report.html` | the session so far |
final class ConsoleServer: Sendable {
    /// What the page is told about the session.
    struct Session: Sendable {
        var scenario: Scenario?
        var target: ScenarioTarget?
        /// The ready line, as JSON.
        var ready: Data
        /// The address the console is bound to (`--console-host`; loopback by default).
        var host: String
        var publicHost: String?
        /// What the page must say about what is judged (no scenario; knobs added to one).
        var notice: String?
        /// The session's token and request checks (the mocks' own, when there are mocks).
        var sessionGuard: SessionGuard
        /// `--show-secrets`: the downloads and the event stream unmasked.
        var showSecrets = false
    }

    let log: TrafficLog
    /// The mocks' control API and environment; nil for a replayed recording (nothing to switch).
    let control: ControlAPI?
    let environment: MockEnvironment?
    let session: Session
    let started = ContinuousClock.now
    private let masker: SecretMasker
    private let hub = LockedValue(Hub())
    private let tasks = LockedValue<[Task<Void, Never>]>([])
    /// The listener's service group (stopped gracefully) and the task running it.
    private let application = LockedValue<(group: ServiceGroup, run: Task<Void, any Error>)?>(nil)
    /// The page, made once for the session.
    let page: [UInt8]
    private let boundURL = LockedValue("")
    private let firstStarted = LockedValue<Date?>(nil)
    /// The console's address (for a person: the bound address), without the token.
    var baseURL: String { boundURL.withLock { $0 } }
    /// The URL to open: the address with the session's token.
    var url: String { baseURL + "?token=" + session.sessionGuard.token }
    /// The name of the cookie that carries the token (one per port: two sessions on one
    /// machine keep theirs apart).
    var cookieName: String { "samlh_console_" + (baseURL.split(separator: ":").last.map { String($0.prefix { $0.isNumber }) } ?? "") }

    private struct Subscriber {
        var continuation: AsyncStream<ByteBuffer>.Continuation
        /// Exchanges already sent (a snapshot and the live feed may overlap).
        var sent: Set<Int> = []
    }

    private struct Hub {
        var next: UInt64 = 0
        var subscribers: [UInt64: Subscriber] = [:]
        var finalVerdicts: ByteBuffer?
    }

    init(log: TrafficLog, control: ControlAPI?, environment: MockEnvironment? = nil, session: Session) {
        self.log = log
        self.control = control
        self.environment = environment
        self.session = session
        masker = SecretMasker(secrets: session.showSecrets ? []
            : [session.target?.password, session.target?.secondFactorCode].compactMap { $0 })
        page = Array(ConsolePage.page(judging: session.scenario != nil, notice: session.notice).utf8)
    }

    var reachable: String {
        SessionGuard.isLoopbackName(session.host) ? "loopback only"
            : "from the network (bound to \(session.host))"
    }

    // MARK: - Running

    /// Binds `host:port` (0: ephemeral) and returns once the listener accepts connections.
    func start(port: Int, logger: Logger) async throws {
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(responder: ConsoleResponder(server: self),
                              server: .mockHTTP1,
                              configuration: .init(address: .hostname(session.host, port: port), serverName: nil),
                              onServerRunning: { channel in readyContinuation.yield(channel.localAddress?.port ?? -1) },
                              logger: logger)
        // No signal handling of its own: serve's TerminationSignals stops it, gracefully
        // (``finish(final:grace:)``): cancelling the listener logs errors on a normal stop.
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], gracefulShutdownSignals: [], logger: logger))
        let run = Task { try await group.run() }
        application.withLock { $0 = (group, run) }
        let failure = Task {
            _ = await run.result
            readyContinuation.finish()
        }
        var bound: Int?
        for await value in ready {
            bound = value
            break
        }
        failure.cancel()
        guard let bound, bound > 0 else {
            let reason = if case .failure(let error) = await run.result { "\(error)" } else { "it stopped" }
            throw MockServerGroup.StartError(description: "could not start the console on \(session.host):\(port): \(reason)")
        }
        // A wildcard bind is opened, on this machine, at loopback.
        let local = ["0.0.0.0", "::"].contains(session.host) ? "127.0.0.1" : session.host
        let host = local.contains(":") ? "[\(local)]" : local
        boundURL.withLock { $0 = "http://\(host):\(bound)/" }
        let pump = Task { [self] in await self.pump() }
        let ping = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                self.broadcast(ByteBuffer(string: ": ping\n\n"))
            }
        }
        tasks.withLock { $0 += [pump, ping] }
    }

    /// Sends the final verdicts (with a scenario), ends every event stream, waits up to
    /// `grace` for them to drain, and stops the listener: gracefully (idle connections closed,
    /// requests in flight answered), cancelled only when that takes longer than `grace`.
    func finish(final result: ScenarioResult?, grace: Duration = .seconds(1)) async {
        if let result {
            let event = Self.event("verdicts", verdictsJSON(result, final: true))
            hub.withLock { $0.finalVerdicts = event }
            broadcast(event)
        }
        let continuations = hub.withLock { hub in
            defer { hub.subscribers.removeAll() }
            return hub.subscribers.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, openStreams.load(ordering: .relaxed) > 0 {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard let listener = application.withLock({ $0 }) else { return }
        await listener.group.triggerGracefulShutdown()
        let timeout = Task {
            try? await Task.sleep(for: grace)
            listener.run.cancel()
        }
        _ = await listener.run.result
        timeout.cancel()
    }

    /// Event streams still being written.
    let openStreams = Atomic<Int>(0)

    /// Feeds every new exchange to the pages, with the verdicts and the state it changes.
    /// Nobody watching, nothing is rendered or judged: a page opened later gets the session
    /// from the traffic log (``events()``), so an unwatched console costs a login nothing
    /// but this loop's wake-up (docs/performance.md).
    private func pump() async {
        for await entry in log.subscribe() {
            noteStarted(entry.started)
            guard hub.withLock({ !$0.subscribers.isEmpty }) else { continue }
            guard let exchange = exchangeJSON(entry) else { continue }
            let event = Self.event("exchange", exchange)
            hub.withLock { hub in
                for (id, var subscriber) in hub.subscribers where !subscriber.sent.contains(entry.sequence) {
                    subscriber.sent.insert(entry.sequence)
                    subscriber.continuation.yield(event)
                    hub.subscribers[id] = subscriber
                }
            }
            if session.scenario != nil, let verdicts = liveVerdicts() {
                broadcast(Self.event("verdicts", verdicts))
            }
            if entry.mock == "control" {
                broadcast(Self.event("state", await stateJSON()))
            }
        }
    }

    /// Sends the control API's state to every open page.
    func pushState() async {
        broadcast(Self.event("state", await stateJSON()))
    }

    private func broadcast(_ event: ByteBuffer) {
        hub.withLock { hub in
            for subscriber in hub.subscribers.values { subscriber.continuation.yield(event) }
        }
    }

    /// A page's event stream: `hello`, every exchange so far, the verdicts so far, then live.
    func events() async -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(20_000))
        let hello = helloJSON(state: await stateJSON())
        let finalVerdicts: ByteBuffer? = hub.withLock { hub in
            let id = hub.next
            hub.next += 1
            var subscriber = Subscriber(continuation: continuation)
            continuation.yield(Self.event("hello", hello))
            let snapshot = log.entries.suffix(2000)
            for entry in snapshot {
                guard let exchange = exchangeJSON(entry) else { continue }
                subscriber.sent.insert(entry.sequence)
                continuation.yield(Self.event("exchange", exchange))
            }
            if hub.finalVerdicts == nil { hub.subscribers[id] = subscriber }
            continuation.onTermination = { [weak self] _ in
                _ = self?.hub.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            return hub.finalVerdicts
        }
        if let finalVerdicts {
            continuation.yield(finalVerdicts)
            continuation.finish()
        } else if session.scenario != nil, let verdicts = liveVerdicts() {
            continuation.yield(Self.event("verdicts", verdicts))
        }
        return stream
    }

    // MARK: - Events

    static func event(_ name: String, _ json: Data) -> ByteBuffer {
        var buffer = ByteBuffer(string: "event: \(name)\ndata: ")
        // JSON has no raw newlines in it (the encoder escapes them), so one data line.
        buffer.writeBytes(json)
        buffer.writeString("\n\n")
        return buffer
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func helloJSON(state: Data) -> Data {
        var session: [String: Any] = ["reachable": reachable, "public_host": self.session.publicHost ?? NSNull(),
                                      "notice": self.session.notice ?? NSNull()]
        if let scenario = self.session.scenario {
            session["scenario"] = scenario.id
            session["title"] = scenario.title
            session["flow"] = scenario.flow.rawValue
            session["expect"] = scenario.expect.outcome.rawValue
        } else {
            session["scenario"] = NSNull()
        }
        let object: [String: Any] = [
            "session": session,
            "ready": (try? JSONSerialization.jsonObject(with: self.session.ready)) ?? [:],
            "state": (try? JSONSerialization.jsonObject(with: state)) ?? [:],
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// One exchange as the report's trace has it, masked, timed from the session's first one.
    func exchangeJSON(_ entry: TrafficEntry) -> Data? {
        guard var exchange = ScenarioTrace.make(from: [entry], secrets: []).exchanges.first else { return nil }
        // The session's first exchange so far, kept (not the log sorted again per exchange).
        let origin = noteStarted(entry.started)
        exchange.atMilliseconds = Int((entry.started.timeIntervalSince(origin) * 1000).rounded())
        let shown = session.showSecrets ? exchange
            : masker.trace(ScenarioTrace(exchanges: [exchange], masked: false, secrets: [])).exchanges.first ?? exchange
        return try? Self.encoder.encode(shown)
    }

    /// Keeps the session's earliest exchange start and returns it.
    @discardableResult
    func noteStarted(_ started: Date) -> Date {
        firstStarted.withLock { first in
            if first.map({ started < $0 }) ?? true { first = started }
            return first ?? started
        }
    }

    /// The scenario judged on the traffic so far.
    func judged() -> ScenarioResult? {
        guard let scenario = session.scenario, let target = session.target else { return nil }
        let elapsed = ContinuousClock.now - started
        let result = ScenarioRunner.judgeByHand(scenario, target: target, entries: log.entries,
                                                seconds: Double(elapsed.components.seconds))
        return session.showSecrets ? result : masker.result(result)
    }

    private func liveVerdicts() -> Data? {
        judged().map { verdictsJSON($0, final: false) }
    }

    /// Live, a check that has not met its situation yet is `pending`, not not-applicable.
    func verdictsJSON(_ result: ScenarioResult, final: Bool) -> Data {
        struct Row: Encodable {
            let check: String
            let level: String
            let status: String
            let reason: String
            let evidence: [Evidence]
        }
        struct Body: Encodable {
            let final: Bool
            let status: String
            let verdicts: [Row]
            /// Why these verdicts may not be the ones wanted (the knobs switched meanwhile).
            let notice: String?
        }
        let rows = result.verdicts.map { verdict in
            Row(check: verdict.check, level: verdict.level.rawValue,
                status: !final && verdict.status == .notApplicable ? "pending" : verdict.status.rawValue,
                reason: verdict.reason, evidence: verdict.evidence)
        }
        return (try? Self.encoder.encode(Body(final: final, status: result.status.rawValue, verdicts: rows,
                                              notice: runTimeNotice()))) ?? Data("{}".utf8)
    }

    /// ``ServeCommand/changedAtRunTime(_:knobs:)`` when the knobs or the profile were switched.
    func runTimeNotice() -> String? {
        guard let scenario = session.scenario, let environment, environment.changedAtRunTime else { return nil }
        return ServeCommand.changedAtRunTime(scenario, knobs: environment.knobs.map(\.text))
    }

    func stateJSON() async -> Data {
        guard let control else { return Data(#"{"replay": true, "knobs": []}"#.utf8) }
        return Data(await control.handleAuthenticated(MockRequest(method: "GET", target: "/state", remoteAddress: "127.0.0.1")).body)
    }

    /// The session's conformance report (one scenario, judged so far).
    func reportHTML() -> String? {
        guard let result = judged(), let scenario = session.scenario else { return nil }
        let run = RunReport(client: "by hand (samlharness serve)", catalog: .of([scenario]), shards: [],
                            started: ISO8601DateFormatter().string(from: Date()),
                            durationSeconds: Double((ContinuousClock.now - started).components.seconds), jobs: 1,
                            evaluatedChecks: ExpectationJudge.evaluated.sorted(), results: [result])
        return HTMLReportWriter.render(ConformanceReport(runs: [run], secretsMasked: !session.showSecrets))
    }

    /// The session's traffic as HAR 1.2, masked unless `--show-secrets`.
    func harJSON() -> Data {
        let har = session.showSecrets ? log.har() : masker.har(log.har())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(har)) ?? Data()
    }

    /// Whether a request may be answered: nil when it may, else the 4xx answer. Every path
    /// needs the token, by `?token=` (the URL serve prints), the console's cookie or
    /// `Authorization: Bearer`; `Host`, `Origin` and state changes are checked as the control
    /// API checks them. A good `?token=` sets the cookie (`setCookie`).
    func authorize(method: String, query: String?, header: (String) -> String?) -> (refusal: SessionGuard.Refusal?, setCookie: Bool) {
        let sessionGuard = session.sessionGuard
        if let refusal = sessionGuard.checkRequest(method: method, header: header) { return (refusal, false) }
        if let presented = query.flatMap({ SessionGuard.queryValue("token", in: $0) }) {
            return sessionGuard.isToken(presented) ? (nil, true)
                : (.init(status: 401, message: "the token in this URL is not this session's: open the console URL serve printed"), false)
        }
        if sessionGuard.isToken(SessionGuard.presentedToken(header: header, query: nil)) { return (nil, false) }
        let cookies = header("Cookie").map { ConsoleServer.cookies(in: $0) } ?? [:]
        if sessionGuard.isToken(cookies[cookieName]) { return (nil, false) }
        return (.init(status: 401, message: "the live console needs the session's token: open the URL serve printed "
            + "(its ready line's `console` and stderr), which carries it as ?token=…"), false)
    }

    /// The pairs of a `Cookie` field (RFC 6265 §5.4).
    static func cookies(in field: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for pair in field.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            if pairs[name] == nil { pairs[name] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return pairs
    }
}

/// The console's HTTP side.
struct ConsoleResponder: HTTPResponder {
    typealias Context = MockRequestContext
    let server: ConsoleServer

    func respond(to request: Request, context: MockRequestContext) async throws -> Response {
        let path = request.uri.path
        let headers = request.headers
        // HTTPTypes keeps `Host` as the request's authority, not among its fields.
        let authority = request.head.authority
        let (refusal, setCookie) = server.authorize(method: request.method.rawValue, query: request.uri.query) { name in
            name.lowercased() == "host" ? authority : HTTPField.Name(name).flatMap { headers[$0] }
        }
        if let refusal {
            var answer = Self.answer(HTTPResponse.Status(code: refusal.status), "text/plain; charset=utf-8",
                                     Array((refusal.message + "\n").utf8))
            answer.headers[.cacheControl] = "no-store"
            return answer
        }
        var response = try await route(request, path: path, context: context)
        if setCookie {
            response.headers.append(HTTPField(name: .setCookie, value: "\(server.cookieName)=\(server.session.sessionGuard.token); "
                + "Path=/; HttpOnly; SameSite=Strict"))
        }
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("X-Frame-Options")!] = "DENY"
        return response
    }

    func route(_ request: Request, path: String, context: MockRequestContext) async throws -> Response {
        switch (request.method, path) {
        case (.get, "/"), (.get, "/index.html"):
            return Self.answer(.ok, "text/html; charset=utf-8", server.page)
        case (.get, "/events"):
            let stream = await server.events()
            let server = server
            server.openStreams.add(1, ordering: .relaxed)
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                defer { server.openStreams.subtract(1, ordering: .relaxed) }
                for await chunk in stream { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
        case (.get, "/traffic.har"), (.get, "/api/traffic.har"):
            // The control API's own export is the log unmasked: through the console, the
            // console's (masked unless --show-secrets).
            return Self.answer(.ok, "application/json", Array(server.harJSON()),
                               extra: [(.contentDisposition, "attachment; filename=\"traffic.har\"")])
        case (.get, "/verdicts.json"):
            guard let result = server.judged() else {
                return Self.answer(.notFound, "application/json", Array(#"{"error": "nothing is judged without a scenario: start serve with --scenario FILE to judge the session"}"#.utf8))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return Self.answer(.ok, "application/json", Array((try? encoder.encode(result)) ?? Data()))
        case (.get, "/report.html"):
            guard let html = server.reportHTML() else {
                return Self.answer(.notFound, "text/plain; charset=utf-8",
                                   Array("nothing is judged without a scenario: start serve with --scenario FILE to get a report\n".utf8))
            }
            return Self.answer(.ok, "text/html; charset=utf-8", Array(html.utf8))
        default:
            guard path.hasPrefix("/api/") else {
                return Self.answer(.notFound, "text/plain; charset=utf-8", Array("not found: \(path)\n".utf8))
            }
            var body: [UInt8] = []
            for try await buffer in request.body {
                guard body.count + buffer.readableBytes <= 64 * 1024 else {
                    // Answered before the rest of the body: `Connection: close` makes the
                    // mocks' HTTP/1 channel read and drop the rest (bounded) and then close.
                    return Self.answer(.contentTooLarge, "application/json", Array(#"{"error": "a control request is at most 64 KiB"}"#.utf8),
                                       extra: [(.connection, "close")])
                }
                body += buffer.readableBytesView
            }
            guard let control = server.control else {
                return Self.answer(.notFound, "application/json",
                                   Array(#"{"error": "a replayed recording has no control API: no knobs, clock or profile to switch"}"#.utf8))
            }
            let target = String(path.dropFirst("/api".count)) + (request.uri.query.map { "?\($0)" } ?? "")
            let answer = await control.handleAuthenticated(MockRequest(
                method: request.method.rawValue, target: target,
                headers: request.headers.map { ($0.name.rawName, $0.value) }, body: body,
                connectionID: context.channel.remoteAddress?.port ?? 0,
                remoteAddress: context.channel.remoteAddress?.ipAddress, origin: server.baseURL))
            var response = Self.answer(HTTPResponse.Status(code: answer.status), answer.header("Content-Type") ?? "application/json",
                                       answer.body)
            response.headers[.cacheControl] = "no-store"
            if request.method != .get, answer.status < 400 {
                // Not in the traffic log (in-process): tell every open page.
                await server.pushState()
            }
            return response
        }
    }

    static func answer(_ status: HTTPResponse.Status, _ type: String, _ body: [UInt8],
                       extra: [(HTTPField.Name, String)] = []) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentLength] = String(body.count)
        for (name, value) in extra { headers[name] = value }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
