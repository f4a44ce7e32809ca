import Foundation
import Logging
import SAMLCore

/// Every mock of one configuration, started together on loopback: the SAML IdP and SP, the
/// HTTP-auth resources, the forward proxy, the control API, the CAS server, AD FS and the
/// OPDS circulation manager, sharing one
/// ``MockEnvironment`` and one ``TrafficLog``.
///
/// ```swift
/// let suite = try await MockSuite.start(profile: try LoadedProfile.load(named: "shibboleth", from: dir))
/// print(suite.readyInfo().sp.secure)      // http://127.0.0.1:PORT/secure
/// await suite.stop()
/// ```
public final class MockSuite: Sendable {
    public let environment: MockEnvironment
    public let idp: MockIdP
    public let sp: MockSP
    public let auth: HTTPAuthMock
    public let proxy: ForwardProxyMock
    public let cas: CASServer
    public let adfs: ADFSServer
    public let cm: CirculationManager
    /// The control API (also reachable in-process, e.g. by the live console).
    public let control: ControlAPI
    public let servers: MockServerGroup
    /// The good https identity (its CA is the one clients trust), when a knob asked for TLS.
    public let tls: MockTLS?
    /// The https mocks and what each presents: `good`, or its fault (`expired`…).
    public let httpsListeners: [String: String]
    /// Where other profiles are loaded from when the control API switches.
    public let mockIdPDirectory: URL?

    public var log: TrafficLog { servers.log }

    private init(environment: MockEnvironment, idp: MockIdP, sp: MockSP, auth: HTTPAuthMock, proxy: ForwardProxyMock,
                 cas: CASServer, adfs: ADFSServer, cm: CirculationManager, control: ControlAPI, servers: MockServerGroup,
                 tls: MockTLS?, httpsListeners: [String: String], mockIdPDirectory: URL?) {
        self.environment = environment
        self.idp = idp
        self.sp = sp
        self.auth = auth
        self.proxy = proxy
        self.cas = cas
        self.adfs = adfs
        self.cm = cm
        self.control = control
        self.servers = servers
        self.tls = tls
        self.httpsListeners = httpsListeners
        self.mockIdPDirectory = mockIdPDirectory
    }

    /// Starts every mock. With `basePort` 0 each gets an ephemeral port; otherwise the IdP
    /// gets `basePort`, the SP `basePort+1`, auth `+2`, the proxy `+3`, control `+4`, CAS `+5`,
    /// AD FS `+6`, the circulation manager `+7`.
    ///
    /// Under the `tls` or `https-downgrade` knob the IdP and the SP listen on https with
    /// `tls` (default: ``MockTLS/load(from:)``, the machine's local CA); `tls=MOCK,…` names
    /// other mocks, and `tls-FAULT=MOCK,…` serves those mocks a certificate clients must refuse.
    /// An https SP gets a plain-http twin, `sp-plain` (one more port), for the SP's
    /// downgrading redirect.
    ///
    /// `publicHost` (`serve --public-host`): the name the URLs the mocks hand out use (metadata,
    /// redirects, form actions, the ready line), when clients reach `host` by another name
    /// (`10.0.2.2` from the Android emulator, a LAN name from a phone).
    ///
    /// The control API binds loopback whatever `host` is, and the forward proxy forwards to
    /// the suite's own mocks only; `sessionGuard` (default: a new one with a random token)
    /// guards the control API (docs/security.md).
    public static func start(environment: MockEnvironment, host: String = "127.0.0.1", basePort: Int = 0,
                             log: TrafficLog = TrafficLog(), mockIdPDirectory: URL? = nil,
                             tls: MockTLS? = nil, publicHost: String? = nil,
                             sessionGuard: SessionGuard? = nil) async throws -> MockSuite {
        let idp = MockIdP(environment: environment)
        let sp = MockSP(environment: environment)
        // Digest nonces and opaque values come from the suite's ID generator and clock, so a
        // seeded suite under a frozen clock hands out the same ones on every run.
        let auth = HTTPAuthMock(users: environment.profile.profile.users, seed: environment.ids.next(),
                                now: { environment.clock.now() },
                                ntlmKnobs: { environment.knobs.compactMap { if case .ntlm(let knob) = $0 { knob } else { nil } } })
        // A password new for every suite, and a scope of the suite's own mocks (set below,
        // once their ports are known): the proxy is no way into the machine (docs/security.md).
        let proxy = ForwardProxyMock(password: ForwardProxyMock.sessionPassword(),
                                     ntlmKnobs: { environment.knobs.compactMap { if case .ntlm(let knob) = $0 { knob } else { nil } } })
        let sessionGuard = sessionGuard ?? SessionGuard(boundHost: host, publicHost: publicHost)
        let cas = CASServer(environment: environment)
        let adfs = ADFSServer(environment: environment)
        let cm = CirculationManager(environment: environment)
        let control = ControlAPI(environment: environment, idp: idp, sp: sp, log: log, mockIdPDirectory: mockIdPDirectory,
                                 resetOthers: { cas.reset(); adfs.reset(); cm.reset() }, sessionGuard: sessionGuard)
        let handlers: [any MockHandler] = [idp, sp, auth, proxy, control, cas, adfs, cm]
        let identities = try Self.identities(knobs: environment.knobs, tls: tls)
        // The control API listens on loopback whatever `host` is: a phone on the network
        // reaches the mocks, never the mocks' controls.
        let controlHost = SessionGuard.isLoopbackName(host) ? nil : (host.contains(":") ? "::1" : "127.0.0.1")
        var listeners = handlers.enumerated().map { index, handler in
            MockServerGroup.Listener(handler: handler, port: basePort == 0 ? 0 : basePort + index,
                                     tls: TLSMock(rawValue: handler.name).flatMap { identities.served[$0] },
                                     host: handler.name == control.name ? controlHost : nil)
        }
        let identity = identities.good
        if identities.served[.sp] != nil {
            listeners.append(.init(handler: sp, port: basePort == 0 ? 0 : basePort + handlers.count, name: "sp-plain"))
        }
        let servers = try await MockServerGroup.start(listeners, host: host, publicHost: publicHost, log: log,
                                                      logger: environment.logger)
        for binding in servers.bindings {
            environment.setBaseURL(binding.baseURL, for: binding.name)
        }
        let mockPorts = servers.bindings.filter { $0.name != control.name && $0.name != proxy.name }
        proxy.scope.restrict(to: Dictionary(mockPorts.map { ($0.port, $0.name) }, uniquingKeysWith: { first, _ in first }),
                             names: Set([host, publicHost].compactMap { $0 }),
                             connectHost: host == "0.0.0.0" || host.isEmpty ? "127.0.0.1" : host == "::" ? "::1" : host)
        return MockSuite(environment: environment, idp: idp, sp: sp, auth: auth, proxy: proxy, cas: cas, adfs: adfs, cm: cm,
                         control: control, servers: servers, tls: identity,
                         httpsListeners: Dictionary(uniqueKeysWithValues: identities.served.map { ($0.key.rawValue, $0.value.fault?.rawValue ?? "good") }),
                         mockIdPDirectory: mockIdPDirectory)
    }

    /// The https identity of each mock the knobs put on https: the good one (`tls`, or the
    /// caller's), or the faulty one a `tls-FAULT=MOCK` knob names (the first such knob wins).
    static func identities(knobs: [Knob], tls: MockTLS?) throws -> (good: MockTLS?, served: [TLSMock: MockTLS]) {
        guard knobs.contains(where: \.needsTLS) else { return (nil, [:]) }
        let good = try tls ?? MockTLS.load()
        var served: [TLSMock: MockTLS] = [:]
        var faulty: [TLSFault: MockTLS] = [:]
        for knob in knobs {
            guard case .tlsFault(let fault, let mocks) = knob else { continue }
            let identity = try faulty[fault] ?? MockTLS.load(from: good.directory, fault: fault)
            faulty[fault] = identity
            for mock in mocks where served[mock] == nil { served[mock] = identity }
        }
        for knob in knobs {
            for mock in knob.httpsMocks where served[mock] == nil { served[mock] = good }
        }
        return (good, served)
    }

    /// Loads `profile` and starts the mocks; `timeScale` multiplies the timed knobs' durations
    /// (``MockEnvironment/timeScale``).
    public static func start(profile: LoadedProfile, host: String = "127.0.0.1", basePort: Int = 0,
                             spMetadata: [EntityDescriptor] = [], clock: SAMLClock = SystemClock(),
                             ids: IDGenerator = RandomIDGenerator(), mockIdPDirectory: URL? = nil, publicHost: String? = nil,
                             timeScale: Double = 1,
                             logger: Logger = Logger(label: "samlharness.mocks")) async throws -> MockSuite {
        let environment = MockEnvironment(profile: profile, clock: clock, ids: ids, spMetadata: spMetadata, timeScale: timeScale,
                                          logger: logger)
        return try await start(environment: environment, host: host, basePort: basePort,
                               mockIdPDirectory: mockIdPDirectory ?? profile.profile.directory?.deletingLastPathComponent(),
                               publicHost: publicHost)
    }

    /// Loads `profile` and starts the mocks reproducibly: IDs, tickets, tokens, nonces and
    /// session keys from a ``SeededIDGenerator`` seeded with `seed`, timestamps from the clock
    /// ``MockEnvironment/clock(start:frozen:)`` makes. Two suites started with the same seed,
    /// a frozen clock at the same instant and the same `basePort` (not 0: ports appear in
    /// URLs) answer the same sequence of requests with the same bytes (see docs/determinism.md).
    ///
    /// ```swift
    /// let suite = try await MockSuite.start(profile: profile, basePort: 18080, seed: 42,
    ///                                       clockStart: try SAMLDateTime.date(from: "2026-01-01T00:00:00Z"))
    /// ```
    public static func start(profile: LoadedProfile, host: String = "127.0.0.1", basePort: Int = 0,
                             spMetadata: [EntityDescriptor] = [], seed: UInt64, clockStart: Date? = nil,
                             frozen: Bool = true, mockIdPDirectory: URL? = nil, publicHost: String? = nil,
                             logger: Logger = Logger(label: "samlharness.mocks")) async throws -> MockSuite {
        try await start(profile: profile, host: host, basePort: basePort, spMetadata: spMetadata,
                        clock: MockEnvironment.clock(start: clockStart, frozen: frozen), ids: SeededIDGenerator(seed: seed),
                        mockIdPDirectory: mockIdPDirectory, publicHost: publicHost, logger: logger)
    }

    /// Stops the mocks; exchanges in flight get `grace` to finish.
    public func stop(grace: Duration = .seconds(2)) async {
        await servers.stop(grace: grace)
    }

    /// The ready line's content.
    public func readyInfo(startupMilliseconds: Double? = nil) -> ReadyInfo {
        let idpBase = environment.baseURL(of: "idp")
        let spBase = environment.baseURL(of: "sp")
        let authBase = environment.baseURL(of: "auth")
        let controlBase = environment.baseURL(of: "control")
        let casBase = environment.baseURL(of: "cas")
        let adfsBase = environment.baseURL(of: "adfs")
        let cmBase = environment.baseURL(of: "cm")
        let profile = environment.profile.profile
        let ssp = profile.personality == .simplesamlphp
        var info = ReadyInfo(
            event: "ready", profile: profile.name, personality: profile.personality.rawValue,
            idp: .init(base: idpBase, entityID: environment.idpEntityID,
                       metadata: idpBase + (ssp ? MockIdP.Path.sspMetadata : MockIdP.Path.metadata),
                       ssoRedirect: idpBase + (ssp ? MockIdP.Path.sspSSO : MockIdP.Path.redirectSSO),
                       ssoPost: idpBase + MockIdP.Path.postSSO, ecp: idpBase + MockIdP.Path.ecp,
                       unsolicited: idpBase + MockIdP.Path.unsolicited,
                       slo: idpBase + (ssp ? MockIdP.Path.sspSLO : MockIdP.Path.slo)),
            sp: .init(base: spBase, entityID: environment.spEntityID, secure: spBase + MockSP.Path.secure,
                      login: spBase + MockSP.Path.login, acs: spBase + MockSP.Path.acsPost, ecpACS: spBase + MockSP.Path.acsECP,
                      metadata: spBase + MockSP.Path.metadata, session: spBase + MockSP.Path.session,
                      logout: spBase + MockSP.Path.logout, personality: environment.profile.spPersonality,
                      settings: environment.profile.spSettingsChanged.isEmpty ? nil : environment.profile.spSettingsChanged),
            auth: .init(base: authBase, basic: authBase + "/basic/", basicOther: authBase + "/basic-other/",
                        digestMD5: authBase + "/digest/md5/", digestSHA256: authBase + "/digest/sha256/",
                        digestAny: authBase + "/digest/any/", ntlm: authBase + "/ntlm/", negotiate: authBase + "/negotiate/"),
            proxy: .init(url: environment.baseURL(of: "proxy"), username: proxy.username, password: proxy.password),
            control: .init(base: controlBase, state: controlBase + "/state", knobs: controlBase + "/knobs",
                           profile: controlBase + "/profile", traffic: controlBase + "/traffic.har", reset: controlBase + "/reset",
                           clock: controlBase + "/clock", token: control.sessionGuard.token,
                           tokenRequired: control.sessionGuard.tokenRequired),
            cas: .init(base: casBase, login: casBase + CASServer.Path.login, logout: casBase + CASServer.Path.logout,
                       tickets: casBase + CASServer.Path.tickets, validate: casBase + CASServer.Path.validate,
                       serviceValidate: casBase + CASServer.Path.serviceValidate,
                       p3ServiceValidate: casBase + CASServer.Path.p3ServiceValidate,
                       proxyValidate: casBase + CASServer.Path.proxyValidate, proxy: casBase + CASServer.Path.proxy,
                       samlValidate: casBase + CASServer.Path.samlValidate, service: casBase + CASServer.Path.app),
            adfs: .init(base: adfsBase, entityID: adfs.entityID,
                        usernameMixed13: adfsBase + ADFSServer.Path.usernameMixed13,
                        usernameMixed2005: adfsBase + ADFSServer.Path.usernameMixed2005,
                        mex: adfsBase + ADFSServer.Path.mex, federationMetadata: adfsBase + ADFSServer.Path.federationMetadata,
                        idpInitiatedSignOn: adfsBase + ADFSServer.Path.idpInitiatedSignOn,
                        relyingParties: [environment.spEntityID] + profile.adfs.relyingParties.map(\.identifier)),
            cm: .init(base: cmBase, authenticationDocument: cmBase + CirculationManager.Path.authenticationDocument,
                      catalog: cmBase + CirculationManager.Path.catalog, loans: cmBase + CirculationManager.Path.loans,
                      entityID: CirculationManager.entityID(environment: environment),
                      acs: cmBase + CirculationManager.Path.samlCallback),
            users: profile.users.map { .init(username: $0.username, password: $0.password, secondFactorCode: $0.secondFactorCode) },
            knobs: environment.knobs.map(\.text),
            startupMilliseconds: startupMilliseconds)
        if let tls {
            info.tls = .init(caFile: tls.caFile.path, spPlain: httpsListeners["sp"] == nil ? nil : environment.baseURL(of: "sp-plain"),
                             listeners: httpsListeners)
        }
        return info
    }
}
