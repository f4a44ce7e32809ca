import ArgumentParser
import Foundation
import Logging
import MockServers
import NIOCore
import SAMLCore

/// `samlharness load`: many concurrent Web SSO logins through the mocks on loopback, then a
/// check that every login got its own secret and that the traffic log holds every exchange.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Run concurrent logins through the mocks (loopback only) and report latency and throughput.",
        discussion: """
        The logins are spread round-robin over --flows (web-sso, ecp, cas-rest, http-basic), each \
        with its own cookie jar. Exit 1 unless every login succeeded, every login that must have \
        a proof of its own got a distinct one (web-sso and ecp: the SP's per-session secret; \
        cas-rest: its service ticket) and the traffic log holds every exchange answered. The \
        http-basic page's secret is per user and realm, shared by design: those logins must \
        obtain it, but are not counted among the distinct proofs.
        """)

    @Option(help: "Logins in all (at most 20000).")
    var logins = 1000

    @Option(help: "Logins in flight at once.")
    var concurrency = 1000

    @Option(help: "The IdP profile (form login with consent by default).")
    var profile = "shibboleth"

    @Option(help: "The flows, comma-separated (web-sso, ecp, cas-rest, http-basic).")
    var flows = LoadDriver.Flow.allCases.map(\.rawValue).joined(separator: ",")

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory.")
    var mockIdPDirectory: String?

    @Option(name: .customLong("json-out"), help: "Also write the figures as JSON to this file.")
    var jsonOut: String?

    @Option(name: .customLong("json"), help: .hidden)
    var deprecatedJSON: String?

    /// `--json-out`, or the older `--json FILE` (deprecated: `--json` alone means JSON on
    /// standard output elsewhere, as in `list --json`).
    var json: String? {
        if let deprecatedJSON {
            FileHandle.standardError.write(Data("note: `--json FILE` is deprecated; use `--json-out FILE`\n".utf8))
            return deprecatedJSON
        }
        return jsonOut
    }

    enum Mocks: String, ExpressibleByArgument, CaseIterable, Codable {
        case inProcess = "in-process"
        case process
    }

    @Option(help: ArgumentHelp(
        "Where the mocks run: in-process (beside the client) or process (a `samlharness serve` child).",
        discussion: "With process, the client's CPU and the mocks' are measured apart, as the team's compiled load client reports its own share."))
    var mocks: Mocks = .inProcess

    func validate() throws {
        guard (1...20_000).contains(logins) else { throw ValidationError("--logins must be 1…20000") }
        guard (1...5_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1…5000") }
        _ = try selectedFlows()
    }

    func selectedFlows() throws -> [LoadDriver.Flow] {
        let names = flows.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let chosen = try names.map { name in
            guard let flow = LoadDriver.Flow(rawValue: name) else {
                throw ValidationError("--flows: unknown flow `\(name)`; one of \(LoadDriver.Flow.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return flow
        }
        guard !chosen.isEmpty else { throw ValidationError("--flows: name at least one flow") }
        return chosen
    }

    /// Per flow: how many, how fast.
    struct FlowFigures: Codable {
        var flow: String
        var succeeded: Int
        var failed: Int
        var p50Milliseconds: Double
        var p99Milliseconds: Double
    }

    struct Figures: Codable {
        var profile: String
        var flows: [FlowFigures]
        var logins: Int
        var concurrency: Int
        var succeeded: Int
        var failed: Int
        var requests: Int
        var trafficLogEntries: Int
        var trafficLogComplete: Bool
        /// Distinct proofs among the logins whose proof is their own (the SP's per-session
        /// secret, a fresh service ticket); the Basic page's secret is the user's, not the login's.
        var distinctSecrets: Int
        var perLoginProofs: Int
        var wallSeconds: Double
        var loginsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        var firstErrors: [String]
        /// Where the mocks ran (`in-process` or `process`).
        var mocks: String
        /// CPU (user + system) of this process over the run, per successful login, and the
        /// cores it kept busy on average: the client alone with `--mocks process`, the client
        /// and the mocks together in-process.
        var thisProcessCPUMillisecondsPerLogin: Double
        var thisProcessCoresBusy: Double
        /// The `serve` child's CPU the same way (with `--mocks process`).
        var mocksProcessCPUMillisecondsPerLogin: Double?
        var mocksProcessCoresBusy: Double?
        var cores: Int
    }

    /// The mocks of one load run: in this process, or a `samlharness serve` child.
    enum Running {
        case inProcess(MockSuite)
        case child(BenchProcess, ReadyInfo)

        var childPID: pid_t? {
            if case .child(let child, _) = self { return child.pid }
            return nil
        }

        var ready: ReadyInfo {
            switch self {
            case .inProcess(let suite): suite.readyInfo()
            case .child(_, let ready): ready
            }
        }
    }

    /// Starts `samlharness serve` (this executable) with the profile; returns it and its ready line.
    func startServe(directory: URL) throws -> (BenchProcess, ReadyInfo) {
        let executable = BenchProcess.currentExecutable
        let stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("samlharness-load-serve-\(getpid()).log").path
        let child = try BenchProcess(executable: executable,
                                     arguments: ["serve", "--profile", profile, "--mockidp-dir", directory.path, "--no-console"],
                                     stderrFile: stderrFile)
        guard let line = child.readLine(timeout: .seconds(60)),
              let ready = try? JSONDecoder().decode(ReadyInfo.self, from: Data(line.utf8)) else {
            _ = child.terminate(grace: .seconds(5))
            let log = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
            throw ValidationError("--mocks process: `samlharness serve` gave no ready line within 60 s: \(log.suffix(600))")
        }
        return (child, ready)
    }

    /// The control API's count of traffic-log entries (the child's own log).
    static func trafficCounts(client: LoadHTTPClient, ready: ReadyInfo) async throws -> (entries: Int, dropped: Int) {
        let response = try await client.execute(.GET, ready.control.state, headers: [], body: nil)
        struct State: Decodable { var trafficEntries: Int; var trafficDropped: Int }
        let state = try JSONDecoder().decode(State.self, from: Data(buffer: response.body))
        return (state.trafficEntries, state.trafficDropped)
    }

    func run() async throws {
        var logger = Logger(label: "samlharness.load")
        logger.logLevel = .warning
        let directory = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
        let loaded = try LoadedProfile.load(named: profile, from: directory)
        let running: Running
        switch mocks {
        case .inProcess:
            running = .inProcess(try await MockSuite.start(profile: loaded, mockIdPDirectory: directory, logger: logger))
        case .process:
            let (child, ready) = try startServe(directory: directory)
            running = .child(child, ready)
        }
        let client = LoadHTTPClient()
        // Users whose password every flow accepts (ECP and Basic send it in a header).
        let users = loaded.profile.users.filter { $0.secondFactorCode == nil }
        let ready = running.ready
        let chosen = try selectedFlows()
        var trafficBefore = 0
        if case .child(let child, _) = running {
            trafficBefore = try await Self.trafficCounts(client: client, ready: ready).entries
            // SIGINT/SIGTERM to load ends the serve child too (it runs in a process group of its own).
            let signals = TerminationSignals()
            let pid = child.pid
            Task.detached {
                let name = await signals.wait()
                kill(-pid, SIGTERM)
                FileHandle.standardError.write(Data("load: \(name): stopped; the mocks' serve child (pid \(pid)) told to stop\n".utf8))
                Foundation.exit(name == "SIGINT" ? 130 : 143)
            }
        }
        let ownCPUBefore = BenchProcess.ownCPUSeconds()
        var childCPUBefore: Double?
        if case .child(let child, _) = running { childCPUBefore = BenchProcess.cpuSeconds(of: child.pid) }
        let started = ContinuousClock.now
        var outcomes: [(LoadDriver.Flow, LoadDriver.Outcome)] = []
        var errors: [(LoadDriver.Flow, String)] = []
        // Each child returns a struct built after its do/catch, never a tuple returned from
        // inside it: Swift 6.3.1 at -O loses the captured enum of
        // `do { return (flow, try await …) } catch { return (flow, …) }` in a task group
        // child (every login was counted as the first flow; scripts/repro/taskgroup-tuple-miscompile.swift).
        await withTaskGroup(of: LoadDriver.Finished.self) { group in
            var next = 0
            func launch() {
                let user = users[next % users.count]
                let driver = LoadDriver(client: client, flow: chosen[next % chosen.count], ready: ready,
                                        user: TestUser(username: user.username, password: user.password))
                group.addTask {
                    let result: Result<LoadDriver.Outcome, any Error>
                    do { result = .success(try await driver.login()) } catch { result = .failure(error) }
                    return LoadDriver.Finished(flow: driver.flow, result: result)
                }
                next += 1
            }
            while next < min(concurrency, logins) { launch() }
            for await finished in group {
                let flow = finished.flow
                switch finished.result {
                case .success(let outcome): outcomes.append((flow, outcome))
                case .failure(let error): errors.append((flow, "\(flow.rawValue): \(error)"))
                }
                if next < logins { launch() }
            }
        }
        let wall = ContinuousClock.now - started
        let ownCPU = BenchProcess.ownCPUSeconds() - ownCPUBefore
        var childCPU: Double?
        if case .child(let child, _) = running, let before = childCPUBefore, let after = BenchProcess.cpuSeconds(of: child.pid) {
            childCPU = after - before
        }
        // The traffic log: in-process, its entries; from the child, its count through the control
        // API (the first GET /state is in it, the second is not yet).
        let entryCount: Int
        let answeredCount: Int
        let dropped: Int
        switch running {
        case .inProcess(let suite):
            let entries = suite.log.entries
            entryCount = entries.count
            answeredCount = entries.filter { $0.response != nil }.count
            dropped = suite.log.dropped
            await client.shutdown()
            await suite.stop()
        case .child(let child, _):
            let after = try? await Self.trafficCounts(client: client, ready: ready)
            entryCount = after.map { $0.entries - trafficBefore - 1 } ?? -1
            answeredCount = entryCount
            dropped = after?.dropped ?? 0
            await client.shutdown()
            _ = child.terminate(grace: .seconds(10))
        }
        func percentile(_ p: Double, _ latencies: [Double]) -> Double {
            let sorted = latencies.sorted()
            let value = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] * 1000
            return (value * 10).rounded() / 10
        }
        let latencies = outcomes.map(\.1.seconds).sorted()
        let perFlow = chosen.reduce(into: [LoadDriver.Flow]()) { if !$0.contains($1) { $0.append($1) } }.map { flow in
            let mine = outcomes.filter { $0.0 == flow }.map(\.1.seconds)
            return FlowFigures(flow: flow.rawValue, succeeded: mine.count, failed: errors.filter { $0.0 == flow }.count,
                               p50Milliseconds: percentile(0.50, mine), p99Milliseconds: percentile(0.99, mine))
        }
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        let requests = outcomes.map(\.1.requests).reduce(0, +)
        let ownProofs = outcomes.filter { $0.0 != .httpBasic }.map(\.1.secret)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        func perLogin(_ seconds: Double) -> Double { ((seconds * 1000 / Double(max(outcomes.count, 1))) * 1000).rounded() / 1000 }
        func busy(_ seconds: Double) -> Double { ((seconds / max(wallSeconds, 1e-9)) * 100).rounded() / 100 }
        let figures = Figures(
            profile: profile, flows: perFlow, logins: logins, concurrency: concurrency, succeeded: outcomes.count, failed: errors.count,
            requests: requests, trafficLogEntries: entryCount,
            trafficLogComplete: errors.isEmpty && entryCount == requests && answeredCount == requests && dropped == 0,
            distinctSecrets: Set(ownProofs).count, perLoginProofs: ownProofs.count, wallSeconds: (wallSeconds * 1000).rounded() / 1000,
            loginsPerSecond: (Double(outcomes.count) / wallSeconds * 10).rounded() / 10,
            p50Milliseconds: percentile(0.50, latencies), p99Milliseconds: percentile(0.99, latencies),
            maxMilliseconds: ((latencies.last ?? 0) * 1000 * 10).rounded() / 10, firstErrors: Array(errors.prefix(5).map(\.1)),
            mocks: mocks.rawValue, thisProcessCPUMillisecondsPerLogin: perLogin(ownCPU), thisProcessCoresBusy: busy(ownCPU),
            mocksProcessCPUMillisecondsPerLogin: childCPU.map(perLogin), mocksProcessCoresBusy: childCPU.map(busy), cores: cores)
        let cpuLine = if let mocksCPU = figures.mocksProcessCPUMillisecondsPerLogin, let mocksBusy = figures.mocksProcessCoresBusy {
            "CPU per login: client (this process) \(figures.thisProcessCPUMillisecondsPerLogin) ms, \(figures.thisProcessCoresBusy) of \(cores) cores; "
                + "mocks (serve, pid \(running.childPID ?? 0)) \(mocksCPU) ms, \(mocksBusy) of \(cores) cores"
        } else {
            "CPU per login: client and mocks together (this process) \(figures.thisProcessCPUMillisecondsPerLogin) ms, "
                + "\(figures.thisProcessCoresBusy) of \(cores) cores (--mocks process measures them apart)"
        }
        print("""
        load: \(figures.logins) logins (\(chosen.map(\.rawValue).joined(separator: ", ")); \(profile)), \(figures.concurrency) in flight, loopback, mocks \(mocks.rawValue)
          succeeded \(figures.succeeded), failed \(figures.failed), distinct per-login proofs \(figures.distinctSecrets) of \(figures.perLoginProofs) \
        (SP sessions of web-sso and ecp, cas-rest service tickets; http-basic's page secret is per user and realm, shared by design, not counted)
          requests \(figures.requests), traffic log entries \(figures.trafficLogEntries) (complete: \(figures.trafficLogComplete))
          wall \(figures.wallSeconds) s, \(figures.loginsPerSecond) logins/s
          login latency p50 \(figures.p50Milliseconds) ms, p99 \(figures.p99Milliseconds) ms, max \(figures.maxMilliseconds) ms
          \(cpuLine)
        """)
        for flow in perFlow {
            print("  \(flow.flow): \(flow.succeeded) ok, \(flow.failed) failed, p50 \(flow.p50Milliseconds) ms, p99 \(flow.p99Milliseconds) ms")
        }
        for error in figures.firstErrors { print("  error: \(error)") }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(figures).write(to: URL(fileURLWithPath: json))
        }
        if figures.failed > 0 || !figures.trafficLogComplete || figures.distinctSecrets != figures.perLoginProofs {
            throw ExitCode(1)
        }
    }
}
