/// Decoding helpers that refuse keys a type does not know, so a misspelt setting in a
/// profile (`second_factr: true`) is an error naming the key and where it is, never
/// silently ignored.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; self.intValue = nil }
    init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

extension Decoder {
    /// Throws when the mapping being decoded has a key outside `known`.
    func rejectUnknownKeys<Key: CodingKey & CaseIterable>(_ known: Key.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let names = Set(Key.allCases.map(\.stringValue))
        for key in container.allKeys where !names.contains(key.stringValue) {
            let expected = Key.allCases.map(\.stringValue).sorted().joined(separator: ", ")
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath + [key],
                debugDescription: "unknown key `\(key.stringValue)`; expected one of: \(expected)"))
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes the key when present, keeping `current` otherwise.
    func value<T: Decodable>(_ key: Key, or current: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? current
    }
}
