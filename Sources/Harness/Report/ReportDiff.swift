import Foundation

/// What changed between two runs (`report diff OLD NEW`), scenario by scenario and check by
/// check: the gate a CI pipeline wants. A regression is a scenario that passed and now fails
/// or errors, or a required check that passed and now fails.
public struct ReportDiff: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        public let scenario: String
        public let old: String
        public let new: String
        /// The new run's reason (or the check's), for a regression.
        public let reason: String?
    }

    public struct CheckChange: Sendable, Equatable {
        public let scenario: String
        public let check: String
        public let old: Verdict.Status
        public let new: Verdict.Status
        public let reason: String
    }

    public let oldLabel: String
    public let newLabel: String
    public var regressions: [Change] = []
    public var fixes: [Change] = []
    /// Other status changes (skipped ↔ something, fail ↔ error).
    public var changed: [Change] = []
    public var added: [String] = []
    public var removed: [String] = []
    public var checkRegressions: [CheckChange] = []
    public var checkFixes: [CheckChange] = []

    public var hasRegression: Bool { !regressions.isEmpty || checkRegressions.contains { $0.new == .fail } }

    public init(old: RunReport, new: RunReport) {
        oldLabel = old.label
        newLabel = new.label
        let before = Dictionary(old.results.map { ($0.scenario, $0) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(new.results.map { ($0.scenario, $0) }, uniquingKeysWith: { a, _ in a })
        removed = old.results.map(\.scenario).filter { after[$0] == nil }
        for result in new.results {
            guard let previous = before[result.scenario] else {
                added.append(result.scenario)
                continue
            }
            let change = Change(scenario: result.scenario, old: previous.status.rawValue, new: result.status.rawValue,
                                reason: result.reason)
            switch (previous.status, result.status) {
            case (.pass, .fail), (.pass, .error): regressions.append(change)
            case (.fail, .pass), (.error, .pass): fixes.append(change)
            case let (a, b) where a != b: changed.append(change)
            default: break
            }
            let oldVerdicts = Dictionary(previous.verdicts.map { ($0.check, $0) }, uniquingKeysWith: { a, _ in a })
            for verdict in result.verdicts {
                guard let was = oldVerdicts[verdict.check] else { continue }
                let item = CheckChange(scenario: result.scenario, check: verdict.check, old: was.status, new: verdict.status,
                                       reason: verdict.reason)
                if was.status == .pass, verdict.status == .fail, verdict.level == .required {
                    checkRegressions.append(item)
                } else if was.status == .fail, verdict.status == .pass {
                    checkFixes.append(item)
                }
            }
        }
    }

    /// The diff for people (and CI logs): one section per kind of change.
    public var text: String {
        var lines = ["report diff: \(oldLabel) → \(newLabel)"]
        func section(_ title: String, _ items: [String]) {
            lines.append("\(title): \(items.count)")
            lines += items.map { "  " + $0 }
        }
        section("regressions", regressions.map { "\($0.scenario): \($0.old) → \($0.new)" + ($0.reason.map { " — \($0)" } ?? "") })
        section("check regressions", checkRegressions.map { "\($0.scenario) \($0.check): \($0.old.rawValue) → \($0.new.rawValue) — \($0.reason)" })
        section("fixes", fixes.map { "\($0.scenario): \($0.old) → \($0.new)" })
        section("check fixes", checkFixes.map { "\($0.scenario) \($0.check): \($0.old.rawValue) → \($0.new.rawValue)" })
        section("other status changes", changed.map { "\($0.scenario): \($0.old) → \($0.new)" })
        section("new scenarios", added)
        section("removed scenarios", removed)
        lines.append(hasRegression ? "result: REGRESSION" : "result: no regression")
        return lines.joined(separator: "\n")
    }
}
