import Foundation
import MockServers
import SAMLCore
import Yams

/// Every problem found in one scenario file, each with the file, the line and what was
/// expected. A file is refused whole: a scenario that half-loads would run something other
/// than what it says.
public struct ScenarioLoadError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let problems: [ConfigurationError]

    public init(file: String, problems: [ConfigurationError]) {
        self.file = file
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads a scenario file: YAML (bounded, no aliases) → the JSON Schema
/// (`scenario.schema.json`, with line numbers) → the `Scenario` value → what a schema cannot
/// say: the id is the file's name, the profile exists and has the user, every knob parses and
/// acts on a mock the flow reaches, every check is known, applies to the flow and gets only
/// its own parameters, options fit the flow, the clock's start is a date.
public final class ScenarioLoader: @unchecked Sendable {
    /// Scenario files larger than this are refused (recorded chains carry page bodies).
    public static let maxBytes = 4 * 1024 * 1024
    /// The most lines a scenario file may have (checked before the YAML is parsed).
    public static let maxLines = 50_000
    /// The longest line a scenario file may have, in bytes.
    public static let maxLineBytes = 256 * 1024

    /// The number of lines of `text`, and the first line longer than ``maxLineBytes`` (its
    /// number and length), in one memchr pass.
    static func lines(of text: String) -> (count: Int, longLine: (line: Int, bytes: Int)?) {
        var text = text
        return text.withUTF8 { bytes -> (Int, (line: Int, bytes: Int)?) in
            guard let base = bytes.baseAddress else { return (1, nil) }
            var count = 1
            var start = 0
            var long: (line: Int, bytes: Int)? = nil
            while start <= bytes.count {
                let remaining = bytes.count - start
                let hit = remaining > 0 ? memchr(base + start, Int32(UInt8(ascii: "\n")), remaining) : nil
                let end = hit.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
                if long == nil, end - start > maxLineBytes { long = (count, end - start) }
                guard hit != nil else { break }
                count += 1
                start = end + 1
            }
            return (count, long)
        }
    }

    /// The schemas, from the Harness bundle.
    public static let schemaValidator: SchemaValidator = {
        var schemas: [String: JSONValue] = [:]
        for name in ["scenario.schema.json", "replay.schema.json"] {
            if let url = schemaURL(name), let data = try? Data(contentsOf: url),
               let value = try? JSONDecoder().decode(JSONValue.self, from: data) {
                schemas[name] = value
            }
        }
        return SchemaValidator(schemas: schemas)
    }()

    /// Where a schema file of the Harness bundle is.
    public static func schemaURL(_ name: String) -> URL? {
        let base = (name as NSString).deletingPathExtension
        return Bundle.module.url(forResource: base, withExtension: "json", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: base, withExtension: "json")
    }

    public let mockIdPDirectory: URL?
    private let lock = NSLock()
    private var profiles: [String: Result<LoadedProfile, ConfigurationError>] = [:]

    /// - Parameter mockIdPDirectory: MockIdP/, to check profiles, users and knobs; nil skips
    ///   those checks (the schema and check ids are still enforced).
    public init(mockIdPDirectory: URL?) {
        self.mockIdPDirectory = mockIdPDirectory
    }

    /// Loads and validates one scenario file.
    public func load(file url: URL) throws -> Scenario {
        let name = url.path
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ScenarioLoadError(file: name, problems: [.init(file: name, line: nil, message: "cannot read the file: \(error.localizedDescription)")])
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: Self.maxBytes + 1)) ?? Data()
        guard data.count <= Self.maxBytes else {
            throw ScenarioLoadError(file: name, problems: [.init(file: name, line: nil,
                message: "the file is larger than \(Self.maxBytes) bytes; a scenario (even a recorded chain) must stay below that")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioLoadError(file: name, problems: [.init(file: name, line: nil, message: "the file is not UTF-8 text")])
        }
        let stem = url.deletingPathExtension().lastPathComponent
        return try load(text: text, file: name, expectedID: stem)
    }

    /// Loads and validates a scenario from text. `expectedID`: the file's name, which the id
    /// must equal (nil: not checked).
    public func load(text: String, file: String, expectedID: String? = nil) throws -> Scenario {
        func fail(_ problems: [ConfigurationError]) -> ScenarioLoadError { ScenarioLoadError(file: file, problems: problems) }
        guard text.utf8.count <= Self.maxBytes else {
            throw fail([.init(file: file, line: nil, message: "the text is larger than \(Self.maxBytes) bytes")])
        }
        if text.contains("\u{0}") {
            throw fail([.init(file: file, line: nil, message: "the file contains a NUL byte; a scenario is YAML text")])
        }
        // A cheap bound before the YAML parser builds every node: real scenarios are tens of
        // lines; a multi-megabyte list would cost seconds and hundreds of MB to parse.
        let (lineCount, longLine) = Self.lines(of: text)
        guard lineCount <= Self.maxLines else {
            throw fail([.init(file: file, line: nil, message: "the text has \(lineCount) lines; a scenario is at most \(Self.maxLines)")])
        }
        // A single huge scalar (a megabyte of `!!binary`) is refused by the same cheap bound:
        // the longest line of the catalog is a few hundred bytes, a recorded SAMLResponse tens
        // of kilobytes.
        if let longLine {
            throw fail([.init(file: file, line: longLine.line,
                              message: "line \(longLine.line) is \(longLine.bytes) bytes long; a scenario line holds at most \(Self.maxLineBytes)")])
        }
        if let line = Self.firstOverNestedLine(in: text) {
            throw fail([.init(file: file, line: line, message: "the document nests deeper than \(Self.maxDepth) levels")])
        }
        let root: Node
        do {
            guard let composed = try Yams.compose(yaml: text) else {
                throw fail([.init(file: file, line: 1, message: "the file is empty; expected a YAML mapping with id, title, flow…")])
            }
            root = composed
        } catch let error as YamlError {
            throw fail([Self.configurationError(error, file: file, text: text)])
        } catch let error as ScenarioLoadError {
            throw error
        } catch {
            throw fail([.init(file: file, line: nil, message: "not valid YAML: \(error)")])
        }
        var budget = Self.maxNodes
        guard Self.fitsBudget(root, &budget, depth: 0) else {
            throw fail([.init(file: file, line: nil, message: "the document expands to more than \(Self.maxNodes) YAML nodes "
                + "or nests deeper than \(Self.maxDepth) levels (aliases such as *name repeat what they name)")])
        }
        let violations = Self.schemaValidator.validate(root, against: "scenario.schema.json")
        if !violations.isEmpty {
            throw fail(violations.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
                .map { ConfigurationError(file: file, line: $0.line, message: Self.message($0)) })
        }
        var scenario: Scenario
        do {
            scenario = try YAMLDecoder().decode(Scenario.self, from: root)
        } catch let error as DecodingError {
            throw fail([Self.configurationError(error, root: root, file: file)])
        } catch {
            throw fail([.init(file: file, line: nil, message: "\(error)")])
        }
        var lines: [String: Int] = [:]
        if case .mapping(let mapping) = root {
            for (key, value) in mapping {
                if let name = key.string { lines[name] = value.mark?.line ?? key.mark?.line }
            }
        }
        scenario.source = .init(file: file, lines: lines)
        let (problems, spRules) = semanticProblems(scenario, root: root, file: file, expectedID: expectedID)
        if !problems.isEmpty { throw fail(problems.sorted { ($0.line ?? 0) < ($1.line ?? 0) }) }
        scenario.spRules = spRules
        return scenario
    }

    /// The profile, loaded once per loader.
    public func profile(named name: String) throws -> LoadedProfile {
        guard let directory = mockIdPDirectory else {
            throw ConfigurationError(file: name, line: nil, message: "no MockIdP/ directory to load the profile from")
        }
        let result: Result<LoadedProfile, ConfigurationError> = lock.withLock {
            if let cached = profiles[name] { return cached }
            let loaded: Result<LoadedProfile, ConfigurationError>
            do {
                loaded = .success(try LoadedProfile.load(named: name, from: directory))
            } catch let error as ConfigurationError {
                loaded = .failure(error)
            } catch {
                loaded = .failure(ConfigurationError(file: name, line: nil, message: "\(error)"))
            }
            profiles[name] = loaded
            return loaded
        }
        return try result.get()
    }

    // MARK: - What the schema cannot say

    /// What the schema cannot say, and the mock SP's rules the scenario judges with (its
    /// profile's, then its `sp:`), worked out on the way.
    private func semanticProblems(_ scenario: Scenario, root: Node, file: String,
                                  expectedID: String?) -> (problems: [ConfigurationError], spRules: SPRules?) {
        var spRules: SPRules?
        var problems: [ConfigurationError] = []
        func add(_ path: [PathComponent], _ message: String) {
            problems.append(ConfigurationError(file: file, line: Self.line(of: path, in: root),
                                               message: "`\(Self.dotted(path))`: \(message)"))
        }
        if let expectedID, scenario.id != expectedID {
            add([.key("id")], "`\(scenario.id)` differs from the file's name `\(expectedID)`; the id must equal the file name without .yaml")
        }
        if scenario.flow != .replay, let profileName = scenario.profile, let mockIdPDirectory {
            do {
                var loaded = try profile(named: profileName)
                do {
                    try loaded.useSP(personality: scenario.sp?.personality, settings: scenario.sp?.assignments ?? [],
                                     mockIdP: mockIdPDirectory)
                    spRules = loaded.spRules
                } catch let error as ConfigurationError {
                    let known = SPPersonality.names(in: mockIdPDirectory).joined(separator: ", ")
                    add([.key("sp")], "\(error.message) (SP personalities: \(known))")
                }
                if let user = scenario.user, !loaded.profile.users.contains(where: { $0.username == user.username }) {
                    let known = loaded.profile.users.map(\.username).joined(separator: ", ")
                    add([.key("user")], "profile `\(profileName)` has no user `\(user.username)`; it has: \(known)")
                }
            } catch let error as ConfigurationError {
                let names = MockIdPDirectory.profileNames(in: mockIdPDirectory)
                let known = names.joined(separator: ", ")
                let exists = names.contains(profileName)
                add([.key("profile")], exists ? "profile `\(profileName)` cannot be loaded: \(error)"
                    : "no profile `\(profileName)` in MockIdP/; expected one of: \(known)")
            } catch {
                add([.key("profile")], "profile `\(profileName)` cannot be loaded: \(error)")
            }
        }
        for (index, text) in (scenario.knobs ?? []).enumerated() {
            do {
                let knob = try Knob(parsing: text)
                if let reason = Self.knobMismatch(knob, flow: scenario.flow) {
                    add([.key("knobs"), .index(index)], reason)
                }
            } catch {
                add([.key("knobs"), .index(index)], "\(error)")
            }
        }
        for word in (scenario.expect.error ?? "").lowercased().split(separator: "|").map({ $0.trimmingCharacters(in: .whitespaces) })
            where FaultWords.expand(word) == nil {
            add([.key("expect"), .key("error")], "`\(word)` is no class of fault words; known: \(FaultWords.classes.keys.sorted().map { "@" + $0 }.joined(separator: ", "))")
        }
        for (index, id) in (scenario.optional?.unsupportedWhen ?? []).enumerated() where !scenario.checks.contains(where: { $0.id == id }) {
            add([.key("optional"), .key("unsupported_when"), .index(index)], "`\(id)` is not among the scenario's `checks`; a check that shows the feature missing must be judged")
        }
        for (index, id) in (scenario.exercises ?? []).enumerated() where !scenario.checks.contains(where: { $0.id == id }) {
            add([.key("exercises"), .index(index)], "`\(id)` is not among the scenario's `checks`; a check it exercises must be judged")
        }
        var seen: [String: Int] = [:]
        for (index, use) in scenario.checks.enumerated() {
            let path: [PathComponent] = [.key("checks"), .index(index)]
            if use.level == .required, let why = CheckCatalog.descriptor(use.id)?.onlyRecommended {
                add(path, "check `\(use.id)` can only be `level: recommended`: \(why)")
            }
            if let first = seen[use.id] {
                add(path, "check `\(use.id)` is listed twice (first as item \(first + 1))")
                continue
            }
            seen[use.id] = index
            guard let descriptor = CheckCatalog.descriptor(use.id) else {
                let suggestion = NameSuggestion.didYouMean(use.id, in: CheckCatalog.ids)
                add(path, "unknown check `\(use.id)`\(suggestion); `samlharness list --checks` lists them")
                continue
            }
            if !descriptor.applies(to: scenario.flow) {
                let flows = descriptor.flows.sorted().map(\.rawValue).joined(separator: ", ")
                add(path, "check `\(use.id)` does not apply to flow `\(scenario.flow.rawValue)`; it applies to: \(flows)")
            }
            for (name, value) in use.params.sorted(by: { $0.key < $1.key }) {
                guard let parameter = descriptor.parameters.first(where: { $0.name == name }) else {
                    let known = descriptor.parameters.map(\.name)
                    add(path + [.key("params"), .key(name)], "check `\(use.id)` has no parameter `\(name)`"
                        + (known.isEmpty ? "; it takes none" : "; it takes: \(known.joined(separator: ", "))"))
                    continue
                }
                if !Self.fits(value, parameter.kind) {
                    add(path + [.key("params"), .key(name)], "expected \(parameter.kind.rawValue == "integer" ? "a whole number" : "a \(parameter.kind.rawValue)"); found `\(value)`")
                }
            }
        }
        if scenario.expect.outcome == .failure, seen["flow.resource-obtained"] != nil {
            add([.key("checks")], "`flow.resource-obtained` contradicts `expect.outcome: failure`")
        }
        if scenario.expect.outcome == .success, seen["flow.failure-reported"] != nil {
            add([.key("checks")], "`flow.failure-reported` contradicts `expect.outcome: success`")
        }
        if let options = scenario.options {
            for (key, flows) in Self.optionFlows where Self.isSet(options, key) && !flows.contains(scenario.flow) {
                add([.key("options"), .key(key)], "applies to flow \(flows.sorted().map(\.rawValue).joined(separator: ", ")), not `\(scenario.flow.rawValue)`")
            }
        }
        if let start = scenario.clock?.start, (try? SAMLDateTime.date(from: start)) == nil {
            add([.key("clock"), .key("start")], "`\(start)` is not an ISO 8601 date-time such as 2026-01-01T00:00:00Z")
        }
        if let tooMany = scenario.replay?.tooManyOrigins {
            add([.key("replay"), .key("origins")], tooMany)
        }
        if scenario.flow == .replay, scenario.knobs?.isEmpty == false {
            add([.key("knobs")], "a replay scenario plays its recording; knobs act on the mocks and have no effect here")
        }
        return (problems, spRules)
    }

    /// Which flows each `options:` key acts on.
    static let optionFlows: [(String, Set<Flow>)] = [
        ("digest_algorithm", [.httpDigest]),
        ("wstrust_version", [.adfsWSTrust]),
        ("token_type", [.adfsWSTrust]),
        ("applies_to", [.adfsWSTrust]),
        ("relying_party", [.adfsPassive]),
        ("service", [.casREST, .casBrowser]),
        ("book", [.opdsSAML]),
        ("opds_idp", [.opdsSAML]),
        ("second_login", [.webSSO, .webSSOIdPInitiated, .casBrowser, .adfsPassive, .opdsSAML]),
        ("consent", [.webSSO, .webSSOIdPInitiated, .opdsSAML]),
        ("proxy_target", [.proxy]),
        ("ntlm_resource", [.httpNTLM]),
        ("domain", [.httpNTLM, .proxy, .adfsPassive]),
        ("upn", [.httpNTLM]),
        ("kerberos", [.httpNTLM, .adfsPassive]),
    ]

    static func isSet(_ options: FlowOptions, _ key: String) -> Bool {
        switch key {
        case "digest_algorithm": options.digestAlgorithm != nil
        case "wstrust_version": options.wstrustVersion != nil
        case "token_type": options.tokenType != nil
        case "applies_to": options.appliesTo != nil
        case "relying_party": options.relyingParty != nil
        case "service": options.service != nil
        case "book": options.book != nil
        case "opds_idp": options.opdsIdP != nil
        case "second_login": options.secondLogin != nil
        case "consent": options.consent != nil
        case "proxy_target": options.proxyTarget != nil
        case "ntlm_resource": options.ntlmResource != nil
        case "domain": options.domain != nil
        case "upn": options.upn != nil
        case "kerberos": options.kerberos != nil
        default: false
        }
    }

    /// Why a knob cannot act in this flow (it belongs to a mock the flow never reaches).
    static func knobMismatch(_ knob: Knob, flow: Flow) -> String? {
        let (mock, flows): (String, Set<Flow>) = switch knob {
        case .cas: ("the CAS mock", [.casREST, .casBrowser])
        case .adfs: ("the AD FS mock", [.adfsWSTrust, .adfsPassive])
        case .cm: ("the circulation manager", [.opdsSAML])
        case .ntlm(.proxy): ("the forward proxy's 407", [.proxy])
        case .ntlm: ("the NTLM handshakes (/ntlm/, /negotiate/, AD FS /adfs/ls/wia, the NTLM proxy)", [.httpNTLM, .adfsPassive, .proxy])
        case .tls: ("the IdP's and SP's listeners", [.webSSO, .webSSOIdPInitiated, .ecp])
        case .httpsDowngrade: ("the SP's redirect after a login", [.webSSO, .webSSOIdPInitiated])
        case .httpsFor(let mocks), .tlsFault(_, let mocks):
            ("the listeners of \(Knob.listed(mocks))", mocks.reduce(into: Set<Flow>()) { $0.formUnion(Self.flows(reaching: $1)) })
        case .errorPage200: ("the IdP's error pages", [.webSSO, .webSSOIdPInitiated, .ecp, .opdsSAML])
        case .spSessionEnds: ("the SP's sessions", [.webSSO, .webSSOIdPInitiated, .adfsPassive, .proxy])
        default: ("", [])
        }
        guard !flows.isEmpty, !flows.contains(flow) else { return nil }
        return "knob `\(knob.text)` acts on \(mock), which flow `\(flow.rawValue)` never reaches"
            + " (it acts in: \(flows.sorted().map(\.rawValue).joined(separator: ", ")))"
    }

    /// The flows whose client talks to `mock`.
    static func flows(reaching mock: TLSMock) -> Set<Flow> {
        switch mock {
        case .idp: [.webSSO, .webSSOIdPInitiated, .ecp, .opdsSAML]
        case .sp: [.webSSO, .webSSOIdPInitiated, .ecp]
        case .auth: [.httpBasic, .httpDigest, .httpNTLM]
        case .cas: [.casREST, .casBrowser]
        case .adfs: [.adfsWSTrust, .adfsPassive]
        case .cm: [.opdsSAML]
        }
    }

    static func fits(_ value: ParamValue, _ kind: CheckDescriptor.Parameter.Kind) -> Bool {
        switch (kind, value) {
        case (.string, .string), (.boolean, .boolean), (.integer, .integer), (.number, .integer), (.number, .number): true
        default: false
        }
    }

    // MARK: - Lines and messages

    enum PathComponent {
        case key(String)
        case index(Int)
    }

    static func dotted(_ path: [PathComponent]) -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// The line of the deepest node on `path` that exists.
    static func line(of path: [PathComponent], in root: Node) -> Int? {
        var node = root
        var line = root.mark?.line
        for component in path {
            let next: Node? = switch (component, node) {
            case (.index(let index), .sequence(let sequence)) where index < sequence.count: sequence[index]
            case (.key(let key), _): node[key]
            default: nil
            }
            guard let next else { break }
            node = next
            line = next.mark?.line ?? line
        }
        return line
    }

    static func message(_ violation: SchemaViolation) -> String {
        violation.path.isEmpty ? violation.message : "`\(violation.path)`: \(violation.message)"
    }

    /// At most this many nodes are visited (aliases count each time they repeat), so
    /// YAML's billion laughs is refused before anything walks it.
    public static let maxNodes = 200_000
    public static let maxDepth = 64

    static func fitsBudget(_ node: Node, _ budget: inout Int, depth: Int) -> Bool {
        budget -= 1
        guard budget >= 0, depth <= maxDepth else { return false }
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard fitsBudget(key, &budget, depth: depth + 1), fitsBudget(value, &budget, depth: depth + 1) else { return false }
            }
        case .sequence(let sequence):
            for item in sequence where !fitsBudget(item, &budget, depth: depth + 1) { return false }
        case .scalar, .alias:
            break
        }
        return true
    }

    /// The first line where flow collections (`[`, `{`) or block indentation nest deeper
    /// than ``maxDepth`` — checked on the text, before the YAML parser recurses into it.
    static func firstOverNestedLine(in text: String) -> Int? {
        var depth = 0
        var line = 1
        var quote: UInt8?
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                if quote == UInt8(ascii: "'") { quote = nil }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                if quote == nil { quote = byte } else if quote == byte { quote = nil }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if quote == nil {
                    depth += 1
                    if depth > maxDepth { return line }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if quote == nil { depth = max(0, depth - 1) }
            default:
                break
            }
        }
        for (index, row) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where row.prefix(while: { $0 == " " }).count > maxDepth * 8 && !row.allSatisfy({ $0 == " " }) {
            return index + 1
        }
        return nil
    }

    static func configurationError(_ error: YamlError, file: String, text: String) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return ConfigurationError(file: file, line: mark.line,
                                      message: "not valid YAML: \(problem)\(context.map { " \($0.text)" } ?? "")")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams marks the first occurrence; the second is the one to look at.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let second = duplicates.sorted().first.flatMap { key in
                lines.indices.last { lines[$0].trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }.map { $0 + 1 }
            }
            return ConfigurationError(file: file, line: second ?? context.mark.line,
                                      message: "duplicate key\(duplicates.count > 1 ? "s" : "") "
                                          + duplicates.sorted().joined(separator: ", "))
        default:
            return ConfigurationError(file: file, line: nil, message: "not valid YAML: \(error)")
        }
    }

    static func configurationError(_ error: DecodingError, root: Node, file: String) -> ConfigurationError {
        let (codingPath, message): ([any CodingKey], String) = switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
             .dataCorrupted(let context):
            (context.codingPath, context.debugDescription)
        @unknown default:
            ([], "\(error)")
        }
        let path: [PathComponent] = codingPath.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) }
        return ConfigurationError(file: file, line: line(of: path, in: root),
                                  message: path.isEmpty ? message : "`\(dotted(path))`: \(message)")
    }
}
