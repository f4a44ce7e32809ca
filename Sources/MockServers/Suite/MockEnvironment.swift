import Foundation
import Logging
import SAMLCore

/// What every mock of one suite shares and reads on each request: the current profile and
/// knobs (switchable at run time through the control API), the base URLs the listeners got,
/// the clock and the ID generator (injected, so a scenario is reproducible from its seed).
public final class MockEnvironment: Sendable {
    struct State {
        var profile: LoadedProfile
        var extraKnobs: [Knob] = []
        var knobsReplaced = false
        /// Whether the knobs or the profile were switched since the start (the control API).
        var changedAtRunTime = false
        var bases: [String: String] = [:]
        var explicitSPMetadata: [EntityDescriptor] = []
    }

    private let state: LockedValue<State>
    /// The mocks' clock: the injected one, which tests and the control API can move forward
    /// (``advanceClock(by:)``) to expire tickets and tokens without waiting.
    public let clock: OffsetClock
    public let ids: IDGenerator
    public let logger: Logger
    /// What the timed knobs' durations are multiplied by (`serve --time-scale`,
    /// ``Knob/scaled(by:)``): the profile's, a scenario's and those set at run time alike.
    public let timeScale: Double

    public init(profile: LoadedProfile, clock: SAMLClock = SystemClock(), ids: IDGenerator = RandomIDGenerator(),
                spMetadata: [EntityDescriptor] = [], timeScale: Double = 1, logger: Logger = Logger(label: "samlharness.mocks")) {
        var state = State(profile: profile)
        state.explicitSPMetadata = spMetadata
        self.state = LockedValue(state)
        self.clock = OffsetClock(clock)
        self.ids = ids
        self.timeScale = timeScale
        self.logger = logger
    }

    /// An environment that runs reproducibly: IDs from a ``SeededIDGenerator`` seeded with
    /// `seed`, the clock from ``clock(start:frozen:)`` (a scenario's `seed` and
    /// `clock: {start, frozen}`).
    public convenience init(profile: LoadedProfile, seed: UInt64, clockStart: Date? = nil, frozen: Bool = true,
                            spMetadata: [EntityDescriptor] = [], logger: Logger = Logger(label: "samlharness.mocks")) {
        self.init(profile: profile, clock: Self.clock(start: clockStart, frozen: frozen), ids: SeededIDGenerator(seed: seed),
                  spMetadata: spMetadata, logger: logger)
    }

    /// The clock a scenario's `clock: {start, frozen}` asks for:
    /// - frozen: always `start` (the current time, to the second, when `start` is nil) —
    ///   what byte-for-byte reproducibility needs;
    /// - running from `start`: the system clock moved so that it reads `start` now;
    /// - running, no `start`: the system clock.
    ///
    /// The control API's `POST /clock` still moves a frozen clock (``advanceClock(by:)``).
    /// `now` is the current time (a parameter so tests can fix it).
    public static func clock(start: Date?, frozen: Bool, now: Date = Date()) -> any SAMLClock {
        switch (start, frozen) {
        case (let start, true): FixedClock(start ?? SAMLDateTime.truncated(now))
        case (let start?, false): OffsetClock(SystemClock(), offset: start.timeIntervalSince(now))
        case (nil, false): SystemClock()
        }
    }

    public var profile: LoadedProfile { state.withLock { $0.profile } }

    /// Moves the mocks' clock by `seconds` (tickets, tokens, assertions all see it).
    public func advanceClock(by seconds: TimeInterval) {
        clock.advance(by: seconds)
    }

    /// Replaces the profile (its knobs with it; knobs set at run time are cleared).
    public func switchProfile(_ profile: LoadedProfile) {
        state.withLock {
            $0.profile = profile
            $0.extraKnobs = []
            $0.knobsReplaced = false
            $0.changedAtRunTime = true
        }
    }

    /// The knobs in force: the profile's, plus or replaced by those set at run time, at
    /// ``timeScale``.
    public var knobs: [Knob] {
        let knobs = state.withLock { $0.knobsReplaced ? $0.extraKnobs : $0.profile.knobs + $0.extraKnobs }
        return timeScale == 1 ? knobs : knobs.map { $0.scaled(by: timeScale) }
    }

    /// Sets the run-time knobs. `replacing`: the profile's own knobs are switched off too.
    public func setKnobs(_ knobs: [Knob], replacing: Bool = false) {
        state.withLock {
            $0.extraKnobs = knobs
            $0.knobsReplaced = replacing
            $0.changedAtRunTime = true
        }
    }

    /// Whether the knobs or the profile were switched since the mocks started (`serve`'s
    /// verdicts then say that the scenario's expectation was written for other mocks).
    public var changedAtRunTime: Bool { state.withLock { $0.changedAtRunTime } }

    /// How an entry endpoint (the IdP's SSO and ECP, CAS login, AD FS) delivers its answer
    /// under the `slow`, `no-answer`, `truncated-body` and `connection-reset` knobs.
    public var faultDelivery: MockResponse.Delivery {
        for knob in knobs {
            switch knob {
            case .slow(let seconds): return .delayed(.milliseconds(Int(seconds * 1000)))
            case .noAnswer(let seconds): return .noAnswer(closeAfter: .milliseconds(Int(seconds * 1000)))
            case .truncatedBody: return .truncated
            case .connectionReset: return .reset
            default: continue
            }
        }
        return .normal
    }

    /// Whether the fault knob in force cuts an answer's body (`truncated-body`,
    /// `connection-reset`) rather than delaying or withholding it.
    public var faultCutsBody: Bool {
        switch faultDelivery {
        case .truncated, .reset: true
        default: false
        }
    }

    /// ``faultDelivery`` for `answer`, except that a body-cutting fault spares a redirect: a
    /// browser never reads a 3xx's body and follows its `Location`, so cutting the body of
    /// the 302 in front of a login page tests nothing a browser meets. The page the redirect
    /// leads to is cut instead (its handler asks ``faultCutsBody``).
    public func faultDelivery(for answer: MockResponse) -> MockResponse.Delivery {
        if faultCutsBody, (300..<400).contains(answer.status) { return .normal }
        return faultDelivery
    }

    /// Records the base URL a mock listens on (`idp`, `sp`…).
    public func setBaseURL(_ url: String, for mock: String) {
        state.withLock { $0.bases[mock] = url }
    }

    public func baseURL(of mock: String) -> String {
        state.withLock { $0.bases[mock] } ?? "http://127.0.0.1"
    }

    /// Every base URL recorded so far, by listener name (``setBaseURL(_:for:)``): what the
    /// suite is bound to, e.g. for the mock CAS to tell its own listeners' pgtUrls apart.
    public var baseURLs: [String: String] { state.withLock { $0.bases } }

    /// SP metadata given on the command line (`serve --sp-metadata`) or by a scenario.
    public var explicitSPMetadata: [EntityDescriptor] {
        state.withLock { $0.explicitSPMetadata + $0.profile.spMetadata }
    }

    public func addSPMetadata(_ descriptors: [EntityDescriptor]) {
        state.withLock { $0.explicitSPMetadata += descriptors }
    }

    public var idpEntityID: String { expand(profile.profile.idp.entityID, base: baseURL(of: "idp")) }
    public var spEntityID: String { expand(profile.profile.sp.entityID, base: baseURL(of: "sp")) }

    /// `template` with `{base}` replaced (read on every SSO request: the standard library's
    /// `replacing`, not Foundation's UTF-16 bridging, and nothing at all without a `{`).
    func expand(_ template: String, base: String) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        return template.replacing("{base}", with: base)
    }
}
