import Foundation
import MockServers
import Yams

/// One place where a YAML document breaks its JSON Schema: the line (1-based) and column of
/// the offending node, its path (`checks[2].id`), and what was expected there.
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    public var line: Int?
    public var column: Int?
    public var path: String
    public var message: String

    public var description: String {
        (line.map { "line \($0): " } ?? "") + (path.isEmpty ? "" : "`\(path)`: ") + message
    }
}

/// Validates YAML nodes (with their line marks) against a JSON Schema (draft 2020-12),
/// so an error can name the line. Supported keywords: `type`, `enum`, `const`, `pattern`,
/// `minLength`, `maxLength`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
/// `required`, `properties`, `additionalProperties`, `items`, `minItems`, `maxItems`,
/// `uniqueItems`, `oneOf`, `anyOf`, `allOf`, `if`/`then`/`else`, `not`, boolean schemas,
/// `$ref` (`#/$defs/…` and another registered schema file, `name.json#/$defs/…`), and
/// `errorMessage` (ajv-errors' keyword: the message used when that subschema fails).
/// `description`, `title`, `format` and other annotations are ignored.
public struct SchemaValidator: Sendable {
    /// Schemas by file name (`scenario.schema.json`, `replay.schema.json`).
    public let schemas: [String: JSONValue]

    public init(schemas: [String: JSONValue]) {
        self.schemas = schemas
    }

    /// Every violation of `root` against the schema registered as `schemaName`.
    public func validate(_ root: Node, against schemaName: String) -> [SchemaViolation] {
        guard let schema = schemas[schemaName] else {
            return [SchemaViolation(line: nil, column: nil, path: "", message: "no schema named \(schemaName)")]
        }
        var context = Context(document: schemaName)
        return validate(root, schema, path: "", context: &context)
    }

    struct Context {
        var document: String
        var depth = 0
    }

    // MARK: - The keywords

    private func validate(_ node: Node, _ schema: JSONValue, path: String, context: inout Context) -> [SchemaViolation] {
        if case .bool(let allowed) = schema {
            return allowed ? [] : [violation(node, path, "is not allowed here")]
        }
        guard case .object(let keywords) = schema else { return [] }
        context.depth += 1
        defer { context.depth -= 1 }
        guard context.depth < 64 else { return [violation(node, path, "the schema nests too deeply ($ref cycle?)")] }
        var problems: [SchemaViolation] = []

        if let reference = keywords["$ref"]?.string {
            problems += resolving(reference, context: context) { target, document in
                var inner = Context(document: document, depth: context.depth)
                return validate(node, target, path: path, context: &inner)
            } ?? [violation(node, path, "the schema's $ref \(reference) cannot be resolved")]
        }
        if case .alias = node {
            return [violation(node, path, "YAML aliases (*name) are not accepted; write the value out")]
        }
        if let typeProblem = checkType(node, keywords["type"], path: path) {
            return [custom(keywords, typeProblem)]
        }
        if let allowed = keywords["enum"]?.array, !allowed.contains(where: { matches(node, $0) }) {
            let list = allowed.map { $0.string ?? $0.display }.joined(separator: ", ")
            problems.append(custom(keywords, violation(node, path, "expected one of: \(list); found \(display(node))")))
        }
        if let constant = keywords["const"], !matches(node, constant) {
            problems.append(custom(keywords, violation(node, path, "expected \(constant.display); found \(display(node))")))
        }
        problems += scalarKeywords(node, keywords, path: path)
        problems += mappingKeywords(node, keywords, path: path, context: &context)
        problems += sequenceKeywords(node, keywords, path: path, context: &context)
        problems += combinators(node, keywords, path: path, context: &context)
        return problems
    }

    private func scalarKeywords(_ node: Node, _ keywords: [String: JSONValue], path: String) -> [SchemaViolation] {
        guard case .scalar(let scalar) = node else { return [] }
        var problems: [SchemaViolation] = []
        if isString(node) {
            let text = scalar.string
            let length = text.count
            if let minimum = keywords["minLength"]?.number, Double(length) < minimum {
                problems.append(custom(keywords, violation(node, path, minimum <= 1
                    ? "must not be empty" : "expected at least \(Int(minimum)) characters; found \(length)")))
            }
            if let maximum = keywords["maxLength"]?.number, Double(length) > maximum {
                problems.append(custom(keywords, violation(node, path, "expected at most \(Int(maximum)) characters; found \(length)")))
            }
            if let pattern = keywords["pattern"]?.string, !Self.matches(text, pattern: pattern) {
                let hint = keywords["description"]?.string.map { " (\($0))" } ?? ""
                problems.append(custom(keywords, violation(node, path,
                    "\(display(node)) does not match the pattern \(pattern)\(hint)")))
            }
        }
        if let value = number(node) {
            if let minimum = keywords["minimum"]?.number, value < minimum {
                problems.append(custom(keywords, violation(node, path, "expected at least \(JSONValue.number(minimum).display); found \(scalar.string)")))
            }
            if let maximum = keywords["maximum"]?.number, value > maximum {
                problems.append(custom(keywords, violation(node, path, "expected at most \(JSONValue.number(maximum).display); found \(scalar.string)")))
            }
            if let bound = keywords["exclusiveMinimum"]?.number, value <= bound {
                problems.append(custom(keywords, violation(node, path, "expected more than \(JSONValue.number(bound).display); found \(scalar.string)")))
            }
            if let bound = keywords["exclusiveMaximum"]?.number, value >= bound {
                problems.append(custom(keywords, violation(node, path, "expected less than \(JSONValue.number(bound).display); found \(scalar.string)")))
            }
        }
        return problems
    }

    private func mappingKeywords(_ node: Node, _ keywords: [String: JSONValue], path: String,
                                 context: inout Context) -> [SchemaViolation] {
        guard case .mapping(let mapping) = node else { return [] }
        var problems: [SchemaViolation] = []
        let properties = keywords["properties"]?.object ?? [:]
        var present: [String] = []
        for (key, value) in mapping {
            guard case .scalar(let keyScalar) = key else {
                problems.append(violation(key, path, "a key must be a plain word, not a mapping or a list"))
                continue
            }
            let name = keyScalar.string
            present.append(name)
            let childPath = path.isEmpty ? name : "\(path).\(name)"
            if let propertySchema = properties[name] {
                problems += validate(value, propertySchema, path: childPath, context: &context)
            } else if let additional = keywords["additionalProperties"] {
                if additional == .bool(false) {
                    let known = properties.keys.sorted()
                    let suggestion = NameSuggestion.didYouMean(name, in: known)
                    problems.append(violation(key, path, "unknown key `\(name)`\(suggestion); expected one of: "
                        + known.joined(separator: ", ")))
                } else {
                    problems += validate(value, additional, path: childPath, context: &context)
                }
            }
        }
        for required in keywords["required"]?.array?.compactMap(\.string) ?? [] where !present.contains(required) {
            problems.append(custom(keywords, violation(node, path, "the required key `\(required)` is missing")))
        }
        return problems
    }

    private func sequenceKeywords(_ node: Node, _ keywords: [String: JSONValue], path: String,
                                  context: inout Context) -> [SchemaViolation] {
        guard case .sequence(let sequence) = node else { return [] }
        var problems: [SchemaViolation] = []
        let count = sequence.count
        if let minimum = keywords["minItems"]?.number, Double(count) < minimum {
            problems.append(custom(keywords, violation(node, path, minimum == 1
                ? "the list must not be empty" : "expected at least \(Int(minimum)) items; found \(count)")))
        }
        if let maximum = keywords["maxItems"]?.number, Double(count) > maximum {
            problems.append(violation(node, path, "expected at most \(Int(maximum)) items; found \(count)"))
        }
        if let items = keywords["items"] {
            for (index, item) in sequence.enumerated() {
                problems += validate(item, items, path: "\(path)[\(index)]", context: &context)
            }
        }
        if keywords["uniqueItems"] == .bool(true) {
            var seen: [String: Int] = [:]
            for (index, item) in sequence.enumerated() {
                guard case .scalar(let scalar) = item else { continue }
                if let first = seen[scalar.string] {
                    problems.append(violation(item, "\(path)[\(index)]",
                                              "\(display(item)) is listed twice (first as item \(first + 1))"))
                } else {
                    seen[scalar.string] = index
                }
            }
        }
        return problems
    }

    private func combinators(_ node: Node, _ keywords: [String: JSONValue], path: String,
                             context: inout Context) -> [SchemaViolation] {
        var problems: [SchemaViolation] = []
        for sub in keywords["allOf"]?.array ?? [] {
            problems += validate(node, sub, path: path, context: &context)
        }
        if let alternatives = keywords["oneOf"]?.array ?? keywords["anyOf"]?.array {
            let exclusive = keywords["oneOf"] != nil
            let results = alternatives.map { validate(node, $0, path: path, context: &context) }
            let passing = results.filter(\.isEmpty).count
            if passing == 0 {
                // Report the alternative that got furthest: the one whose type fits the node.
                if let fitting = zip(alternatives, results).first(where: { checkType(node, $0.0["type"], path: path) == nil }) {
                    problems += fitting.1
                } else {
                    let kinds = alternatives.compactMap { describeType($0["type"]) }
                    problems.append(custom(keywords, violation(node, path,
                        "expected \(kinds.joined(separator: " or ")); found \(kind(node))")))
                }
            } else if exclusive && passing > 1 {
                problems.append(violation(node, path, "matches more than one alternative of the schema"))
            }
        }
        if let condition = keywords["if"] {
            var probe = context
            let holds = validate(node, condition, path: path, context: &probe).isEmpty
            if holds, let then = keywords["then"] {
                problems += validate(node, then, path: path, context: &context)
            } else if !holds, let otherwise = keywords["else"] {
                problems += validate(node, otherwise, path: path, context: &context)
            }
        }
        if let negated = keywords["not"] {
            var probe = context
            if validate(node, negated, path: path, context: &probe).isEmpty {
                problems.append(custom(keywords, violation(node, path, "is not allowed here")))
            }
        }
        return problems
    }

    // MARK: - Types

    private func checkType(_ node: Node, _ type: JSONValue?, path: String) -> SchemaViolation? {
        guard let type else { return nil }
        let names = type.array?.compactMap(\.string) ?? type.string.map { [$0] } ?? []
        guard !names.isEmpty else { return nil }
        if names.contains(where: { fits(node, $0) }) { return nil }
        let expected = describeType(type) ?? names.joined(separator: " or ")
        return violation(node, path, "expected \(expected); found \(kind(node))")
    }

    private func fits(_ node: Node, _ type: String) -> Bool {
        switch (type, node) {
        case ("object", .mapping): true
        case ("array", .sequence): true
        case ("string", .scalar): isString(node)
        case ("integer", .scalar): tagName(node) == Tag.Name.int.rawValue
        case ("number", .scalar): [Tag.Name.int.rawValue, Tag.Name.float.rawValue].contains(tagName(node))
        case ("boolean", .scalar): tagName(node) == Tag.Name.bool.rawValue
        case ("null", .scalar): tagName(node) == Tag.Name.null.rawValue
        default: false
        }
    }

    private func describeType(_ type: JSONValue?) -> String? {
        guard let type else { return nil }
        let names = type.array?.compactMap(\.string) ?? type.string.map { [$0] } ?? []
        let words = names.map { name -> String in
            switch name {
            case "object": "a mapping"
            case "array": "a list"
            case "string": "a string"
            case "integer": "a whole number"
            case "number": "a number"
            case "boolean": "true or false"
            case "null": "nothing"
            default: name
            }
        }
        return words.isEmpty ? nil : words.joined(separator: " or ")
    }

    private func tagName(_ node: Node) -> String { node.tag.description }

    /// A scalar is a string unless YAML resolved it to a number, boolean or null; a quoted
    /// scalar is always a string.
    private func isString(_ node: Node) -> Bool {
        guard case .scalar = node else { return false }
        return tagName(node) == Tag.Name.str.rawValue
    }

    private func number(_ node: Node) -> Double? {
        guard case .scalar(let scalar) = node,
              [Tag.Name.int.rawValue, Tag.Name.float.rawValue].contains(tagName(node)) else { return nil }
        return node.float ?? Double(scalar.string)
    }

    private func kind(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            switch tagName(node) {
            case Tag.Name.int.rawValue: return "the whole number \(scalar.string)"
            case Tag.Name.float.rawValue: return "the number \(scalar.string)"
            case Tag.Name.bool.rawValue: return "the boolean \(scalar.string)"
            case Tag.Name.null.rawValue: return "nothing"
            default: return "the string \(display(node))"
            }
        }
    }

    private func display(_ node: Node) -> String {
        guard case .scalar(let scalar) = node else { return kind(node) }
        let text = scalar.string.count > 60 ? String(scalar.string.prefix(57)) + "…" : scalar.string
        return "`\(text)`"
    }

    private func matches(_ node: Node, _ value: JSONValue) -> Bool {
        guard case .scalar(let scalar) = node else { return false }
        switch value {
        case .string(let text): return isString(node) && scalar.string == text
        case .number(let n): return number(node) == n
        case .bool(let b): return tagName(node) == Tag.Name.bool.rawValue && node.bool == b
        case .null: return tagName(node) == Tag.Name.null.rawValue
        default: return false
        }
    }

    // MARK: - Helpers

    private func violation(_ node: Node, _ path: String, _ message: String) -> SchemaViolation {
        SchemaViolation(line: node.mark?.line, column: node.mark?.column, path: path, message: message)
    }

    /// Replaces a violation's message with the subschema's `errorMessage`, when it has one.
    private func custom(_ keywords: [String: JSONValue], _ problem: SchemaViolation) -> SchemaViolation {
        guard let message = keywords["errorMessage"]?.string else { return problem }
        var replaced = problem
        replaced.message = message
        return replaced
    }

    private func resolving(_ reference: String, context: Context,
                           _ body: (JSONValue, String) -> [SchemaViolation]) -> [SchemaViolation]? {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let document = parts[0].isEmpty ? context.document : parts[0]
        guard var target = schemas[document] else { return nil }
        if parts.count > 1, !parts[1].isEmpty {
            for component in parts[1].split(separator: "/") {
                guard let next = target[String(component)] else { return nil }
                target = next
            }
        }
        return body(target, document)
    }

    static func matches(_ text: String, pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }
}
