import Foundation
import MockServers

/// One scenario's mocks, running on loopback for a test to drive, and the judgement of what
/// the test's client did there — the runner's own, made for your test code
/// (``Conformance/session(scenario:timeScale:)``).
///
/// The session hands over what `samlharness run` hands a client: ``target`` (the start URL,
/// the user and password, the flow's URLs and values as ``ScenarioTarget/parameters``) and
/// ``environment`` (the same as `SAMLH_*` variables). Log in with your client, then end the
/// session once:
///
/// - ``judge(report:)`` with what your client obtained (``ClientReport/resource``: the
///   protected page's body, the token…) or the error it reported;
/// - ``finish()`` when your client reports nothing (a UI test driving an app against the
///   mocks): the session is judged from what the mocks served, as `serve --scenario` does;
/// - ``stop()`` to stop the mocks without a judgement.
///
/// Either judgement stops the mocks first, then applies the scenario's checks to the traffic
/// and the report, exactly as the runner does. The first ending counts; later calls return
/// its result.
///
/// ```swift
/// @Test func relayStateSurvivesTheLogin() async throws {
///     let session = try await Conformance.session(scenario: "web-sso.shibboleth-form-login")
///     let page = try await MyAuth.login(start: URL(string: session.target.start)!,
///                                       user: session.target.username!, password: session.target.password!)
///     let result = await session.judge(report: ClientReport(outcome: "success", resource: page))
///     #expect(result.status == .pass, "\(result.reason ?? "")")
/// }
/// ```
public actor ConformanceSession {
    /// The scenario whose mocks run.
    public nonisolated let scenario: Scenario
    /// Where the client starts and what it is given: ``ScenarioTarget/start``,
    /// ``ScenarioTarget/username``, ``ScenarioTarget/password``, and the flow's values in
    /// ``ScenarioTarget/parameters`` (`SP_URL`, `IDP_ENTITY_ID`, `CAS_SERVICE`, `REQUEST_TIMEOUT`…,
    /// named as the `SAMLH_*` variables without the prefix).
    public nonisolated let target: ScenarioTarget
    /// The `SAMLH_*` variables `samlharness run` would give a client for this scenario
    /// (docs/running-clients.md), for a client configured from its environment or a process
    /// the test starts. `SAMLH_RESULT_FILE` is ``resultFile``; a Kerberos scenario adds
    /// `KRB5_CONFIG` and `KRB5CCNAME`.
    public nonisolated let environment: [String: String]
    /// Where a client process started with ``environment`` writes its result; read it with
    /// ``ClientReport/read(_:)`` and pass the report to ``judge(report:)``.
    public nonisolated let resultFile: URL

    private nonisolated let mocks: ScenarioRunner.RunningMocks
    private let runner: ScenarioRunner
    private let started: Date
    private var ending: Task<ScenarioResult, Never>?

    private init(scenario: Scenario, mocks: ScenarioRunner.RunningMocks, environment: [String: String], resultFile: URL,
                 runner: ScenarioRunner) {
        self.scenario = scenario
        self.mocks = mocks
        self.target = mocks.target
        self.environment = environment
        self.resultFile = resultFile
        self.runner = runner
        started = Date()
    }

    static func start(_ scenario: Scenario, loader: ScenarioLoader, mockIdPDirectory: URL, workDirectory: URL,
                      timeScale: Double) async throws -> ConformanceSession {
        var runner = ScenarioRunner(loader: loader, mockIdPDirectory: mockIdPDirectory, workDirectory: workDirectory)
        runner.timeScale = scenario.realTime == true ? 1 : timeScale
        var realm: KerberosRealm?
        if scenario.options?.kerberos == true {
            guard let found = runner.kerberos else { throw Conformance.UsageError("\(scenario.id) \(KerberosRealm.missing)") }
            realm = found
        }
        let mocks = try await runner.start(scenario, timeScale: runner.timeScale)
        let resultFile = workDirectory.appendingPathComponent("result.json")
        var environment = ScenarioRunner.environment(for: mocks.target, resultFile: resultFile)
        if let realm {
            do {
                environment.merge(try await realm.ticket(user: mocks.target.username ?? "", password: mocks.target.password ?? "",
                                                         cache: workDirectory.appendingPathComponent("krb5cc"))) { _, new in new }
            } catch {
                await mocks.stop()
                throw error
            }
        }
        return ConformanceSession(scenario: scenario, mocks: mocks, environment: environment, resultFile: resultFile,
                                  runner: runner)
    }

    /// The exchanges with the mocks so far, in the order they arrived (for assertions of
    /// your own beside the checks').
    public nonisolated var traffic: [TrafficEntry] { mocks.log.entries }

    /// Stops the mocks and judges what the client did: the traffic, and `report` — what it
    /// obtained or the error it reported (`ClientReport(outcome: "failure", error: "\(error)")`
    /// for an error your client threw). The result's ``ScenarioResult/status`` is `pass` when
    /// every required check passed; its ``ScenarioResult/reason`` names the first that failed.
    public func judge(report: ClientReport) async -> ScenarioResult {
        let ended = Date()
        let seconds = ended.timeIntervalSince(started)
        return await end(.inProcess(report, seconds: seconds, ended: ended))
    }

    /// Stops the mocks and judges the session from the traffic alone, without a client
    /// report: the expectation from what the mocks served (the resource reached the client,
    /// or never did), as `serve --scenario` judges a session driven by hand.
    public func finish() async -> ScenarioResult {
        await end(.byHand(seconds: Date().timeIntervalSince(started)))
    }

    /// Stops the mocks without judging; a later ``judge(report:)`` or ``finish()`` returns an
    /// `error` result saying so.
    public func stop() async {
        if ending == nil {
            let mocks = mocks
            let stopped = ScenarioRunner.result(scenario, .error, "the session was stopped without a judgement", started: started)
            let work = resultFile.deletingLastPathComponent()
            ending = Task {
                await mocks.stop()
                try? FileManager.default.removeItem(at: work)
                return stopped
            }
        }
        _ = await ending?.value
    }

    private func end(_ execution: ClientExecution) async -> ScenarioResult {
        if let ending { return await ending.value }
        let (scenario, mocks, runner, started) = (scenario, mocks, runner, started)
        let work = resultFile.deletingLastPathComponent()
        let task = Task {
            await mocks.stop()
            try? FileManager.default.removeItem(at: work)
            return await runner.conclude(scenario, mocks: mocks, execution: execution, timeout: mocks.target.timeout,
                                         started: started)
        }
        ending = task
        return await task.value
    }

    deinit {
        // A session dropped without an ending still frees its ports.
        if ending == nil {
            let (mocks, work) = (mocks, resultFile.deletingLastPathComponent())
            Task {
                await mocks.stop()
                try? FileManager.default.removeItem(at: work)
            }
        }
    }
}
