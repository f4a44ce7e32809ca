import ArgumentParser
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Harness
import Logging
import MockServers
import SAMLCore

/// `samlharness serve`: every mock on loopback, one JSON ready line, then serve until
/// SIGINT/SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the mock IdP, SP, HTTP-auth resources, proxy and control API until SIGINT/SIGTERM.",
        discussion: """
        Prints ONE JSON line on stdout when every mock accepts connections: the base URL of \
        every endpoint and the test users' credentials. Logs go to stderr. With --port 0 (the \
        default) each mock gets an ephemeral port; with --port N the IdP listens on N, the SP \
        on N+1, the HTTP-auth resources on N+2, the proxy on N+3, the control API on N+4, CAS \
        on N+5, AD FS on N+6 and the circulation manager on N+7: eight ports, and N+8 for the \
        SP's plain-http twin when a tls knob puts the SP on https. The live console has its own \
        (--console-port); a replayed recording listens on ephemeral ports, one per recorded origin.

        The control API and the console listen on loopback whatever --host says (the console: \
        unless --console-host). The console always needs the session's token (its URL carries \
        it), the control API whenever a mock is bound beyond loopback (the ready line's \
        control.token). The forward proxy, whose password is new each session, forwards to this \
        session's mocks only. docs/security.md.

        Without --scenario nothing is judged (the console shows the traffic only). With \
        --scenario, Ctrl-C judges the session from its traffic; --knob, --sp-personality or \
        --sp-setting change the scenario's mocks, so they need --expect success|failure: the \
        outcome to judge instead of the scenario's own.
        """)

    @Option(help: "The IdP personality: a folder of MockIdP/ (shibboleth, shibboleth-basic, simplesamlphp, generic…).")
    var profile: String?

    @Option(help: "Serve one scenario: its profile, knobs, seed and clock (a replay scenario serves its recording). The ready line gains a `scenario` section: start URL, credentials, flow parameters.")
    var scenario: String?

    @Option(help: "Seed every generated value (SAML IDs, tickets, cookies, nonces) so a run repeats byte for byte.")
    var seed: UInt64?

    @Option(help: "Start the mocks' clock at this ISO 8601 instant (e.g. 2026-01-01T00:00:00Z).")
    var clock: String?

    @Flag(name: .customLong("freeze-clock"), help: "Stop the mocks' clock (at --clock, or now); the control API can still move it.")
    var freezeClock = false

    @Option(help: "The address the mocks bind (loopback unless you mean otherwise; the control API stays on loopback).")
    var host = "127.0.0.1"

    @Option(help: "The first port (0: ephemeral ports).")
    var port = 0

    @Option(name: .customLong("sp-metadata"), help: "SP metadata (a file or an http(s) URL) the IdP trusts; repeatable.")
    var spMetadata: [String] = []

    @Option(name: .customLong("sp-personality"), help: "How the mock SP judges Responses: an SP personality of MockIdP/sp/ (shibboleth: Shibboleth SP 3's stock rules, the default; hardened: every refusal on). Overrides the scenario's and the profile's.")
    var spPersonality: String?

    @Option(name: .customLong("sp-setting"), help: "One mock SP setting by its real name, NAME=VALUE (checkCorrelation=true, ExcludedAlgorithms=rsa-sha1, LimitRequestBody=1048576…); repeatable, applied over the personality. See docs/sp-personalities.md.")
    var spSettings: [String] = []

    @Option(name: .customLong("knob"), help: "A misconfiguration knob, NAME or NAME=VALUE; repeatable (`samlharness knobs` lists them). With --scenario it needs --expect.")
    var knobs: [String] = []

    @Option(help: ArgumentHelp("With --scenario: judge the session against this outcome, success or failure, instead of the scenario's own expectation. Needed when --knob, --sp-personality or --sp-setting change the scenario's mocks.",
                               valueName: "outcome"))
    var expect: String?

    @Option(name: .customLong("time-scale"),
            help: ArgumentHelp(TimeScaleHelp.meaning + " serve: 0.05…10 (above 1: slower); 0 only for a replayed recording, whose waits it skips. The ready line's knobs show the scaled values.",
                               valueName: "factor"))
    var timeScale: Double = 1

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory (default: found above the working directory).")
    var mockIdPDirectory: String?

    @Option(name: .customLong("har-out"), help: "Write the traffic log as HAR 1.2 to this file on exit.")
    var harOut: String?

    @Option(name: .customLong("verdicts-out"), help: "With --scenario: on SIGINT/SIGTERM judge the session from the traffic log (for a simulator or device driven by hand) and write the verdicts here as JSON; also printed on stderr.")
    var verdictsOut: String?

    @Flag(help: "Log every exchange on stderr.")
    var verbose = false

    @Option(name: .customLong("public-host"), help: "The name clients reach the mocks by when it is not --host: the URLs in metadata, redirects, form actions and the ready line use it (10.0.2.2 for the Android emulator, the machine's LAN name for a phone; docs/devices.md).")
    var publicHost: String?

    @Option(name: .customLong("console-port"), help: "The live console's port (0: ephemeral). Its URL is the ready line's `console`.")
    var consolePort = 0

    @Flag(name: .customLong("no-console"), help: "Serve no live console.")
    var noConsole = false

    @Option(name: .customLong("console-host"),
            help: ArgumentHelp("The address the live console binds (default 127.0.0.1, whatever --host says). It always needs the session's token, which the URL serve prints carries.",
                               valueName: "address"))
    var consoleHost = "127.0.0.1"

    @Flag(name: .customLong("show-secrets"),
          help: "The console's downloads (traffic.har, verdicts.json, report.html), its event stream and --verdicts-out unmasked (that file then mode 0600): the test user's password and one-time code in clear. Default: masked, as the page shows them.")
    var showSecrets = false

    func validate() throws {
        guard (0...65_526).contains(port) else { throw ValidationError("--port must be 0…65526 (up to nine consecutive ports are used)") }
        for knob in knobs {
            do { _ = try Knob(parsing: knob) } catch { throw ValidationError("--knob \(knob): \(error)") }
        }
        if let clock, (try? SAMLDateTime.date(from: clock)) == nil {
            throw ValidationError("--clock \(clock): expected an ISO 8601 date-time such as 2026-01-01T00:00:00Z")
        }
        if scenario != nil, profile != nil {
            throw ValidationError("--scenario sets the profile; leave out --profile")
        }
        for setting in spSettings {
            var rules = SPRules()
            do { try rules.apply(setting) } catch { throw ValidationError("--sp-setting \(setting): \(error)") }
        }
        guard timeScale.isFinite, (0...10).contains(timeScale) else {
            throw ValidationError("--time-scale must be 0.05…10 (0 for a replayed recording), got \(timeScale)")
        }
        if verdictsOut != nil, scenario == nil {
            throw ValidationError("--verdicts-out judges a scenario; give --scenario")
        }
        if let expect {
            guard scenario != nil else { throw ValidationError("--expect judges a scenario; give --scenario") }
            guard ScenarioExpectation.Outcome(rawValue: expect) != nil else {
                throw ValidationError("--expect must be success or failure, got \(expect)")
            }
        }
        guard (0...65_535).contains(consolePort) else { throw ValidationError("--console-port must be 0…65535") }
        guard !consoleHost.isEmpty, !consoleHost.contains(where: { " /?#@[]".contains($0) }) else {
            throw ValidationError("--console-host \(consoleHost): expected an address to bind (127.0.0.1, 0.0.0.0, ::1, a LAN address)")
        }
        if let publicHost {
            let valid = !publicHost.isEmpty && publicHost.count <= 253 && !publicHost.contains(where: { " /?#@[]".contains($0) })
                && (publicHost.contains(":") ? !publicHost.contains("[") : true)
            guard valid else {
                throw ValidationError("--public-host \(publicHost): expected a host name or an IP address (no scheme, port or path)")
            }
        }
    }

    /// The clock the mocks run on: starting at `start` (default now), frozen or running.
    static func makeClock(start: String?, frozen: Bool) -> any SAMLClock {
        MockEnvironment.clock(start: start.flatMap { try? SAMLDateTime.date(from: $0) }, frozen: frozen)
    }

    func run() async throws {
        let started = ContinuousClock.now
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .notice
            return handler
        }
        let logger = Logger(label: "samlharness.serve")
        do {
            let directory = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
            var loadedScenario: Scenario?
            if let scenario {
                do {
                    loadedScenario = try ScenarioLoader(mockIdPDirectory: directory).load(file: URL(fileURLWithPath: scenario))
                } catch let error as ScenarioLoadError {
                    for problem in error.problems {
                        FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
                    }
                    throw ExitCode(2)
                }
            }
            if let loadedScenario { try refuseWhatDoesNotApply(to: loadedScenario) }
            let scale = timeScale(for: loadedScenario, logger: logger)
            if let loadedScenario, loadedScenario.flow == .replay {
                let (replayed, notice) = judged(loadedScenario, spRules: loadedScenario.spRules ?? SPRules())
                try await serveReplay(replayed, directory: directory, timeScale: scale, notice: notice, started: started, logger: logger)
                return
            }
            guard scale >= 0.05 else {
                FileHandle.standardError.write(Data("error: --time-scale \(scale) skips every wait of a replayed recording only; the mocks' waits and the lifetimes racing them take 0.05…10\n".utf8))
                throw ExitCode(2)
            }
            var loaded = try LoadedProfile.load(named: loadedScenario?.profile ?? profile ?? "shibboleth", from: directory)
            loaded.knobs += try (loadedScenario?.knobs ?? []).map(Knob.init(parsing:))
            loaded.knobs += try knobs.map(Knob.init(parsing:))
            try loaded.useSP(personality: loadedScenario?.sp?.personality, settings: loadedScenario?.sp?.assignments ?? [],
                             mockIdP: directory)
            try loaded.useSP(personality: spPersonality, settings: spSettings, mockIdP: directory)
            var notice: String? = Self.nothingJudged
            if let scenario = loadedScenario { (loadedScenario, notice) = judged(scenario, spRules: loaded.spRules) }
            let seedValue = seed ?? loadedScenario?.effectiveSeed
            let ids: any IDGenerator = seedValue.map { SeededIDGenerator(seed: $0) } ?? RandomIDGenerator()
            let mocksClock = Self.makeClock(start: clock ?? loadedScenario?.clock?.start,
                                            frozen: freezeClock || loadedScenario?.clock?.frozen == true)
            var metadata: [EntityDescriptor] = []
            for source in spMetadata {
                metadata += try await Self.readMetadata(source)
            }
            if !SessionGuard.isLoopbackName(host) {
                logger.warning("binding to \(host): the mocks are reachable from other hosts (the control API stays on loopback and needs the session's token; the forward proxy reaches this session's mocks only; docs/security.md)")
            }
            let suite = try await MockSuite.start(profile: loaded, host: host, basePort: port, spMetadata: metadata,
                                                  clock: mocksClock, ids: ids, mockIdPDirectory: directory,
                                                  publicHost: publicHost, timeScale: scale, logger: logger)
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let ready = suite.readyInfo(startupMilliseconds: (milliseconds * 10).rounded() / 10)
            var line = try encoder.encode(ready)
            let target = loadedScenario.map { ScenarioTarget.resolve($0, ready: ready).scaled(by: scale) }
            if let target {
                line = try Self.adding("scenario", try encoder.encode(target), to: line)
            }
            if scale != 1 {
                line = try Self.adding("time_scale", try encoder.encode(scale), to: line)
            }
            try await announceAndWait(line, log: suite.log, control: suite.control, sessionGuard: suite.control.sessionGuard,
                                      environment: suite.environment,
                                      scenario: loadedScenario, target: target, publicHost: publicHost, notice: notice, logger: logger)
            await suite.stop()
            if let harOut {
                try PrivateFile.write(suite.log.harJSON(), to: harOut)
                logger.notice("wrote \(suite.log.entries.count) exchanges to \(harOut)")
            }
            if let loadedScenario, let target {
                try writeVerdicts(loadedScenario, target: target, entries: suite.log.entries, started: started)
                if suite.environment.changedAtRunTime {
                    let notice = Self.changedAtRunTime(loadedScenario, knobs: suite.environment.knobs.map(\.text))
                    FileHandle.standardError.write(Data("samlharness serve: \(notice.replacingOccurrences(of: "`", with: ""))\n".utf8))
                }
            }
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        } catch let error as MockServerGroup.StartError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Starts the live console (unless --no-console; its URL goes into the ready line), prints
    /// the ready line, waits for SIGINT/SIGTERM, then sends the pages the final verdicts.
    func announceAndWait(_ readyLine: Data, log: TrafficLog, control: ControlAPI?, sessionGuard: SessionGuard,
                         environment: MockEnvironment? = nil,
                         scenario: Scenario?, target: ScenarioTarget?, publicHost: String?, notice: String?,
                         logger: Logger) async throws {
        var line = readyLine
        var console: ConsoleServer?
        if !noConsole {
            let server = ConsoleServer(log: log, control: control, environment: environment,
                                       session: .init(scenario: scenario, target: target, ready: line, host: consoleHost,
                                                      publicHost: publicHost, notice: notice, sessionGuard: sessionGuard,
                                                      showSecrets: showSecrets))
            sessionGuard.allow(name: consoleHost)
            try await server.start(port: consolePort, logger: logger)
            line = try Self.adding("console", try JSONSerialization.data(withJSONObject: server.url, options: .fragmentsAllowed), to: line)
            console = server
        }
        let termination = TerminationSignals()
        FileHandle.standardOutput.write(line + Data("\n".utf8))
        if let console {
            FileHandle.standardError.write(Data("samlharness serve: live console at \(console.url) (\(console.reachable))\n".utf8))
        }
        if let notice {
            FileHandle.standardError.write(Data("samlharness serve: \(notice.replacingOccurrences(of: "`", with: ""))\n".utf8))
        }
        let signal = await termination.wait()
        logger.notice("\(signal): stopping")
        if let console {
            await console.finish(final: console.judged())
        }
    }

    /// Adds `key: value` (both JSON) to the JSON object `object`, keys sorted.
    static func adding(_ key: String, _ value: Data, to object: Data) throws -> Data {
        guard var dictionary = try JSONSerialization.jsonObject(with: object) as? [String: Any] else { return object }
        dictionary[key] = try JSONSerialization.jsonObject(with: value, options: .fragmentsAllowed)
        return try JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Serves a replay scenario's recording (no mocks): one loopback listener per recorded
    /// origin, the ready line naming them and the replayed start URL.
    func serveReplay(_ scenario: Scenario, directory: URL, timeScale: Double, notice: String?, started: ContinuousClock.Instant,
                     logger: Logger) async throws {
        let clock = Self.makeClock(start: clock ?? scenario.clock?.start, frozen: freezeClock || scenario.clock?.frozen == true)
        let session: ReplaySession
        do {
            session = try await ReplaySession.start(scenario: scenario, host: host, mockIdPDirectory: directory,
                                                    clock: clock, ids: SeededIDGenerator(seed: seed ?? scenario.effectiveSeed),
                                                    timeScale: timeScale, logger: logger)
        } catch let error as ReplayError {
            FileHandle.standardError.write(Data("error: \(scenario.source?.file ?? scenario.id): \(error)\n".utf8))
            throw ExitCode(2)
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        // At 0 (no waits at all) the client keeps its real timeouts.
        var target = ScenarioTarget.resolve(scenario, ready: nil).scaled(by: timeScale > 0 ? timeScale : 1)
        target.start = session.startURL
        target.parameters.merge(session.clientParameters) { current, _ in current }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let ready = ReplayReadyLine(replay: session.readyInfo, scenario: target,
                                    startupMilliseconds: (milliseconds * 10).rounded() / 10)
        var line = try encoder.encode(ready)
        if timeScale != 1 {
            line = try Self.adding("time_scale", try encoder.encode(timeScale), to: line)
        }
        try await announceAndWait(line, log: session.log, control: nil, sessionGuard: SessionGuard(boundHost: host),
                                  scenario: scenario, target: target,
                                  publicHost: nil, notice: notice, logger: logger)
        await session.stop()
        if let harOut {
            try PrivateFile.write(session.log.harJSON(), to: harOut)
            logger.notice("wrote \(session.log.entries.count) exchanges to \(harOut)")
        }
        try writeVerdicts(scenario, target: target, entries: session.log.entries, started: started)
    }

    /// With --verdicts-out: the session judged from its traffic, as JSON to the file and one
    /// line per verdict on stderr.
    func writeVerdicts(_ scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry],
                       started: ContinuousClock.Instant) throws {
        guard let verdictsOut else { return }
        let elapsed = ContinuousClock.now - started
        let judged = ScenarioRunner.judgeByHand(scenario, target: target, entries: entries,
                                                seconds: Double(elapsed.components.seconds))
        // Masked as the console and the reports are, unless --show-secrets: then the file is
        // private from its first byte (docs/security.md).
        let result = showSecrets ? judged
            : SecretMasker(secrets: [target.password, target.secondFactorCode].compactMap { $0 }).result(judged)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if showSecrets {
            try PrivateFile.write(encoder.encode(result), to: verdictsOut)
        } else {
            try encoder.encode(result).write(to: URL(fileURLWithPath: verdictsOut))
        }
        var lines = ["\(result.status.rawValue.uppercased()) \(result.scenario): \(entries.count) exchanges"]
        for verdict in result.verdicts {
            lines.append("  \(verdict.status.rawValue) \(verdict.check) (\(verdict.level.rawValue)): \(verdict.reason)")
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The ready line of a replayed recording: the recorded origins and where they listen now.
    struct ReplayReadyLine: Encodable {
        var event = "ready"
        let replay: ReplayReadyInfo
        let scenario: ScenarioTarget
        let startupMilliseconds: Double

        enum CodingKeys: String, CodingKey {
            case event, replay, scenario
            case startupMilliseconds = "startup_ms"
        }
    }

    static let metadataDeadline: Double = 15

    /// Reads SP metadata from a file or an http(s) URL.
    static func readMetadata(_ source: String) async throws -> [EntityDescriptor] {
        guard source.hasPrefix("http://") || source.hasPrefix("https://") else {
            return try LoadedProfile.readMetadata(URL(fileURLWithPath: source))
        }
        guard let url = URL(string: source) else {
            throw ConfigurationError(file: source, line: nil, message: "--sp-metadata: not a URL")
        }
        do {
            // Bounded: a server that accepts and never answers (or trickles) must not keep
            // `serve` from starting; the whole fetch gets `metadataDeadline` seconds.
            var request = URLRequest(url: url, timeoutInterval: metadataDeadline)
            request.setValue("application/samlmetadata+xml, application/xml;q=0.9, */*;q=0.1", forHTTPHeaderField: "Accept")
            let deadline = metadataDeadline
            let (data, status) = try await withThrowingTaskGroup(of: (Data, Int).self) { group in
                group.addTask { [request] in
                    let (data, response) = try await URLSession.shared.data(for: request)
                    return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(deadline))
                    throw ConfigurationError(file: source, line: nil, message: "--sp-metadata: no complete answer within \(Int(deadline)) s")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
            guard status == 200 else {
                throw ConfigurationError(file: source, line: nil, message: "--sp-metadata: the server answered \(status)")
            }
            return try LoadedProfile.parseMetadata(Array(data), source: source)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: source, line: nil, message: "--sp-metadata: cannot fetch: \(error.localizedDescription)")
        }
    }
}

extension Data {
    fileprivate static func + (lhs: Data, rhs: Data) -> Data {
        var copy = lhs
        copy.append(rhs)
        return copy
    }
}
