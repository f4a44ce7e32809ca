import Foundation
import SAMLCore

/// The control API, on its own loopback port, for people testing a device or simulator by
/// hand: read the state, switch knobs or the profile at run time, tag and export the traffic
/// log, reset. It listens on loopback only (``MockSuite`` binds it there whatever `--host`
/// says), refuses requests from other than loopback, and guards against browsers and the
/// network with the session's ``SessionGuard``: the token whenever a mock is reachable from
/// beyond loopback, `Host` and `Origin` checks, state changes as JSON only.
///
/// | request | what |
/// |---|---|
/// | `GET /state` | profile, knobs, known profiles, sessions, traffic count |
/// | `GET /health` | `{"status": "ok"}`, without the token (a container's health probe) |
/// | `PUT /knobs` | body `{"knobs": ["wrong-audience"], "replace": false}` |
/// | `DELETE /knobs` | run-time knobs off (the profile's stay) |
/// | `PUT /profile` | body `{"profile": "shibboleth-basic"}` |
/// | `PUT /run` | body `{"run": "NAME"}`: tag the next exchanges |
/// | `GET /traffic.har` | the traffic log as HAR 1.2 (`?run=NAME` for one run) |
/// | `POST /clock` | body `{"advance": 3600}`: move the mocks' clock (expire tickets, tokens) |
/// | `POST /reset` | forget sessions, flows, lockouts and the traffic log |
public struct ControlAPI: MockHandler {
    public let name = "control"
    let environment: MockEnvironment
    let idp: MockIdP
    let sp: MockSP
    let log: TrafficLog
    let mockIdPDirectory: URL?
    /// Forget the state of the other mocks (CAS tickets, AD FS sessions, bearer tokens).
    let resetOthers: @Sendable () -> Void
    /// The session's token and request checks.
    public let sessionGuard: SessionGuard

    struct KnobsBody: Codable { var knobs: [String]; var replace: Bool? }
    struct ProfileBody: Codable { var profile: String }
    struct RunBody: Codable { var run: String? }
    struct ClockBody: Codable { var advance: Double }
    struct Problem: Codable { var error: String }

    struct State: Codable {
        var profile: String
        var personality: String
        var knobs: [String]
        var profiles: [String]
        var knobCatalog: [String: String]
        var spSessions: Int
        var trafficEntries: Int
        /// Entries the log has dropped, oldest first, to stay within its bounds.
        var trafficDropped: Int
        var run: String?
        /// The mocks' time (ISO 8601) and how far it was moved from the real clock.
        var now: String
        var clockOffset: Double
    }

    public func handle(_ request: MockRequest) async -> MockResponse {
        guard Self.isLoopback(request.remoteAddress) else {
            return .json(Problem(error: "the control API answers loopback clients only"), status: 403)
                .annotated("control.refused", "not-loopback")
        }
        if let refusal = sessionGuard.checkRequest(method: request.method, header: request.header) {
            return .json(Problem(error: refusal.message), status: refusal.status).annotated("control.refused", "request-check")
        }
        if request.method == "GET", request.path == "/health" {
            // The container's health probe: says nothing but that the mocks are up.
            return .json(["status": "ok"])
        }
        if sessionGuard.tokenRequired,
           !sessionGuard.isToken(SessionGuard.presentedToken(header: request.header, query: request.rawQuery)) {
            var response = MockResponse.json(Problem(error: "the mocks are reachable from the network, so the control API needs "
                + "the session's token (the ready line's control.token) as Authorization: Bearer TOKEN or ?token=TOKEN"), status: 401)
            response.addHeader("WWW-Authenticate", "Bearer realm=\"samlharness control\"")
            return response.annotated("control.refused", "token")
        }
        return await handleAuthenticated(request)
    }

    /// A request the caller has already checked (the live console, which holds the token):
    /// no loopback, token, `Host` or `Origin` check.
    public func handleAuthenticated(_ request: MockRequest) async -> MockResponse {
        switch (request.method, request.path) {
        case ("GET", "/state"), ("GET", "/"):
            return .json(state())
        case ("PUT", "/knobs"), ("POST", "/knobs"):
            guard let body = decode(KnobsBody.self, request) else {
                return .json(Problem(error: "expected a JSON body {\"knobs\": [\"name\" or \"name=value\", …], \"replace\": false}"), status: 400)
            }
            do {
                let knobs = try body.knobs.map(Knob.init(parsing:))
                if let listenerKnob = knobs.first(where: \.choosesListeners) {
                    return .json(Problem(error: "knob `\(listenerKnob.text)` chooses which mocks listen on https and with which "
                        + "certificate, when the mocks start: pass it to `samlharness serve --knob` (or a scenario's knobs)"), status: 409)
                }
                environment.setKnobs(knobs, replacing: body.replace ?? false)
            } catch {
                return .json(Problem(error: "\(error)"), status: 400)
            }
            return .json(state())
        case ("DELETE", "/knobs"):
            environment.setKnobs([])
            return .json(state())
        case ("PUT", "/profile"), ("POST", "/profile"):
            guard let body = decode(ProfileBody.self, request) else {
                return .json(Problem(error: "expected a JSON body {\"profile\": \"NAME\"}"), status: 400)
            }
            guard let mockIdPDirectory else {
                return .json(Problem(error: "no MockIdP/ directory is known to load profiles from"), status: 409)
            }
            do {
                environment.switchProfile(try LoadedProfile.load(named: body.profile, from: mockIdPDirectory))
                resetAll()
            } catch {
                return .json(Problem(error: "\(error)"), status: 400)
            }
            return .json(state())
        case ("PUT", "/run"), ("POST", "/run"):
            guard let body = decode(RunBody.self, request) else {
                return .json(Problem(error: "expected a JSON body {\"run\": \"NAME\"} (null to stop tagging)"), status: 400)
            }
            log.currentRun = body.run
            return .json(state())
        case ("GET", "/traffic.har"):
            let run = request.queryValue("run")
            guard let data = try? log.harJSON(run: run) else {
                return .json(Problem(error: "the traffic log could not be encoded"), status: 500)
            }
            var response = MockResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(data))
            response.annotations["control.har-entries"] = String(log.entries.count)
            return response
        case ("POST", "/clock"), ("PUT", "/clock"):
            guard let body = decode(ClockBody.self, request), body.advance.isFinite, abs(body.advance) <= 10 * 366 * 86400 else {
                return .json(Problem(error: "expected a JSON body {\"advance\": SECONDS} (negative moves back; at most ten years)"), status: 400)
            }
            environment.advanceClock(by: body.advance)
            return .json(state()).annotated("control.clock-advanced", String(body.advance))
        case ("POST", "/reset"):
            resetAll()
            log.removeAll()
            return .json(state())
        case (_, "/state"), (_, "/knobs"), (_, "/profile"), (_, "/run"), (_, "/traffic.har"), (_, "/reset"), (_, "/clock"):
            return .json(Problem(error: "\(request.method) is not allowed on \(request.path)"), status: 405)
        default:
            return .json(Problem(error: "no control endpoint \(request.path); see GET /state"), status: 404)
        }
    }

    func resetAll() {
        idp.reset()
        sp.reset()
        resetOthers()
    }

    func decode<T: Decodable>(_ type: T.Type, _ request: MockRequest) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(request.body))
    }

    func state() -> State {
        var catalog: [String: String] = [:]
        for knob in Knob.examples { catalog[knob.text.split(separator: "=").first.map(String.init) ?? knob.text] = knob.summary }
        return State(profile: environment.profile.name, personality: environment.profile.profile.personality.rawValue,
                     knobs: environment.knobs.map(\.text),
                     profiles: mockIdPDirectory.map(MockIdPDirectory.profileNames(in:)) ?? [],
                     knobCatalog: catalog, spSessions: sp.sessionCount, trafficEntries: log.entries.count,
                     trafficDropped: log.dropped, run: log.currentRun, now: SAMLDateTime.string(from: environment.clock.now()),
                     clockOffset: environment.clock.currentOffset)
    }

    static func isLoopback(_ address: String?) -> Bool {
        guard let address else { return true }  // in-process requests carry none
        return address == "::1" || address.hasPrefix("127.") || address == "localhost" || address.hasPrefix("::ffff:127.")
    }
}
