import Foundation
import MockServers

/// A Swift auth library under test, run in-process: implement this and run the catalog from
/// your own `swift test` with ``Conformance/run(_:filter:jobs:timeScale:reportDirectory:)``.
/// `run` gets the scenario's start URL, credentials and flow parameters, logs in over real
/// HTTP to the mocks on loopback, and reports what it obtained — the body of the protected
/// page, the CAS validation response, the book's SHA-256, the token — in
/// ``ClientReport/resource``.
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
            return .inProcess(report, seconds: seconds, ended: ended)
        case .thrown(let description):
            return .inProcess(ClientReport(outcome: "failure", error: description), seconds: seconds, ended: ended)
        case .timedOut:
            execution = ClientExecution(status: nil, timedOut: true, report: nil, seconds: seconds)
        case .stopped(let reason):
            execution = ClientExecution(status: nil, timedOut: false, report: nil, seconds: seconds, stopped: reason)
        }
        execution.ended = ended
        return execution
    }
}
