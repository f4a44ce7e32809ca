import Foundation
import MockServers
import Yams

/// A client under test run as an external command (any language): `/bin/sh -c COMMAND` with
/// the `SAMLH_*` variables, in its own process group, stopped (the whole group) at the
/// scenario's timeout.
public struct ExternalCommandClient: ClientAdapter {
    public var name: String
    public var command: String
    public var directory: String?
    /// Variables added to the client's environment (after the base ones, before `SAMLH_*`).
    public var environment: [String: String]
    /// The flows it handles (nil: all).
    public var flows: Set<Flow>?

    public init(command: String, name: String? = nil, directory: String? = nil, environment: [String: String] = [:],
                flows: Set<Flow>? = nil) {
        self.command = command
        self.name = name ?? command
        self.directory = directory
        self.environment = environment
        self.flows = flows
    }

    public func supports(_ flow: Flow) -> Bool { flows?.contains(flow) ?? true }

    /// What every client inherits from the runner's environment (nothing else leaks in).
    static let inherited = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "SSL_CERT_FILE", "VIRTUAL_ENV"]

    public func run(target: ScenarioTarget, environment scenarioEnvironment: [String: String], resultFile: URL,
                    timeout: TimeInterval, stop: @escaping @Sendable () -> String?) async -> ClientExecution {
        var full: [String: String] = [:]
        let current = ProcessInfo.processInfo.environment
        for key in Self.inherited { full[key] = current[key] }
        full.merge(environment) { $1 }
        full.merge(scenarioEnvironment) { $1 }
        let outcome = await ClientProcessRunner().run(command: command, directory: directory, environment: full,
                                                      timeout: timeout, stop: stop)
        // When the client ended, as the waiting thread saw it (not when this task next ran).
        let ended = outcome.ended ?? Date()
        let (report, problem) = outcome.launchError == nil ? ClientReport.read(resultFile) : (nil, nil)
        var execution = ClientExecution(status: outcome.status, timedOut: outcome.timedOut, stdout: outcome.stdout,
                                        stderr: outcome.stderr, report: report, reportProblem: problem,
                                        launchError: outcome.launchError, seconds: outcome.seconds, stopped: outcome.stopped)
        execution.signal = outcome.signal
        if !outcome.timedOut, outcome.stopped == nil {
            execution.startFailure = ClientEnding.startFailure(status: outcome.status, stderr: outcome.stderr,
                                                               reportWritten: FileManager.default.fileExists(atPath: resultFile.path),
                                                               command: command)
        }
        execution.ended = ended
        return execution
    }

    /// A client file (`--client-file client.yaml`):
    ///
    /// ```yaml
    /// name: python-ecp
    /// command: python3 my_client.py     # run with /bin/sh -c
    /// directory: clients/               # relative to the file
    /// environment: {MY_FLAG: "1"}
    /// flows: [ecp, web-sso]             # default: every flow
    /// ```
    public struct File: Decodable, Sendable {
        public var name: String?
        public var command: String
        public var directory: String?
        public var environment: [String: String]?
        public var flows: [String]?
    }

    /// Reads a client file; errors name the file, the line and what was expected.
    public static func load(file url: URL) throws -> ExternalCommandClient {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ConfigurationError(file: url.path, line: nil, message: "cannot read the client file: \(error.localizedDescription)")
        }
        let file = try YAMLLoading.decode(File.self, from: text, file: url.path)
        var flows: Set<Flow>?
        if let names = file.flows {
            flows = []
            for name in names {
                guard let flow = Flow(rawValue: name) else {
                    throw ConfigurationError(file: url.path, line: nil, message: "`flows`: no flow `\(name)`; flows: "
                        + Flow.allCases.map(\.rawValue).joined(separator: ", "))
                }
                flows?.insert(flow)
            }
        }
        let base = url.deletingLastPathComponent()
        let directory = file.directory.map { $0.hasPrefix("/") ? $0 : base.appendingPathComponent($0).path } ?? base.path
        return ExternalCommandClient(command: file.command, name: file.name, directory: directory,
                                     environment: file.environment ?? [:], flows: flows)
    }
}
