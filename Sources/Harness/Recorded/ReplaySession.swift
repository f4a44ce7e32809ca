import Foundation
import Logging
import MockServers
import SAMLCore

/// A recorded chain played back live: one loopback listener per recorded origin (port 0),
/// every exchange in a ``TrafficLog`` like the mocks' (annotated `replay.entry`,
/// `replay.unmatched`, `replay.acs`…), SAML Responses re-timed and re-signed with the harness
/// test IdP key, and the replayed SP's ACS validating what the client posts.
///
/// ```swift
/// let session = try await ReplaySession.start(scenario: scenario, mockIdPDirectory: mockIdP, log: log)
/// print(session.startURL)              // http://127.0.0.1:53211/secure
/// defer { Task { await session.stop() } }
/// ```
public final class ReplaySession: Sendable {
    /// The listeners.
    public let servers: MockServerGroup
    /// Recorded origin (`https://sp.example.org`) → local base URL (`http://127.0.0.1:53211`).
    public let originMap: [String: String]
    /// The chain's first request, rewritten to its listener: where a client starts.
    public let startURL: String
    /// Where the harness IdP certificate the Responses are signed with is served (PEM).
    public let certificateURL: String
    public let scenarioID: String
    public var log: TrafficLog { servers.log }
    let engine: ReplayEngine

    private init(servers: MockServerGroup, originMap: [String: String], startURL: String, certificateURL: String,
                 scenarioID: String, engine: ReplayEngine) {
        self.servers = servers
        self.originMap = originMap
        self.startURL = startURL
        self.certificateURL = certificateURL
        self.scenarioID = scenarioID
        self.engine = engine
    }

    /// The path on every listener that serves the harness IdP certificate.
    public static let certificatePath = "/__samlharness/replay/idp-cert.pem"

    /// Starts the listeners for `scenario.replay` and returns once they accept connections.
    ///
    /// - Parameters:
    ///   - mockIdPDirectory: the MockIdP/ directory; its `keys/` hold the harness IdP and SP
    ///     keys and certificates used to re-sign.
    ///   - clock: the time answers are re-timed to (default: the system clock).
    ///   - ids: where generated values come from (default: a ``SeededIDGenerator`` seeded by
    ///     the scenario's seed, so a replay repeats).
    ///   - timeScale: what the recorded waits are multiplied by, when the chain replays them
    ///     (`delays: true`).
    public static func start(scenario: Scenario, host: String = "127.0.0.1", mockIdPDirectory: URL,
                             log: TrafficLog = TrafficLog(), clock: any SAMLClock = SystemClock(),
                             ids: (any IDGenerator)? = nil, timeScale: Double = 1,
                             logger: Logger = Logger(label: "samlharness.replay")) async throws -> ReplaySession {
        guard let chain = scenario.replay else {
            throw ReplayError("scenario \(scenario.id) has no `replay:` chain (flow: \(scenario.flow.rawValue))")
        }
        let problems = chain.problems()
        guard problems.isEmpty else {
            throw ReplayError("scenario \(scenario.id): the recorded chain is inconsistent:\n  "
                + "" + problems.joined(separator: "\n  "))
        }
        let keys = try ReplayKeys.load(mockIdPDirectory: mockIdPDirectory)
        let engine = ReplayEngine(chain: chain, keys: keys, clock: clock,
                                  ids: ids ?? SeededIDGenerator(seed: scenario.effectiveSeed), timeScale: timeScale)
        let listeners = chain.origins.map {
            MockServerGroup.Listener(handler: ReplayOriginHandler(name: $0.name, engine: engine))
        }
        let servers = try await MockServerGroup.start(listeners, host: host, log: log, logger: logger)
        var map: [String: String] = [:]
        for origin in chain.origins {
            if let base = servers.baseURL(of: origin.name) { map[origin.url] = base }
        }
        engine.prepare(originMap: map)
        let first = chain.entries[0]
        let base = servers.baseURL(of: first.origin) ?? ""
        let start = chain.startURL.map { engine.localize($0) } ?? base + first.request.path
        return ReplaySession(servers: servers, originMap: map, startURL: start,
                             certificateURL: base + certificatePath, scenarioID: scenario.id, engine: engine)
    }

    /// What a client is told besides the start URL (`SAMLH_` + name): `SP_URL`, the entity IDs
    /// the recorded messages name, and for a recorded ECP login `IDP_ECP_URL`, the recorded
    /// IdP's SOAP endpoint on its listener (an ECP client is configured with it, not sent to it).
    public var clientParameters: [String: String] {
        let chain = engine.localizedChain
        var parameters: [String: String] = [:]
        func local(_ name: String) -> String? {
            chain.origin(named: name).flatMap { originMap[$0.url] }
        }
        if let sp = chain.origins.first(where: { $0.role == .sp }), let base = originMap[sp.url] {
            parameters["SP_URL"] = base
        }
        for message in chain.messages {
            guard let document = try? XMLDocument(parsing: Array(message.xml.utf8)),
                  let issuer = document.root.firstChild("Issuer", SAMLNamespace.assertion)?.text,
                  !issuer.contains(ReplayTemplate.open) else { continue }
            parameters[message.kind == .request ? "SP_ENTITY_ID" : "IDP_ENTITY_ID"] = issuer
        }
        // Metadata the recorded client fetched (pysaml2 reads the IdP's from its entity ID).
        for entry in chain.entries where parameters["IDP_ENTITY_ID"] == nil {
            guard let body = entry.response.body, entry.response.bodyBase64 != true, body.contains("IDPSSODescriptor"),
                  let document = try? XMLDocument(parsing: Array(body.utf8)), document.root.localName == "EntityDescriptor",
                  let entityID = document.root.attribute("entityID"), !entityID.contains(ReplayTemplate.open) else { continue }
            parameters["IDP_ENTITY_ID"] = entityID
        }
        // The entry whose request carried a SOAP AuthnRequest is the IdP's ECP endpoint.
        let soapRequests = Set(chain.messages.filter { $0.binding == .soap && $0.kind == .request }.map(\.name))
        if let entry = chain.entries.first(where: { $0.request.carries.map(soapRequests.contains) ?? false }),
           let base = local(entry.origin) {
            parameters["IDP_ECP_URL"] = base + entry.request.path
        }
        return parameters
    }

    /// Forgets what the clients did (consumed entries, bound and generated values), so the next
    /// client starts the chain from the beginning.
    public func reset() { engine.reset() }

    /// Stops the listeners.
    /// Stops the listeners; exchanges in flight get `grace` to finish.
    public func stop(grace: Duration = .seconds(2)) async { await servers.stop(grace: grace) }

    /// What `serve --scenario` prints under `replay` in its ready line.
    public var readyInfo: ReplayReadyInfo {
        ReplayReadyInfo(
            scenario: scenarioID, start: startURL, origins: originMap, certificate: certificateURL,
            listeners: engine.chain.origins.map { origin in
                .init(name: origin.name, role: origin.role.rawValue, recorded: origin.url,
                      local: originMap[origin.url] ?? "")
            })
    }
}

/// The `replay` part of `samlharness serve --scenario FILE`'s ready line.
public struct ReplayReadyInfo: Codable, Sendable, Equatable {
    public struct Listener: Codable, Sendable, Equatable {
        /// The listener's name in the traffic log (`sp`, `idp`, `other-1`).
        public let name: String
        public let role: String
        public let recorded: String
        public let local: String
    }

    public let scenario: String
    /// Where a client starts (the first recorded request, rewritten).
    public let start: String
    /// Recorded origin → local base URL.
    public let origins: [String: String]
    /// The harness IdP certificate (PEM) the replayed Responses are signed with.
    public let certificate: String
    public let listeners: [Listener]
}

/// A replay that cannot start; says why.
public struct ReplayError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The harness test keys (MockIdP/keys): the IdP's re-signs Responses, the SP's re-signs
/// requests that were signed.
struct ReplayKeys: Sendable {
    let idpKey: PrivateKey
    let idpCertificate: Certificate
    let spKey: PrivateKey
    let spCertificate: Certificate

    static func load(mockIdPDirectory: URL) throws -> ReplayKeys {
        let keys = mockIdPDirectory.appendingPathComponent("keys")
        func read<T>(_ name: String, _ make: (URL) throws -> T) throws -> T {
            do { return try make(keys.appendingPathComponent(name)) } catch {
                throw ReplayError("cannot read the harness key \(keys.appendingPathComponent(name).path): \(error)")
            }
        }
        return ReplayKeys(idpKey: try read("idp-key.pem", PrivateKey.init(contentsOf:)),
                          idpCertificate: try read("idp-cert.pem", Certificate.init(contentsOf:)),
                          spKey: try read("sp-key.pem", PrivateKey.init(contentsOf:)),
                          spCertificate: try read("sp-cert.pem", Certificate.init(contentsOf:)))
    }
}

/// The mock of one recorded origin: hands every request to the shared engine.
struct ReplayOriginHandler: MockHandler {
    let name: String
    let engine: ReplayEngine

    func handle(_ request: MockRequest) async -> MockResponse {
        engine.handle(request, origin: name)
    }
}
