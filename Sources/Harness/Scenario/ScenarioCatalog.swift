import Foundation
import MockServers

/// The scenarios under one or more paths (files or folders, searched recursively for
/// `*.yaml`/`*.yml`), every file validated, ids unique across them all. Problems are
/// collected, not stopped at: a run should tell about every broken file at once.
public struct ScenarioCatalog: Sendable {
    public var scenarios: [Scenario]
    public var problems: [ConfigurationError]

    public init(scenarios: [Scenario], problems: [ConfigurationError]) {
        self.scenarios = scenarios
        self.problems = problems
    }

    /// At most this many scenario files are read from the given paths.
    public static let maxFiles = 10_000

    /// Loads every scenario under `paths`.
    public static func load(paths: [URL], loader: ScenarioLoader) -> ScenarioCatalog {
        var problems: [ConfigurationError] = []
        var files: [URL] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                problems.append(.init(file: path.path, line: nil, message: "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                files += scenarioFiles(under: path)
            } else {
                files.append(path)
            }
        }
        if files.count > maxFiles {
            problems.append(.init(file: paths.map(\.path).joined(separator: ", "), line: nil,
                                  message: "\(files.count) scenario files; at most \(maxFiles) are read"))
            files = Array(files.prefix(maxFiles))
        }
        var scenarios: [Scenario] = []
        var firstFile: [String: String] = [:]
        for file in files {
            do {
                let scenario = try loader.load(file: file)
                if let other = firstFile[scenario.id] {
                    problems.append(.init(file: file.path, line: scenario.source?.line(of: "id"),
                                          message: "the id `\(scenario.id)` is also the id of \(other); ids must be unique"))
                    continue
                }
                firstFile[scenario.id] = file.path
                scenarios.append(scenario)
            } catch let error as ScenarioLoadError {
                problems += error.problems
            } catch {
                problems.append(.init(file: file.path, line: nil, message: "\(error)"))
            }
        }
        return ScenarioCatalog(scenarios: scenarios.sorted { $0.id < $1.id }, problems: problems)
    }

    /// `*.yaml` and `*.yml` files under `folder`, recursively, in path order; hidden files and
    /// folders are skipped. A `folder` that is a symbolic link is followed (an installed copy's
    /// data may be linked into place).
    public static func scenarioFiles(under folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder.resolvingSymlinksInPath(), includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where ["yaml", "yml"].contains(url.pathExtension.lowercased()) {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The scenarios a filter selects.
    public func selecting(_ filter: ScenarioFilter) -> [Scenario] {
        scenarios.filter(filter.matches)
    }
}

/// Selects scenarios. Each expression is a list of terms separated by spaces, all of which
/// must hold: an id glob (`web-sso.*`, `*xsw?`), `tag:NAME`, `flow:NAME`, `check:ID` (the
/// scenario applies that check), `profile:NAME`, `outcome:success|failure`; a term starting
/// with `-` must not hold. A scenario is selected when any expression holds (so
/// `--filter tag:ecp --filter tag:cas` selects both slices); no expression selects all.
public struct ScenarioFilter: Sendable, CustomStringConvertible {
    public enum Term: Sendable, Equatable {
        case idGlob(String)
        case tag(String)
        case flow(Flow)
        case check(String)
        case profile(String)
        case outcome(ScenarioExpectation.Outcome)
    }

    public struct Clause: Sendable, Equatable {
        public var term: Term
        public var negated: Bool
    }

    public let expressions: [[Clause]]
    public let description: String

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public static let all = try! ScenarioFilter([])

    public init(_ expressions: [String]) throws {
        var parsed: [[Clause]] = []
        for expression in expressions {
            var clauses: [Clause] = []
            for word in expression.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                var text = String(word)
                let negated = text.hasPrefix("-")
                if negated { text.removeFirst() }
                guard !text.isEmpty else { throw ParseError(description: "filter `\(expression)`: a lone `-`") }
                clauses.append(Clause(term: try Self.term(text, in: expression), negated: negated))
            }
            if !clauses.isEmpty { parsed.append(clauses) }
        }
        self.expressions = parsed
        self.description = expressions.joined(separator: " | ")
    }

    static func term(_ text: String, in expression: String) throws -> Term {
        guard let colon = text.firstIndex(of: ":") else { return .idGlob(text) }
        let kind = String(text[..<colon])
        let value = String(text[text.index(after: colon)...])
        guard !value.isEmpty else { throw ParseError(description: "filter `\(expression)`: `\(kind):` needs a value") }
        switch kind {
        case "tag": return .tag(value)
        case "flow":
            guard let flow = Flow(rawValue: value) else {
                throw ParseError(description: "filter `\(expression)`: no flow `\(value)`; flows: "
                    + Flow.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .flow(flow)
        case "check":
            guard CheckCatalog.descriptor(value) != nil || value.contains("*") else {
                throw ParseError(description: "filter `\(expression)`: no check `\(value)`")
            }
            return .check(value)
        case "profile": return .profile(value)
        case "outcome":
            guard let outcome = ScenarioExpectation.Outcome(rawValue: value) else {
                throw ParseError(description: "filter `\(expression)`: outcome is success or failure, not `\(value)`")
            }
            return .outcome(outcome)
        default:
            throw ParseError(description: "filter `\(expression)`: unknown term `\(kind):`; expected an id glob, tag:, flow:, check:, profile: or outcome:")
        }
    }

    public func matches(_ scenario: Scenario) -> Bool {
        guard !expressions.isEmpty else { return true }
        return expressions.contains { clauses in
            clauses.allSatisfy { Self.holds($0.term, scenario) != $0.negated }
        }
    }

    static func holds(_ term: Term, _ scenario: Scenario) -> Bool {
        switch term {
        case .idGlob(let pattern): Glob.matches(scenario.id, pattern: pattern)
        case .tag(let tag): scenario.tags.contains(tag)
        case .flow(let flow): scenario.flow == flow
        case .check(let pattern): scenario.checks.contains { Glob.matches($0.id, pattern: pattern) }
        case .profile(let profile): scenario.profile == profile
        case .outcome(let outcome): scenario.expect.outcome == outcome
        }
    }
}

/// Shell-style globs: `*` (any run), `?` (one character), `[abc]`/`[a-z]`/`[!x]` (a class).
public enum Glob {
    public static func matches(_ text: String, pattern: String) -> Bool {
        match(Array(text), 0, Array(pattern), 0)
    }

    private static func match(_ t: [Character], _ ti: Int, _ p: [Character], _ pi: Int) -> Bool {
        var ti = ti
        var pi = pi
        var starP = -1
        var starT = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "*" {
                starP = pi
                starT = ti
                pi += 1
            } else if pi < p.count, let (matched, next) = single(t[ti], p, pi), matched {
                ti += 1
                pi = next
            } else if starP >= 0 {
                pi = starP + 1
                starT += 1
                ti = starT
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// Whether `c` matches the pattern element at `pi`, and the index after that element.
    private static func single(_ c: Character, _ p: [Character], _ pi: Int) -> (Bool, Int)? {
        switch p[pi] {
        case "?": return (true, pi + 1)
        case "[":
            var i = pi + 1
            let negate = i < p.count && (p[i] == "!" || p[i] == "^")
            if negate { i += 1 }
            var found = false
            var first = true
            while i < p.count, p[i] != "]" || first {
                first = false
                if i + 2 < p.count, p[i + 1] == "-", p[i + 2] != "]" {
                    if p[i] <= c && c <= p[i + 2] { found = true }
                    i += 3
                } else {
                    if p[i] == c { found = true }
                    i += 1
                }
            }
            guard i < p.count else { return (p[pi] == c, pi + 1) }  // no closing `]`: a literal `[`
            return (found != negate, i + 1)
        default:
            return (p[pi] == c, pi + 1)
        }
    }
}
