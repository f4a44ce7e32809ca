import Foundation
import SAMLCore

/// What a recorded dynamic value looks like, so the replay can make a fresh one that a client
/// (or a server-side check of length and alphabet) cannot tell apart: a literal prefix
/// (`_`, `ST-`, `LT-1-`), then `length` characters of one alphabet.
///
/// ```swift
/// let shape = ValueShape.infer(from: "ST-1-abcdef0123456789")   // prefix "ST-1-", 16 hex
/// shape.generate(using: SeededIDGenerator(seed: 7))            // "ST-1-" + 16 fresh hex digits
/// ```
public struct ValueShape: Codable, Sendable, Equatable {
    public enum Alphabet: String, Codable, Sendable, CaseIterable {
        case digits
        case hexLower = "hex"
        case hexUpper = "HEX"
        case alphanumeric
        /// RFC 4648 §5 URL-safe base64 (`A–Z a–z 0–9 - _`).
        case base64URL = "base64url"
        /// RFC 4648 §4 base64 (`+ /`); padding is not generated.
        case base64

        var characters: [Character] {
            switch self {
            case .digits: Array("0123456789")
            case .hexLower: Array("0123456789abcdef")
            case .hexUpper: Array("0123456789ABCDEF")
            case .alphanumeric: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            case .base64URL: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            case .base64: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            }
        }
    }

    public var prefix: String
    public var length: Int
    public var alphabet: Alphabet
    /// Trailing `=` padding kept from the recorded value (base64).
    public var suffix: String?

    public init(prefix: String, length: Int, alphabet: Alphabet, suffix: String? = nil) {
        self.prefix = prefix
        self.length = length
        self.alphabet = alphabet
        self.suffix = suffix
    }

    /// The most generated characters a shape asks for.
    public static let maxLength = 4096

    /// The longest prefix kept (a longer one is data: the payload of a JWT, a user name).
    public static let maxPrefixLength = 16

    /// The shape of `value`: the prefix is everything up to the last `-`, `_`, `.` or `:`
    /// within the first 16 characters that leaves at least 8 characters after it (a SAML ID's
    /// leading `_` is a prefix too); the alphabet is the smallest that holds the rest, else
    /// letters and digits. The recorded value itself is never kept.
    public static func infer(from value: String) -> ValueShape {
        let characters = Array(value)
        var split = 0
        for (index, character) in characters.enumerated() where "-_.:".contains(character) && index < maxPrefixLength {
            let rest = characters.count - index - 1
            if rest >= 8 || (index == 0 && rest >= 1) { split = index + 1 }
        }
        var body = Array(characters[split...])
        var suffix: String?
        while let last = body.last, last == "=" {
            body.removeLast()
            suffix = (suffix ?? "") + "="
        }
        let prefix = String(characters[..<split])
        let alphabet = Alphabet.allCases.first { alphabet in
            let set = Set(alphabet.characters)
            return body.allSatisfy { set.contains($0) }
        }
        guard let alphabet else {
            return ValueShape(prefix: prefix, length: min(body.count, maxLength), alphabet: .alphanumeric)
        }
        return ValueShape(prefix: prefix, length: min(body.count, maxLength), alphabet: alphabet, suffix: suffix)
    }

    /// The shape "this text, then N digits" (`e1s2` → prefix `e1s`, 1 digit), or the value
    /// itself when it does not end in digits.
    public static func trailingDigits(of value: String) -> ValueShape {
        let digits = value.reversed().prefix { $0.isASCII && $0.isNumber }.count
        return ValueShape(prefix: String(value.dropLast(digits)), length: digits, alphabet: .digits)
    }

    /// A fresh value of this shape, its randomness taken from `ids` (a ``SeededIDGenerator``
    /// makes it repeat from the scenario's seed).
    public func generate(using ids: any IDGenerator) -> String {
        guard length > 0 else { return prefix + (suffix ?? "") }
        let characters = alphabet.characters
        var out = prefix
        var pool: [UInt8] = []
        while out.count < prefix.count + length {
            if pool.isEmpty { pool = Self.entropy(from: ids.next()) }
            let byte = pool.removeLast()
            // Rejection sampling keeps every character equally likely.
            let limit = 256 - 256 % characters.count
            guard Int(byte) < limit else { continue }
            out.append(characters[Int(byte) % characters.count])
        }
        if alphabet == .digits, length > 1, out.dropFirst(prefix.count).first == "0" {
            // A number does not start with 0 (a shorter value would be a different shape).
            out = prefix + "1" + out.dropFirst(prefix.count + 1)
        }
        return out + (suffix ?? "")
    }

    /// The bytes behind an ID of the form `_` + hex digits.
    static func entropy(from id: String) -> [UInt8] {
        let hex = Array(id.utf8.filter { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < hex.count {
            let high = hex[index] <= 0x39 ? hex[index] - 0x30 : hex[index] - 0x61 + 10
            let low = hex[index + 1] <= 0x39 ? hex[index + 1] - 0x30 : hex[index + 1] - 0x61 + 10
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes.isEmpty ? Array(id.utf8) : bytes
    }
}
