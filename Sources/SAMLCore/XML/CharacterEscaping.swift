import Foundation

enum CharacterEscaping {
    /// ASCII bytes an escaping leaves alone.
    struct PlainASCII: Sendable {
        /// Bit `b` of `low` (bytes 0–63) or of `high` (64–127) is set when byte `b` is plain.
        private let low: UInt64
        private let high: UInt64

        /// Printable ASCII (space to `~`) but `special`, plus `extra` (e.g. TAB and LF).
        init(printableExcept special: String, extra: [UInt8] = []) {
            var table = [Bool](repeating: false, count: 128)
            for byte in 0x20..<0x7F { table[byte] = true }
            for byte in special.utf8 { table[Int(byte)] = false }
            for byte in extra { table[Int(byte)] = true }
            var low: UInt64 = 0
            var high: UInt64 = 0
            for (byte, plain) in table.enumerated() where plain {
                if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
            }
            self.low = low
            self.high = high
        }

        /// Whether every byte of `value` is one of them (then escaping changes nothing). Over
        /// the contiguous UTF-8 storage with two bit masks: the auto-post form asks this of
        /// every login's kilobytes of base64 (issue 25's profile).
        func covers(_ value: String) -> Bool {
            var value = value
            return value.withUTF8 { bytes in
                for byte in bytes {
                    let bit: UInt64 = 1 << UInt64(byte & 63)
                    switch byte >> 6 {
                    case 0: if low & bit == 0 { return false }
                    case 1: if high & bit == 0 { return false }
                    default: return false
                    }
                }
                return true
            }
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
