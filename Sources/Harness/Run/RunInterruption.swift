import Foundation
import SAMLCore

/// A run being stopped from outside (SIGINT, SIGTERM): no scenario starts after it, and the
/// clients still running are stopped — their whole process groups — as if they had run out of
/// time, so their scenarios end as `error` with the reason and every finished result is kept.
///
/// ```swift
/// let interruption = RunInterruption()
/// let results = await RunEngine(jobs: 2).run(scenarios, client: client, runner: runner,
///                                            interruption: interruption) { _ in }
/// // elsewhere: interruption.interrupt("SIGINT")
/// ```
public final class RunInterruption: Sendable {
    private let state = LockedValue<String?>(nil)

    public init() {}

    /// Stops the run; `reason` (e.g. `SIGINT`) goes into the stopped scenarios' reasons. The
    /// first reason wins.
    public func interrupt(_ reason: String) {
        state.withLock { if $0 == nil { $0 = reason } }
    }

    /// Why the run was interrupted, or nil while it runs on.
    public var reason: String? { state.withLock { $0 } }
}
