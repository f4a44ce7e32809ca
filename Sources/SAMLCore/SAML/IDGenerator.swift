import Foundation

/// Produces SAML `ID` values (xs:ID: an NCName, so it must not start with a digit).
/// Injected so the same seed gives the same messages.
public protocol IDGenerator: Sendable {
    /// A fresh identifier. Implementations are thread-safe.
    func next() -> String
}

/// Deterministic IDs from a seed: `_` followed by 32 hex digits from a SplitMix64 stream.
/// The same seed always yields the same sequence.
public final class SeededIDGenerator: IDGenerator, @unchecked Sendable {
    private var state: UInt64
    private let lock = NSLock()

    public init(seed: UInt64) {
        state = seed
    }

    public func next() -> String {
        lock.withLock {
            let a = Self.splitMix(&state)
            let b = Self.splitMix(&state)
            return "_" + Self.hex(a) + Self.hex(b)
        }
    }

    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func hex(_ value: UInt64) -> String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// Random IDs (128 bits from the system's generator), for `serve` without a seed.
public struct RandomIDGenerator: IDGenerator {
    public init() {}
    public func next() -> String {
        var g = SystemRandomNumberGenerator()
        return "_" + SeededIDGenerator.hex(g.next()) + SeededIDGenerator.hex(g.next())
    }
}
