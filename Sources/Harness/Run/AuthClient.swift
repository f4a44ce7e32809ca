import Foundation
import MockServers

/// A Swift auth library under test, run in-process: implement this and run the catalog from
/// your own `swift test` with ``Conformance/run(_:filter:jobs:)``. `run` gets the scenario's
/// start URL, credentials and flow parameters, logs in over real HTTP to the mocks on
/// loopback, and reports what it obtained — the body of the protected page, the CAS
/// validation response, the book's SHA-256, the token — in ``ClientReport/resource``.
public protocol AuthClient: Sendable {
    /// A name for reports.
    var name: String { get }
    /// Whether it handles `flow` (default: every flow); other scenarios are skipped.
    func supports(_ flow: Flow) -> Bool
    /// Logs in as `target` says. Throwing is a reported failure (the error's description is
    /// the client's error); so is a report whose `outcome` is `failure`. Honour task
    /// cancellation: the runner cancels at the scenario's timeout.
    func run(_ target: ScenarioTarget) async throws -> ClientReport
}

extension AuthClient {
    public func supports(_ flow: Flow) -> Bool { true }
}

/// Adapts an ``AuthClient`` to the runner: a timeout by cancellation, and the flood bound.
public struct InProcessClient<Client: AuthClient>: ClientAdapter {
    public let client: Client

    public init(_ client: Client) {
        self.client = client
    }

    public var name: String { client.name }

    public func supports(_ flow: Flow) -> Bool { client.supports(flow) }

    enum Finished: Sendable {
        case report(ClientReport)
        case thrown(String)
        case timedOut
        case stopped(String)
    }

    public func run(target: ScenarioTarget, environment: [String: String], resultFile: URL, timeout: TimeInterval,
                    stop: @escaping @Sendable () -> String?) async -> ClientExecution {
        let started = Date()
        let client = self.client
        let finished: Finished = await withTaskGroup(of: Finished.self) { group in
            group.addTask {
                do {
                    return .report(try await client.run(target))
                } catch {
                    return .thrown("\(error)")
                }
            }
            group.addTask {
                let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
                while ContinuousClock.now < deadline {
                    if let reason = stop() { return .stopped(reason) }
                    try? await Task.sleep(for: .milliseconds(20))
                    if Task.isCancelled { return .timedOut }
                }
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
        let ended = Date()
        let seconds = ended.timeIntervalSince(started)
        var execution: ClientExecution
        switch finished {
        case .report(let report):
            let failed = report.outcome?.lowercased() == "failure"
            execution = ClientExecution(status: failed ? 1 : 0, timedOut: false, report: report, seconds: seconds)
        case .thrown(let description):
            execution = ClientExecution(status: 1, timedOut: false,
                                        report: ClientReport(outcome: "failure", error: description), seconds: seconds)
        case .timedOut:
            execution = ClientExecution(status: nil, timedOut: true, report: nil, seconds: seconds)
        case .stopped(let reason):
            execution = ClientExecution(status: nil, timedOut: false, report: nil, seconds: seconds, stopped: reason)
        }
        execution.ended = ended
        return execution
    }
}

/// Runs the catalog against an in-process ``AuthClient`` — for a Swift auth library's own
/// tests, with SAMLHarness as a package dependency.
public enum Conformance {
    /// The SAMLHarness checkout this library was built from (it holds `MockIdP/` and
    /// `Scenarios/`), or `$SAMLH_HOME` when set.
    public static var harnessDirectory: URL {
        if let home = ProcessInfo.processInfo.environment["SAMLH_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs the scenarios `filter` selects (as `samlharness list --filter`) against `client`,
    /// `jobs` at a time; throws when the catalog or the filter is broken.
    public static func run(_ client: some AuthClient, filter: [String] = [], jobs: Int = 1) async throws -> [ScenarioResult] {
        let mockIdP = harnessDirectory.appendingPathComponent("MockIdP")
        let loader = ScenarioLoader(mockIdPDirectory: mockIdP)
        let catalog = ScenarioCatalog.load(paths: [harnessDirectory.appendingPathComponent("Scenarios")], loader: loader)
        if let problem = catalog.problems.first { throw problem }
        let selected = catalog.selecting(try ScenarioFilter(filter))
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("samlharness-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let runner = ScenarioRunner(loader: loader, mockIdPDirectory: mockIdP, workDirectory: work)
        return await RunEngine(jobs: jobs).run(selected, client: InProcessClient(client), runner: runner) { _ in }
    }
}
