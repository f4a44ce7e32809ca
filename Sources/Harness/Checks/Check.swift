import Foundation
import MockServers

/// A named check over one scenario run: a small type with a stable id (its descriptor is in
/// ``CheckCatalog``) that reads the run's traffic and the client's report, and says pass or
/// fail with the evidence (exchange numbers, headers, bytes, a decoded diff) — or that the run
/// never reached what it judges.
public protocol Check: Sendable {
    /// The id, as in ``CheckCatalog``.
    static var id: String { get }
    func evaluate(_ context: CheckContext) -> CheckOutcome
}

/// What a check concludes.
public enum CheckOutcome: Sendable, Equatable {
    case pass(String, [Evidence] = [])
    case fail(String, [Evidence] = [])
    /// The run never reached what the check judges (e.g. no SAMLResponse was ever posted);
    /// nothing to pass or fail.
    case notApplicable(String)
}

/// Everything a check may read about one run. Checks never poke the servers.
public struct CheckContext: Sendable {
    public let scenario: Scenario
    public let target: ScenarioTarget
    /// The run's HTTP exchanges through every mock, in order of arrival.
    public let entries: [TrafficEntry]
    /// The run's TLS connections that carried no request (``TrafficEntry/handshake``): a
    /// refused certificate, a failed handshake. Only the TLS checks read them.
    public let handshakes: [TrafficEntry]
    public let execution: ClientExecution
    public let truth: Truth
    /// The check's parameters as the scenario gives them.
    public let params: [String: ParamValue]

    public init(scenario: Scenario, target: ScenarioTarget, entries: [TrafficEntry], execution: ClientExecution,
                truth: Truth, params: [String: ParamValue]) {
        self.scenario = scenario
        self.target = target
        self.entries = entries.filter(\.isHTTP)
        self.handshakes = entries.filter { !$0.isHTTP }
        self.execution = execution
        self.truth = truth
        self.params = params
    }

    /// A whole-number parameter, or the descriptor's default.
    public func integer(_ name: String, check: String) -> Int? {
        if let value = params[name]?.intValue { return value }
        return CheckCatalog.descriptor(check)?.parameters.first { $0.name == name }.flatMap { Int($0.defaultValue) }
    }

    /// A number parameter, or the descriptor's default.
    public func number(_ name: String, check: String) -> Double? {
        if let value = params[name]?.numberValue { return value }
        return CheckCatalog.descriptor(check)?.parameters.first { $0.name == name }.flatMap { Double($0.defaultValue) }
    }

    /// The exchanges a mock answered (`idp`, `sp`, `auth`, `proxy`, `cas`, `adfs`, `cm`, or a
    /// replay listener's name).
    public func entries(of mock: String) -> [TrafficEntry] { entries.filter { $0.mock == mock } }
}

/// The checks this build implements, by id.
public enum CheckRegistry {
    public static let implementations: [String: any Check] = {
        var all: [String: any Check] = [:]
        for check in checks { all[type(of: check).id] = check }
        return all
    }()

    /// Every implemented check (beyond the expectation's, which ``ExpectationJudge`` judges).
    static var checks: [any Check] { messageChecks + protocolChecks }
}
