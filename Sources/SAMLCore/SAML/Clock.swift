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

/// Another clock moved forward (or back) by an offset that can change while it runs: the
/// mocks read it, so a test or a scenario can let a token or a ticket expire without
/// waiting (`advance(by:)`).
public final class OffsetClock: SAMLClock {
    private let base: any SAMLClock
    private let offset: LockedValue<TimeInterval>

    public init(_ base: any SAMLClock = SystemClock(), offset: TimeInterval = 0) {
        self.base = base
        self.offset = LockedValue(offset)
    }

    public func now() -> Date { base.now().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock by `seconds` (negative: back).
    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }

    /// How far the clock is from its base.
    public var currentOffset: TimeInterval { offset.withLock { $0 } }
}
