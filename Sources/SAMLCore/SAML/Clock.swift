import Foundation

/// Where the current time comes from. Injected everywhere a timestamp is written or
/// checked, so a scenario replays byte for byte from its seed.
public protocol SAMLClock: Sendable {
    func now() -> Date
}

/// The system clock.
public struct SystemClock: SAMLClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock frozen at one instant (tests, golden fixtures, `verify-response --now`).
public struct FixedClock: SAMLClock {
    public let instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { instant }
}
