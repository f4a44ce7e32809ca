import Foundation

enum CharacterEscaping {
    /// ASCII bytes an escaping leaves alone.
    struct PlainASCII: Sendable {
        private let table: [Bool]

        /// Printable ASCII (space to `~`) but `special`, plus `extra` (e.g. TAB and LF).
        init(printableExcept special: String, extra: [UInt8] = []) {
            var table = [Bool](repeating: false, count: 128)
            for byte in 0x20..<0x7F { table[byte] = true }
            for byte in special.utf8 { table[Int(byte)] = false }
            for byte in extra { table[Int(byte)] = true }
            self.table = table
        }

        /// Whether every byte of `value` is one of them (then escaping changes nothing).
        func covers(_ value: String) -> Bool {
            value.utf8.allSatisfy { $0 < 0x80 && table[Int($0)] }
        }
    }

    /// `value` with each scalar `replacement` maps to a string replaced. A value made only of
    /// `plain` bytes (a base64 SAMLResponse, an ID, a URL) is returned as it is, without
    /// rebuilding it scalar by scalar: the auto-post form of every login escapes kilobytes of
    /// base64.
    static func escape(_ value: String, plain: PlainASCII, _ replacement: (Unicode.Scalar) -> String?) -> String {
        if plain.covers(value) { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            if let r = replacement(scalar) {
                out += r
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
