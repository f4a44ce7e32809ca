import Foundation

/// Something the client did, for logging or for a test that must act between steps
/// (e.g. move the mocks' clock after the first OPDS login).
public enum ClientEvent: Sendable, Equatable {
    /// An OPDS bearer token was obtained (`count` 1 for the first login, 2 after a re-login).
    case tokenObtained(count: Int)
    /// A free-form step note ("borrowed", "fulfilled"…).
    case step(String)
}

/// The reference SAML/HTTP auth client: every flow of the harness done right, on
/// FoundationNetworking's URLSession, or on a supplied ``HTTPTransport`` (the
/// `samlh-reference-client` executable's, on SwiftNIO).
///
/// ```swift
/// let configuration = try ClientConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
/// let result = await ReferenceClient(configuration: configuration).run()
/// try result.write(to: "result.json")
/// ```
public struct ReferenceClient: Sendable {
    public let configuration: ClientConfiguration
    public let behaviour: ClientBehaviour
    let events: (@Sendable (ClientEvent) async -> Void)?
    let unverifiedTLS: (any UnverifiedTLSTransport)?
    let transport: (any HTTPTransport)?

    /// Creates a client for one run. `events` is called after each notable step.
    /// `unverifiedTLS` is needed only by the buggy trust variants (``ClientBehaviour/serverTrust``).
    /// `transport` carries the requests instead of URLSession (nil: URLSession).
    public init(configuration: ClientConfiguration, behaviour: ClientBehaviour = .correct,
                events: (@Sendable (ClientEvent) async -> Void)? = nil,
                unverifiedTLS: (any UnverifiedTLSTransport)? = nil, transport: (any HTTPTransport)? = nil) {
        self.configuration = configuration
        self.behaviour = behaviour
        self.events = events
        self.unverifiedTLS = unverifiedTLS
        self.transport = transport
    }

    /// Runs the flow within `configuration.timeout` seconds and reports what happened.
    /// Never throws: every problem is a `failure` result naming the server's words.
    ///
    /// The flow's own deadline is ``exitMargin(for:)`` earlier: the runner stops a client at
    /// `SAMLH_TIMEOUT` counted from its own start of the process, so a client that worked up
    /// to its last moment would lose the race to write its result.
    public func run() async -> ClientResult {
        let working = configuration.timeout - Self.exitMargin(for: configuration.timeout)
        let deadline = Date().addingTimeInterval(working)
        let http = HTTPSession(behaviour: behaviour, deadline: deadline, requestTimeout: configuration.requestTimeout,
                               proxy: proxySettings, unverifiedTLS: unverifiedTLS, transport: transport)
        defer { http.invalidate() }
        let context = FlowContext(http: http, configuration: configuration, behaviour: behaviour,
                                  budget: PasswordBudget(limit: behaviour.maxPasswordSubmissions), events: events)
        var result: ClientResult
        do {
            result = try await withDeadline(working, stated: configuration.timeout) { try await perform(context) }
        } catch let failure as ClientFailure {
            result = ClientResult(outcome: .failure, error: failure.description, resource: failure.resource)
        } catch {
            result = ClientResult(outcome: .failure, error: "\(error)")
        }
        result.details["flow"] = configuration.flow.rawValue
        if [.ecp, .adfsWSTrust].contains(configuration.flow) {
            // Where the client itself receives the SAML (no browser hands it to an SP first), it
            // refuses an unsigned Response or token; it does not verify signatures (no XML-DSig
            // in Foundation). A WS-Trust token it also checks for its validity window. The
            // harness holds it to that claim (security.signature-validated,
            // security.assertion-conditions-validated, flow.failure-reported).
            result.details["validates_saml"] = configuration.flow == .adfsWSTrust ? "signature-present,time-conditions" : "signature-present"
        }
        result.details["exchanges"] = String(http.exchanges)
        result.details["password_submissions"] = String(context.budget.count)
        return result
    }

    private var proxySettings: HTTPSession.Proxy? {
        guard configuration.flow == .proxy, let text = configuration.parameters["PROXY_URL"], let url = URL(string: text) else { return nil }
        return HTTPSession.Proxy(url: url, username: configuration.parameters["PROXY_USERNAME"],
                                 password: configuration.parameters["PROXY_PASSWORD"], domain: configuration.parameters["DOMAIN"])
    }

    private func perform(_ context: FlowContext) async throws -> ClientResult {
        switch configuration.flow {
        case .replay where configuration.parameters["IDP_ECP_URL"] != nil:
            // A recorded ECP login: the replay names the recorded IdP's SOAP endpoint.
            return try await ECPFlow(context: context).run()
        case .webSSO, .webSSOIdPInitiated, .casBrowser, .adfsPassive, .replay:
            return try await BrowserLogin(context: context).run()
        case .ecp:
            return try await ECPFlow(context: context).run()
        case .proxy:
            // Whatever is behind the proxy (an HTTP-auth page, the SP, the CAS application)
            // is reached as a browser would: challenges, login pages, auto-posts.
            try Self.requireProcessProxy(configuration)
            return try await BrowserLogin(context: context).run()
        case .httpBasic, .httpDigest, .httpNTLM:
            return try await HTTPAuthFlow(context: context).run()
        case .casREST:
            return try await CASRESTFlow(context: context).run()
        case .adfsWSTrust:
            return try await WSTrustFlow(context: context).run()
        case .opdsSAML:
            return try await OPDSFlow(context: context).run()
        }
    }

    /// URLSession trap (Linux): `connectionProxyDictionary` is accepted and ignored —
    /// requests go straight to the origin. FoundationNetworking runs on libcurl, which reads
    /// the `http_proxy` environment variable, so the proxy flow needs the process started
    /// with `http_proxy=<SAMLH_PROXY_URL>` (the `samlh-reference-client` executable sets it
    /// for itself before the first request). Refuses to run rather than bypass the proxy.
    static func requireProcessProxy(_ configuration: ClientConfiguration) throws {
        #if !canImport(Darwin)
        let proxy = try configuration.required("PROXY_URL")
        let current = ProcessInfo.processInfo.environment["http_proxy"] ?? ""
        guard current.trimmingCharacters(in: CharacterSet(charactersIn: "/")) == proxy.trimmingCharacters(in: CharacterSet(charactersIn: "/")) else {
            throw ClientFailure("flow proxy: Linux URLSession ignores connectionProxyDictionary; start the process with http_proxy=\(proxy) (samlh-reference-client does this itself)")
        }
        #endif
    }

    /// The time kept back from `SAMLH_TIMEOUT` to write the result and exit: a twentieth, at
    /// most half a second.
    public static func exitMargin(for timeout: Double) -> Double {
        min(0.5, timeout / 20)
    }

    /// Runs `body`, or fails "timed out after N s" (`stated`: the scenario's time) when
    /// `seconds` are up.
    private func withDeadline(_ seconds: Double, stated: Double,
                              _ body: @escaping @Sendable () async throws -> ClientResult) async throws -> ClientResult {
        try await withThrowingTaskGroup(of: ClientResult.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                throw ClientFailure("timed out after \(stated) s (SAMLH_TIMEOUT)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw ClientFailure("no result") }
            return first
        }
    }
}

/// What every flow gets.
struct FlowContext: Sendable {
    let http: HTTPSession
    let configuration: ClientConfiguration
    let behaviour: ClientBehaviour
    let budget: PasswordBudget
    let events: (@Sendable (ClientEvent) async -> Void)?

    var browser: BrowserFlow { BrowserFlow(http: http, configuration: configuration, behaviour: behaviour, budget: budget) }

    func emit(_ event: ClientEvent) async { await events?(event) }
}
