import Foundation
import SAMLCore

/// The hostile-input corpus kept as data under `Tests/Hostile/` (see its README.md): one JSON
/// file per group of cases, a shared table of named payloads, and the small recipe language
/// their inputs are written in, so a 50 MB body is a line of JSON generated at test time.
enum HostileCorpus {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Hostile")

    struct LoadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What a case must show, beyond the rules every case shares (no crash, no hang, no
    /// injected header, the server still serving).
    struct Expectation: Sendable {
        /// HTTP status range (HTTP cases).
        var status: ClosedRange<Int>?
        /// Allowed exit codes (CLI cases).
        var exit: [Int32]?
        /// Substrings that must all appear in the answer (body, output or error), compared
        /// case-insensitively: what names the problem.
        var errors: [String]
        /// Substrings that must not appear (leaked files, unescaped markup).
        var absent: [String]
        /// Most seconds the answer may take.
        var maxSeconds: Double
        /// Scenario cases: the file is expected to load (a benign control case).
        var accept: Bool
    }

    struct Case {
        let id: String
        let kind: String
        let target: String
        /// The delivery: a request (HTTP), arguments (CLI) or loader options (scenario).
        let delivery: [String: Any]
        let input: Any?
        let expect: Expectation
    }

    struct Group {
        let name: String
        let file: String
        let runner: String
        let profile: String
        let probes: [[String: Any]]
        let cases: [Case]
    }

    static var groupFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "payloads.json" }.sorted()
    }

    static func payloads() throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("payloads.json"))
        guard let table = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LoadError("payloads.json is not a JSON object")
        }
        return table.filter { !$0.key.hasPrefix("_") }
    }

    static func group(_ file: String) throws -> Group {
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LoadError("\(file) is not a JSON object")
        }
        let deliveries = root["deliveries"] as? [String: Any] ?? [:]
        var cases: [Case] = []
        for (index, item) in (root["cases"] as? [Any] ?? []).enumerated() {
            guard let object = item as? [String: Any], let id = object["id"] as? String,
                  let kind = object["kind"] as? String, let target = object["target"] as? String else {
                throw LoadError("\(file): cases[\(index)] needs id, kind and target")
            }
            let delivery: [String: Any]
            if let name = object["deliver"] as? String {
                guard let named = deliveries[name] as? [String: Any] else {
                    throw LoadError("\(file): \(id) names delivery `\(name)`, which the group does not define")
                }
                delivery = named
            } else if let inline = object["deliver"] as? [String: Any] {
                delivery = inline
            } else {
                throw LoadError("\(file): \(id) has no `deliver`")
            }
            cases.append(Case(id: id, kind: kind, target: target, delivery: delivery, input: object["input"],
                              expect: try expectation(object["expect"], id: id, file: file)))
        }
        return Group(name: root["group"] as? String ?? file, file: file, runner: root["runner"] as? String ?? "http",
                     profile: root["profile"] as? String ?? "shibboleth",
                     probes: root["probes"] as? [[String: Any]] ?? [], cases: cases)
    }

    /// The per-case hang detector: 5 s, more than 5× the slowest case on a quiet machine
    /// (0.70 s, `idp.sso-post.huge-text-3mb`; issue 18). A bound close to the quiet figure
    /// failed on a busy machine for nothing; how fast the cases are is measured, not asserted.
    static let defaultMaxSeconds = 5.0

    static func expectation(_ value: Any?, id: String, file: String) throws -> Expectation {
        guard let object = value as? [String: Any] else { throw LoadError("\(file): \(id) has no `expect`") }
        var status: ClosedRange<Int>?
        if let range = object["status"] as? [Int], range.count == 2, range[0] <= range[1] { status = range[0]...range[1] }
        if let single = object["status"] as? Int { status = single...single }
        let exit = (object["exit"] as? [Int]).map { $0.map(Int32.init) } ?? (object["exit"] as? Int).map { [Int32($0)] }
        let errors = object["error"] as? [String] ?? (object["error"] as? String).map { [$0] } ?? []
        let accept = object["accept"] as? Bool ?? false
        guard status != nil || exit != nil || accept || !errors.isEmpty else {
            throw LoadError("\(file): \(id) expects nothing (give status, exit or error)")
        }
        return Expectation(status: status, exit: exit, errors: errors, absent: object["absent"] as? [String] ?? [],
                           maxSeconds: object["max_seconds"] as? Double ?? Self.defaultMaxSeconds, accept: accept)
    }
}

/// Evaluates byte recipes (Tests/Hostile/README.md, "Inputs").
struct HostileRecipes {
    let payloads: [String: Any]
    /// `${name}` substitutions in strings: mock base URLs, entity IDs, the repository path.
    let variables: [String: String]
    /// What `"$input"` stands for in a delivery.
    let input: Any?

    func bytes(_ recipe: Any?, depth: Int = 0) throws -> [UInt8] {
        guard depth < 64 else { throw HostileCorpus.LoadError("recipe nests deeper than 64") }
        switch recipe {
        case nil:
            return []
        case let text as String:
            if text == "$input" { return try bytes(input, depth: depth + 1) }
            return Array(substitute(text).utf8)
        case let list as [Any]:
            return try list.flatMap { try bytes($0, depth: depth + 1) }
        case let object as [String: Any]:
            return try evaluate(object, depth: depth + 1)
        case let number as NSNumber:
            return Array(number.stringValue.utf8)
        default:
            throw HostileCorpus.LoadError("cannot read recipe \(String(describing: recipe))")
        }
    }

    func substitute(_ text: String) -> String {
        guard text.contains("${") else { return text }
        var result = text
        for (name, value) in variables { result = result.replacingOccurrences(of: "${\(name)}", with: value) }
        return result
    }

    private func evaluate(_ object: [String: Any], depth: Int) throws -> [UInt8] {
        if let name = object["ref"] as? String {
            guard let payload = payloads[name] else { throw HostileCorpus.LoadError("no payload named \(name)") }
            return try bytes(payload, depth: depth)
        }
        if let path = object["file"] as? String {
            return Array(try Data(contentsOf: HostileCorpus.directory.appendingPathComponent(path)))
        }
        if let hex = object["hex"] as? String { return Self.hexBytes(hex) }
        if let unit = object["repeat"] {
            let count = object["count"] as? Int ?? 1
            return Self.repeated(try bytes(unit, depth: depth), count: count)
        }
        if let parts = object["concat"] as? [Any] { return try bytes(parts, depth: depth) }
        if let inner = object["base64"] { return Array(Data(try bytes(inner, depth: depth)).base64EncodedString().utf8) }
        if let inner = object["deflate"] { return try RawDeflate.compress(try bytes(inner, depth: depth)) }
        if let inner = object["zlib"] { return try RawDeflate.compress(try bytes(inner, depth: depth), framing: .zlib) }
        if let inner = object["url"] { return Self.percentEncoded(try bytes(inner, depth: depth), spaceAsPlus: false) }
        if let inner = object["truncate"] {
            return Array(try bytes(inner, depth: depth).prefix(object["to"] as? Int ?? 0))
        }
        if let pairs = object["form"] as? [[Any]] {
            return Array(try pairs.map { pair -> [UInt8] in
                let name = Self.percentEncoded(try bytes(pair.first, depth: depth), spaceAsPlus: true)
                let value = Self.percentEncoded(try bytes(pair.count > 1 ? pair[1] : nil, depth: depth), spaceAsPlus: true)
                return name + [UInt8(ascii: "=")] + value
            }.joined(separator: [UInt8(ascii: "&")]))
        }
        throw HostileCorpus.LoadError("unknown recipe \(object.keys.sorted())")
    }

    /// `unit` `count` times, by doubling (a 50 MB body in a few copies, not 50 million appends).
    static func repeated(_ unit: [UInt8], count: Int) -> [UInt8] {
        guard count > 0, !unit.isEmpty else { return [] }
        if unit.count == 1 { return [UInt8](repeating: unit[0], count: count) }
        let total = unit.count * count
        var out = unit
        out.reserveCapacity(total)
        while out.count * 2 <= total { out.append(contentsOf: out) }
        out.append(contentsOf: out.prefix(total - out.count))
        return out
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8).filter { $0 != UInt8(ascii: " ") }
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }

    /// WHATWG form-urlencoded (`spaceAsPlus`) or RFC 3986 query-component encoding of bytes
    /// (any bytes: invalid UTF-8 is encoded as it is).
    static func percentEncoded(_ bytes: [UInt8], spaceAsPlus: Bool) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "*"):
                out.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return out
    }
}
