import Foundation
import MockServers
import SAMLCore
import TestSupport
@testable import Harness

/// Runs one protocol check over a suite's real traffic.
enum ProtocolCheckRun {
    /// Evaluates `check` on the suite's traffic as a `flow` scenario, with the client's report.
    static func evaluate(_ check: String, _ flow: Flow, _ suite: MockSuite, user: String = "alice",
                         params: [String: ParamValue] = [:], report: ClientReport = ClientReport(),
                         status: Int32 = 0, options: FlowOptions? = nil) throws -> CheckOutcome {
        var scenario = CheckTestSupport.scenario(flow, check: check, params: params)
        scenario.user = UserSpec(username: user)
        scenario.options = options
        return try CheckTestSupport.evaluate(scenario, suite: suite, report: report, status: status)
    }

    /// `Authorization: Basic …` for `user` (RFC 7617, UTF-8).
    static func basic(_ user: TestUser) -> String {
        "Basic " + Data((user.username + ":" + user.password).utf8).base64EncodedString()
    }

    /// The last exchange of the log.
    static func lastSequence(_ suite: MockSuite) -> Int { suite.log.entries.last?.sequence ?? -1 }

    /// The first exchange whose request path is `path`, from `after` on.
    static func sequence(_ suite: MockSuite, path: String, after: Int = -1) -> Int? {
        suite.log.entries.first { $0.sequence > after && $0.request.path == path }?.sequence
    }
}

extension CheckOutcome {
    var isNotApplicable: Bool { if case .notApplicable = self { true } else { false } }

    /// The exchanges the evidence names.
    var citedExchanges: [Int] {
        switch self {
        case .pass(_, let evidence), .fail(_, let evidence): evidence.compactMap(\.exchange)
        case .notApplicable: []
        }
    }

    /// Every evidence detail and excerpt, joined.
    var evidenceText: String {
        switch self {
        case .pass(_, let evidence), .fail(_, let evidence):
            evidence.map { $0.detail + " " + ($0.excerpt ?? "") }.joined(separator: "\n")
        case .notApplicable: ""
        }
    }
}
