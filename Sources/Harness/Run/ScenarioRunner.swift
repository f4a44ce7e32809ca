import Foundation
import Logging
import MockServers
import SAMLCore

/// How the runner reaches a client under test.
public protocol ClientAdapter: Sendable {
    /// A name for reports (`reference`, the command line…).
    var name: String { get }
    /// Whether the client handles `flow`; unsupported scenarios are skipped.
    func supports(_ flow: Flow) -> Bool
    /// Runs the client once for `target`, with `environment` (the `SAMLH_*` variables), for at
    /// most `timeout` seconds, ending it early when `stop` gives a reason; it writes its report
    /// to `resultFile`.
    func run(target: ScenarioTarget, environment: [String: String], resultFile: URL, timeout: TimeInterval,
             stop: @escaping @Sendable () -> String?) async -> ClientExecution
}

/// Runs one scenario: its own mocks (or replay) on fresh loopback ports, the client, the
/// traffic, the verdicts.
public struct ScenarioRunner: Sendable {
    public let loader: ScenarioLoader
    public let mockIdPDirectory: URL
    public let workDirectory: URL
    public let logger: Logger
    /// A client that sends more requests than this in one scenario is stopped (it floods).
    public var maxExchanges = 2_000
    /// Whether results carry the scenario's trace (``ScenarioTrace``) for the reports.
    public var recordsTrace = true
    /// The Kerberos realm the scenarios with `options.kerberos` get their tickets from (by
    /// default the one `SAMLH_KERBEROS` names); nil: those scenarios are skipped.
    public var kerberos: KerberosRealm? = KerberosRealm.fromEnvironment()
    /// How fast the scenarios' clock runs (`run --time-scale`): 0.1 makes every deliberate
    /// wait (`slow`, `no-answer`), the lifetimes that race them and the client's
    /// `SAMLH_REQUEST_TIMEOUT` a tenth as long, and the scenario timeout too but never below
    /// min(10 s, its real value) (``ScenarioTarget/scaledTimeout(_:by:)``). A `timeoutOverride`
    /// is not scaled. Scenarios marked `real_time` keep 1.
    public var timeScale: Double = 1

    /// - Parameter logger: the mocks' logger; by default only critical messages (a mock
    ///   stopped under a client's open connection logs shutdown noise that is not news).
    public init(loader: ScenarioLoader, mockIdPDirectory: URL, workDirectory: URL, logger: Logger? = nil) {
        self.loader = loader
        self.mockIdPDirectory = mockIdPDirectory
        self.workDirectory = workDirectory
        self.logger = logger ?? {
            var quiet = Logger(label: "samlharness.run")
            quiet.logLevel = .critical
            return quiet
        }()
    }

    /// The environment a client gets for `target`: `SAMLH_FLOW`, `SAMLH_START_URL`,
    /// `SAMLH_USERNAME`, `SAMLH_PASSWORD`, `SAMLH_SECOND_FACTOR_CODE`, `SAMLH_RESULT_FILE`,
    /// `SAMLH_TIMEOUT`, `SAMLH_SCENARIO`, and every flow parameter as `SAMLH_<NAME>` (among
    /// them `SAMLH_REQUEST_TIMEOUT`, the seconds to wait for one answer).
    public static func environment(for target: ScenarioTarget, resultFile: URL) -> [String: String] {
        var environment: [String: String] = [
            "SAMLH_SCENARIO": target.id,
            "SAMLH_FLOW": target.flow,
            "SAMLH_START_URL": target.start,
            "SAMLH_RESULT_FILE": resultFile.path,
            "SAMLH_TIMEOUT": String(format: "%g", target.timeout),
        ]
        environment["SAMLH_USERNAME"] = target.username
        environment["SAMLH_PASSWORD"] = target.password
        environment["SAMLH_SECOND_FACTOR_CODE"] = target.secondFactorCode
        for (key, value) in target.parameters { environment["SAMLH_" + key] = value }
        return environment
    }

    public func run(_ scenario: Scenario, client: some ClientAdapter, timeoutOverride: Double? = nil,
                    interruption: RunInterruption? = nil) async -> ScenarioResult {
        let started = Date()
        func finish(_ status: ScenarioResult.Status, _ reason: String?) -> ScenarioResult {
            Self.result(scenario, status, reason, started: started)
        }
        guard client.supports(scenario.flow) else {
            return finish(.skipped, "the client does not support flow \(scenario.flow.rawValue)")
        }
        var kerberosRealm: KerberosRealm?
        if scenario.options?.kerberos == true {
            guard let realm = kerberos else { return finish(.skipped, KerberosRealm.missing) }
            kerberosRealm = realm
        }
        let scale = scenario.realTime == true ? 1 : timeScale
        let timeout = timeoutOverride ?? ScenarioTarget.scaledTimeout(scenario.effectiveTimeout, by: scale)
        let mocks: RunningMocks
        do {
            mocks = try await start(scenario, timeScale: scale)
        } catch {
            return finish(.error, "the mocks could not start: \(error)")
        }
        let runID = UUID().uuidString.prefix(8)
        let resultFile = workDirectory.appendingPathComponent("\(scenario.id).\(runID).result.json")
        defer { try? FileManager.default.removeItem(at: resultFile) }
        var environment = Self.environment(for: mocks.target, resultFile: resultFile)
        // The client's ticket cache (a TGT, then the service tickets it gets), gone after the run.
        let cache = workDirectory.appendingPathComponent("\(scenario.id).\(runID).krb5cc")
        defer { if kerberosRealm != nil { try? FileManager.default.removeItem(at: cache) } }
        if let realm = kerberosRealm {
            do {
                environment.merge(try await realm.ticket(user: mocks.target.username ?? "", password: mocks.target.password ?? "", cache: cache)) { _, new in new }
            } catch {
                await mocks.stop()
                return finish(.error, "\(error)")
            }
        }
        let log = mocks.log
        let limit = maxExchanges
        let execution = await client.run(target: mocks.target, environment: environment, resultFile: resultFile,
                                         timeout: timeout) {
            if let reason = interruption?.reason { return "the run was interrupted (\(reason))" }
            return log.arrived > limit ? "it sent more than \(limit) requests to the mocks" : nil
        }
        await mocks.stop()
        return await conclude(scenario, mocks: mocks, execution: execution, timeout: timeout, started: started)
    }

    /// A result of `scenario` that started at `started`.
    static func result(_ scenario: Scenario, _ status: ScenarioResult.Status, _ reason: String?, started: Date,
                       verdicts: [Verdict] = [], exchanges: Int = 0, client: ScenarioResult.ClientSummary? = nil,
                       trace: ScenarioTrace? = nil) -> ScenarioResult {
        ScenarioResult(scenario: scenario.id, flow: scenario.flow.rawValue, status: status, reason: reason,
                       verdicts: verdicts, seconds: (Date().timeIntervalSince(started) * 1000).rounded() / 1000,
                       exchanges: exchanges, client: client, trace: trace, about: ScenarioResult.About(scenario))
    }

    /// Judges what the client did against `mocks`, once they have stopped: its `execution`
    /// (how it ended, its report) and their traffic. A session driven by hand
    /// (``ClientExecution/byHand(seconds:)``) has no client summary.
    func conclude(_ scenario: Scenario, mocks: RunningMocks, execution: ClientExecution, timeout: Double,
                  started: Date) async -> ScenarioResult {
        let entries = mocks.log.entries
        let trace = recordsTrace
            ? await ScenarioTrace.build(from: entries, secrets: [mocks.target.password, mocks.target.secondFactorCode]) : nil
        let summary = execution.byHand ? nil : ScenarioResult.ClientSummary(
            status: execution.status, timedOut: execution.timedOut, outcome: execution.report?.outcome,
            error: execution.report?.error, reportProblem: execution.reportProblem,
            stderrTail: execution.stderr.isEmpty ? nil : String(execution.stderr.suffix(2000)),
            signal: execution.signal, startFailure: execution.launchError.map { "the client could not start: \($0)" } ?? execution.startFailure,
            details: execution.report?.details.flatMap { $0.isEmpty ? nil : $0 })
        func finish(_ status: ScenarioResult.Status, _ reason: String?, verdicts: [Verdict] = []) -> ScenarioResult {
            Self.result(scenario, status, reason, started: started, verdicts: verdicts, exchanges: entries.count,
                        client: summary, trace: trace)
        }
        // A setup mistake is not a verdict: nothing is judged.
        if let launchError = execution.launchError {
            return finish(.error, "the client could not start: \(launchError)")
        }
        if let startFailure = execution.startFailure {
            return finish(.error, startFailure)
        }
        // The checks judge the traffic even of a client that had to be stopped: why it hung
        // (a password loop, a redirect loop) is in there.
        var verdicts = await Self.judge(scenario, target: mocks.target, entries: entries, execution: execution)
        let unreached = SituationReach.unreached(scenario, target: mocks.target, entries: entries)
        if let unreached { verdicts = SituationReach.withoutOutcome(verdicts, unreached) }
        if let stopped = execution.stopped {
            return finish(.error, "the client was stopped: \(stopped)", verdicts: verdicts)
        }
        if execution.timedOut {
            return finish(.error, "the client did not finish within \(String(format: "%g", timeout)) s and was stopped",
                          verdicts: verdicts)
        }
        // Crashing is not reporting: the checks still judge its traffic, but the scenario is
        // `crashed`, with the last lines the client wrote.
        if let crash = execution.crash {
            let lines = ClientEnding.lastLines(execution)
            return finish(.crashed, "the client crashed: \(crash)" + (lines.isEmpty ? "" : "; its last output:\n" + lines),
                          verdicts: verdicts)
        }
        let failed = verdicts.filter { $0.level == .required && $0.status == .fail }
        if let unsupported = scenario.unsupported(verdicts) {
            return finish(.unsupported, unsupported, verdicts: verdicts)
        }
        if failed.isEmpty, let unreached {
            return finish(.error, unreached, verdicts: verdicts)
        }
        if failed.isEmpty, let unexercised = scenario.unexercised(verdicts) {
            return finish(.error, unexercised, verdicts: verdicts)
        }
        return finish(failed.isEmpty ? .pass : .fail, ScenarioResult.headline(verdicts), verdicts: verdicts)
    }

    /// The verdicts, computed off the cooperative thread pool: the checks decode and compare
    /// whole bodies (megabytes for an oversized Response), and in-process mocks of other
    /// scenarios answer on that pool meanwhile.
    static func judge(_ scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry],
                      execution: ClientExecution) async -> [Verdict] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: ExpectationJudge.verdicts(
                    scenario: scenario, target: target, entries: entries, execution: execution, truth: Truth.from(entries)))
            }
        }
    }

    /// Judges a session driven by hand (`serve --scenario … --verdicts-out`): the checks over
    /// the traffic, the expectation from what the mocks served.
    public static func judgeByHand(_ scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry],
                                   seconds: Double) -> ScenarioResult {
        let verdicts = ExpectationJudge.verdicts(scenario: scenario, target: target, entries: entries,
                                                 execution: .byHand(seconds: seconds), truth: Truth.from(entries))
        let failed = verdicts.filter { $0.level == .required && $0.status == .fail }
        let unexercised = failed.isEmpty ? scenario.unexercised(verdicts) : nil
        return ScenarioResult(scenario: scenario.id, flow: scenario.flow.rawValue,
                              status: unexercised != nil ? .error : failed.isEmpty ? .pass : .fail,
                              reason: unexercised ?? ScenarioResult.headline(verdicts), verdicts: verdicts,
                              seconds: (seconds * 1000).rounded() / 1000, exchanges: entries.count, client: nil,
                              about: ScenarioResult.About(scenario))
    }

    /// How long the mocks wait for exchanges in flight once the client has finished: only a
    /// connection the client left open (a `no-answer` knob) is still there, and nothing in it
    /// is judged.
    static let stopGrace: Duration = .milliseconds(200)

    /// ``stopGrace`` at `timeScale`, never below 20 ms.
    static func stopGrace(timeScale: Double) -> Duration {
        timeScale >= 1 ? stopGrace : .milliseconds(max(20, Int(200 * timeScale)))
    }

    /// The mocks (or the replay) one scenario runs against.
    struct RunningMocks: Sendable {
        let target: ScenarioTarget
        let log: TrafficLog
        let stop: @Sendable () async -> Void
    }

    func start(_ scenario: Scenario, timeScale: Double = 1) async throws -> RunningMocks {
        let grace = Self.stopGrace(timeScale: timeScale)
        let clockStart = scenario.clock?.start.flatMap { try? SAMLDateTime.date(from: $0) }
        let frozen = scenario.clock?.frozen == true
        if scenario.flow == .replay {
            let session = try await ReplaySession.start(
                scenario: scenario, mockIdPDirectory: mockIdPDirectory,
                clock: MockEnvironment.clock(start: clockStart, frozen: frozen),
                ids: SeededIDGenerator(seed: scenario.effectiveSeed), timeScale: timeScale, logger: logger)
            var target = ScenarioTarget.resolve(scenario, ready: nil).scaled(by: timeScale)
            target.start = session.startURL
            target.parameters.merge(session.clientParameters) { current, _ in current }
            return RunningMocks(target: target, log: session.log, stop: { await session.stop(grace: grace) })
        }
        var profile = try loader.profile(named: scenario.profile ?? "shibboleth")
        profile.knobs += try (scenario.knobs ?? []).map(Knob.init(parsing:))
        try profile.useSP(personality: scenario.sp?.personality, settings: scenario.sp?.assignments ?? [],
                          mockIdP: mockIdPDirectory)
        if timeScale != 1 { profile.knobs = profile.knobs.map { $0.scaled(by: timeScale) } }
        // HSTS ignores IP-literal hosts (RFC 6797 §8.1.1): where a scenario judges it (the
        // https-downgrade knob), the mocks hand out their URLs under the name `localhost`.
        let hostName = profile.knobs.contains(.httpsDowngrade) ? "localhost" : nil
        let suite = try await MockSuite.start(profile: profile, seed: scenario.effectiveSeed, clockStart: clockStart,
                                              frozen: frozen, mockIdPDirectory: mockIdPDirectory, publicHost: hostName,
                                              logger: logger)
        let target = ScenarioTarget.resolve(scenario, ready: suite.readyInfo()).scaled(by: timeScale)
        return RunningMocks(target: target, log: suite.log,
                            stop: { await suite.stop(grace: grace) })
    }
}
