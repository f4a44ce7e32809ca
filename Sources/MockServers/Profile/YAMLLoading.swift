import Foundation
import Yams

/// A configuration file (profile, scenario…) that could not be read: the file, the line
/// (1-based, when known) and what was expected.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    public let file: String
    public let line: Int?
    public let message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}

/// Decodes YAML into a `Decodable`, turning every failure into a ``ConfigurationError``
/// that names the file, the line and the setting. Documents are size-limited and aliases are
/// refused, so a hostile file cannot blow up (YAML's billion laughs works through aliases).
public enum YAMLLoading {
    public static let maxBytes = 4 * 1024 * 1024

    public static func decode<T: Decodable>(_ type: T.Type, from text: String, file: String) throws -> T {
        guard text.utf8.count <= maxBytes else {
            throw ConfigurationError(file: file, line: nil, message: "the file is \(text.utf8.count) bytes; at most \(maxBytes) are read")
        }
        let node: Node
        do {
            guard let composed = try Yams.compose(yaml: text) else {
                throw ConfigurationError(file: file, line: 1, message: "the file is empty; expected a YAML mapping")
            }
            node = composed
        } catch let error as YamlError {
            throw configurationError(error, file: file)
        }
        if let alias = firstAlias(in: text) {
            throw ConfigurationError(file: file, line: alias, message: "YAML aliases (*name) are not accepted; write the value out")
        }
        do {
            return try YAMLDecoder().decode(T.self, from: node)
        } catch let error as DecodingError {
            throw configurationError(error, root: node, file: file)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: file, line: nil, message: "\(error)")
        }
    }

    static func configurationError(_ error: YamlError, file: String) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return ConfigurationError(file: file, line: mark.line,
                                      message: "not valid YAML: \(problem)\(context.map { " \($0.text)" } ?? "")")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigurationError(file: file, line: context.mark.line,
                                      message: "duplicate key\(duplicates.count > 1 ? "s" : "") \(duplicates.joined(separator: ", "))")
        default:
            return ConfigurationError(file: file, line: nil, message: "not valid YAML: \(error)")
        }
    }

    static func configurationError(_ error: DecodingError, root: Node, file: String) -> ConfigurationError {
        let (path, message): ([any CodingKey], String) = switch error {
        case .typeMismatch(let type, let context):
            (context.codingPath, "expected \(describe(type))\(context.debugDescription.isEmpty ? "" : " (\(context.debugDescription))")")
        case .valueNotFound(let type, let context):
            (context.codingPath, "expected \(describe(type)), found nothing")
        case .keyNotFound(let key, let context):
            (context.codingPath, "the required key `\(key.stringValue)` is missing")
        case .dataCorrupted(let context):
            (context.codingPath, context.debugDescription)
        @unknown default:
            ([], "\(error)")
        }
        let dotted = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
        let line = locate(path, in: root)
        return ConfigurationError(file: file, line: line, message: dotted.isEmpty ? message : "`\(dotted)`: \(message)")
    }

    /// The line of the deepest node on `path` that exists.
    static func locate(_ path: [any CodingKey], in root: Node) -> Int? {
        var node = root
        var line = root.mark?.line
        for key in path {
            let next: Node? = if let index = key.intValue, case .sequence(let sequence) = node, index < sequence.count {
                sequence[index]
            } else {
                node[key.stringValue]
            }
            guard let next else { break }
            node = next
            line = next.mark?.line ?? line
        }
        return line
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "\(type)".replacingOccurrences(of: "Swift.", with: "")
        }
    }

    /// The line of the first alias (`*name` as a value), if any.
    static func firstAlias(in text: String) -> Int? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "-" }
            if let colon = trimmed.firstIndex(of: ":") {
                let value = trimmed[trimmed.index(after: colon)...].drop { $0 == " " }
                if value.hasPrefix("*") { return index + 1 }
            } else if trimmed.hasPrefix("*") {
                return index + 1
            }
        }
        return nil
    }
}
