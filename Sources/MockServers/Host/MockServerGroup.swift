import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import SAMLCore
import ServiceLifecycle

/// Runs several mocks in one process, each on its own loopback port (port 0: ephemeral),
/// all recording to one ``TrafficLog``. ``start(_:host:log:)`` returns once every listener
/// is bound and accepting.
///
/// ```swift
/// let servers = try await MockServerGroup.start([.init(handler: idp), .init(handler: sp)], log: log)
/// let idpURL = servers.baseURL(of: "idp")!
/// defer { Task { await servers.stop() } }
/// ```
public final class MockServerGroup: Sendable {
    /// A mock to host, the port to bind it to, and whether it speaks https.
    public struct Listener: Sendable {
        public var handler: any MockHandler
        public var port: Int
        /// Serve https with this identity instead of plain http.
        public var tls: MockTLS?
        /// The binding's name (default: the handler's). A second listener of one mock (its
        /// plain-http twin beside an https one) needs a name of its own; its traffic is
        /// still recorded under the handler's name.
        public var name: String?
        /// The address this listener binds instead of the group's (the control API stays on
        /// loopback when the mocks are bound to the network); its URLs name this address,
        /// never the group's public host.
        public var host: String?

        public init(handler: any MockHandler, port: Int = 0, tls: MockTLS? = nil, name: String? = nil, host: String? = nil) {
            self.handler = handler
            self.port = port
            self.tls = tls
            self.name = name
            self.host = host
        }

        var bindingName: String { name ?? handler.name }
    }

    /// Where a mock listens.
    public struct Binding: Sendable, Equatable, Codable {
        public let name: String
        /// The address bound.
        public let host: String
        public let port: Int
        /// `http` or `https`.
        public var scheme: String = "http"
        /// The name clients reach `host` by, when it is another (`serve --public-host`).
        public var publicHost: String?
        /// The URL clients use: the public name when there is one.
        public var baseURL: String {
            let name = publicHost ?? host
            return "\(scheme)://\(name.contains(":") ? "[\(name)]" : name):\(port)"
        }
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let bindings: [Binding]
    public let log: TrafficLog
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(bindings: [Binding], log: TrafficLog, serviceGroup: ServiceGroup, runTask: Task<Void, any Error>) {
        self.bindings = bindings
        self.log = log
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    public func binding(of name: String) -> Binding? { bindings.first { $0.name == name } }
    public func baseURL(of name: String) -> String? { binding(of: name)?.baseURL }

    /// Binds every listener and returns when all accept connections.
    public static func start(_ listeners: [Listener], host: String = "127.0.0.1", publicHost: String? = nil, log: TrafficLog,
                             maxBodyBytes: Int = 8 * 1024 * 1024, backlog: Int = 1024,
                             logger: Logger = Logger(label: "samlharness.mocks")) async throws -> MockServerGroup {
        let origins = LockedValue<[String: String]>([:])
        let (readyStream, readyContinuation) = AsyncStream<(String, Int)>.makeStream()
        var applications: [any Service] = []
        for listener in listeners {
            let name = listener.bindingName
            let host = listener.host ?? host
            let responder = MockResponder(handler: listener.handler, log: log,
                                          origin: { origins.withLock { $0[name] } ?? "http://\(host)" },
                                          maxBodyBytes: maxBodyBytes)
            // Hummingbird's per-connection messages at warning at most; a caller's quieter
            // logger (the runner's: critical only) stays as quiet.
            var quietLogger = logger
            quietLogger.logLevel = max(logger.logLevel, .warning)
            let server: HTTPServerBuilder
            if let tls = listener.tls {
                do {
                    let recorder = TLSHandshakeRecorder(log: log, mock: listener.handler.name,
                                                        origin: { origins.withLock { $0[name] } ?? "https://\(host)" },
                                                        fault: tls.fault)
                    server = try .tls(.mockHTTP1(handshakes: recorder), tlsConfiguration: tls.configuration)
                } catch {
                    throw StartError(description: "could not set up TLS for \(name) from \(tls.directory.path): \(error)")
                }
            } else {
                server = .mockHTTP1
            }
            let application = Application(
                responder: responder,
                server: server,
                configuration: .init(address: .hostname(host, port: listener.port), serverName: nil, backlog: backlog),
                onServerRunning: { channel in
                    readyContinuation.yield((name, channel.localAddress?.port ?? -1))
                },
                logger: quietLogger)
            applications.append(application)
        }
        let group = ServiceGroup(configuration: .init(services: applications.map { .init(service: $0) },
                                                      gracefulShutdownSignals: [], logger: logger))
        let runTask = Task { try await group.run() }
        // Ready when every listener reported its port, or fail when the group ends first
        // (a port in use, a bad address).
        let failure = Task {
            let result = await runTask.result
            readyContinuation.finish()
            return result
        }
        var bound: [String: Int] = [:]
        for await (name, port) in readyStream {
            bound[name] = port
            if bound.count == listeners.count { break }
        }
        guard bound.count == listeners.count else {
            let reason: String
            if case .failure(let error) = await failure.value { reason = "\(error)" } else { reason = "the servers stopped" }
            throw StartError(description: "could not start the mock servers on \(host): \(reason)")
        }
        let bindings = listeners.map {
            Binding(name: $0.bindingName, host: $0.host ?? host, port: bound[$0.bindingName] ?? -1,
                    scheme: $0.tls == nil ? "http" : "https", publicHost: $0.host == nil ? publicHost : nil)
        }
        origins.withLock { map in for binding in bindings { map[binding.name] = binding.baseURL } }
        return MockServerGroup(bindings: bindings, log: log, serviceGroup: group, runTask: runTask)
    }

    /// Stops accepting, lets exchanges in flight finish (up to `grace`), then stops.
    public func stop(grace: Duration = .seconds(2)) async {
        await serviceGroup.triggerGracefulShutdown()
        let task = runTask
        let timeout = Task {
            try? await Task.sleep(for: grace)
            task.cancel()
        }
        _ = await task.result
        timeout.cancel()
    }

    /// Runs until the task is cancelled or the servers stop.
    public func wait() async throws {
        try await runTask.value
    }
}
