import Foundation
import MockServers

/// A slow or dead server makes the client give up within its own timeout and report a
/// timeout, before the runner has to stop it. RFC 9110 §9.3; client robustness.
struct TimeoutCleanCheck: Check {
    static let id = "flow.timeout-clean"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        // The limit the client was told (SAMLH_REQUEST_TIMEOUT: `client_timeout`, times the
        // run's --time-scale); a session by hand has only the parameter.
        let real = context.number("client_timeout", check: Self.id) ?? 10
        let limit = context.target.requestTimeout ?? real
        // What a client may take beyond it to give up and exit: 2 s at the real clock, scaled
        // with it, never under 0.5 s.
        let slack = max(0.5, 2 * limit / max(real, 0.001))
        let entries = MessageTraffic.clientEntries(context.entries)
        let stalls = entries.filter { entry in
            guard let response = entry.response else { return true }
            switch response.delivery {
            // An answer nobody delayed is slow only by the real clock: the mocks' own work
            // does not shrink with --time-scale.
            case .normal, .truncated, .reset: return entry.waitDuration > real
            case .delayed, .noAnswer: return true
            }
        }
        guard let stall = stalls.first else { return .notApplicable("no server was slow or silent in this run") }
        let held = Self.seconds(stall.response?.delivery) ?? stall.waitDuration
        // What happened, not what was configured: how long the client actually waited on
        // this request (until it ended), beside the hold the mock was set to.
        let end = context.execution.ended ?? entries.first.map { $0.started.addingTimeInterval(context.execution.seconds) }
        let waitedOnStall = end.map { max(0, $0.timeIntervalSince(stall.started)) }
        let observed: String
        if let waitedOnStall, waitedOnStall < held {
            observed = "the client waited \(Self.format(waitedOnStall)) s on this request and ended (the mock was set to hold it \(Self.format(held)) s)"
        } else {
            observed = "the mock held this request \(Self.format(held)) s before answering"
        }
        let evidence = [MessageTraffic.evidence(stall, observed)]
        if context.execution.timedOut || context.execution.stopped != nil {
            return .fail("the client never gave up on #\(stall.sequence); the runner stopped it"
                         + (context.execution.stopped.map { " (\($0))" } ?? " at the scenario's timeout"), evidence)
        }
        // When the client ended (without a recorded end: the first request plus the client's
        // run time, which counts its start-up too).
        if let end = context.execution.ended ?? entries.first.map({ $0.started.addingTimeInterval(context.execution.seconds) }) {
            let waited = end.timeIntervalSince(stall.started)
            if waited > limit * 1.5 + slack, held > limit {
                return .fail("the client waited about \(Self.format(waited)) s on #\(stall.sequence); it should give up within \(Self.format(limit)) s", evidence)
            }
        }
        if held > limit || stall.response == nil {
            if context.execution.claimsSuccess, context.truth.found(in: context.execution.report?.resource) == nil {
                return .fail("the client reported success though #\(stall.sequence) never answered in time", evidence)
            }
            if case .noAnswer(let close) = stall.response?.delivery, Self.seconds(.noAnswer(closeAfter: close)) ?? 0 < limit {
                return .pass("the connection of #\(stall.sequence) was closed before the client's timeout and the client stopped", evidence)
            }
            let text = context.execution.errorText.lowercased()
            guard text.contains("time") else {
                return .fail("the client gave up on #\(stall.sequence) but did not report a timeout",
                             evidence + [Evidence(detail: "the client's error", excerpt: MessageTraffic.shorten(context.execution.errorText))])
            }
            return .pass("the client gave up on #\(stall.sequence) within its timeout and reported it", evidence)
        }
        return .pass("the slow answer of #\(stall.sequence) (\(Self.format(held)) s) came within the client's \(Self.format(limit)) s", evidence)
    }

    static func seconds(_ delivery: MockResponse.Delivery?) -> Double? {
        switch delivery {
        case .delayed(let d)?, .noAnswer(let d)?:
            Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        default: nil
        }
    }

    static func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }
}

/// A 5xx page is reported as an error, and retried at most a bounded number of times.
/// RFC 9110 §15.6.
struct ServerErrorReportedCheck: Check {
    static let id = "flow.server-error-reported"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let limit = context.integer("max_requests", check: Self.id) ?? 3
        let entries = MessageTraffic.clientEntries(context.entries)
        guard let failure = entries.first(where: { ($0.response?.status ?? 0) >= 500 }) else {
            return .notApplicable("no server answered 5xx in this run")
        }
        let endpoint = { (e: TrafficEntry) in "\(e.request.method) \(MessageTraffic.destinationOrigin(e))\(e.request.path)" }
        let requests = entries.filter { endpoint($0) == endpoint(failure) }
        if requests.count > limit {
            return .fail("the client requested the failing \(endpoint(failure)) \(requests.count) times; at most \(limit) are allowed",
                         [MessageTraffic.evidence(failure, "first \(failure.response?.status ?? 0)"),
                          MessageTraffic.evidence(requests[requests.count - 1], "request \(requests.count)")])
        }
        if context.truth.found(in: context.execution.report?.resource) != nil {
            return .pass("the client got past the \(failure.response?.status ?? 0) of #\(failure.sequence) and obtained the resource")
        }
        if context.execution.claimsSuccess {
            return .fail("the client reported success after the \(failure.response?.status ?? 0) of #\(failure.sequence)",
                         [MessageTraffic.evidence(failure, "server error", excerpt: failure.response?.bodyText)])
        }
        return .pass("the client reported the \(failure.response?.status ?? 0) of #\(failure.sequence) as an error after \(requests.count) request(s)",
                     [MessageTraffic.evidence(failure, "server error")])
    }
}

/// After a `credentials-invalid` problem document the client logs in again once and redoes
/// the action. Library Simplified problem types; RFC 7807/9457.
struct ReauthOnCredentialsInvalidCheck: Check {
    static let id = "flow.reauth-on-credentials-invalid"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        guard let problem = entries.first(where: {
            $0.annotations["cm.problem"] == "credentials-invalid" || ($0.annotations["cm.problem-type"] ?? "").hasSuffix("credentials-invalid")
        }) else { return .notApplicable("no credentials-invalid problem was answered in this run") }
        let action = "\(problem.request.method) \(problem.request.path)"
        let later = entries.filter { $0.sequence > problem.sequence }
        let logins = later.filter { $0.annotations["cm.sso"] == "redirect" || $0.annotations["cm.accepted"] != nil && $0.annotations["cm.sso"] == nil }
        let starts = later.filter { $0.annotations["cm.sso"] == "redirect" }
        guard let login = logins.first else {
            return .fail("the client did not log in again after the credentials-invalid answer to \(action) in #\(problem.sequence)",
                         [MessageTraffic.evidence(problem, "credentials-invalid", excerpt: problem.response?.bodyText)])
        }
        // The redo counts whatever it is answered: a token that is refused again (a server
        // that only issues dead tokens) must end the run, not start another login.
        guard let redo = later.first(where: {
            $0.sequence > login.sequence && $0.request.method == problem.request.method && $0.request.path == problem.request.path
        }) else {
            return .fail("the client logged in again (#\(login.sequence)) but never redid \(action)",
                         [MessageTraffic.evidence(problem, "credentials-invalid"), MessageTraffic.evidence(login, "new login")])
        }
        let before = starts.filter { $0.sequence < redo.sequence }
        if before.count > 1 {
            return .fail("the client started \(before.count) logins before redoing \(action); once is enough",
                         before.map { MessageTraffic.evidence($0, "login start") })
        }
        let refusedAgain = redo.annotations["cm.problem"] == "credentials-invalid"
        if refusedAgain, starts.count > 1 {
            return .fail("the redo (#\(redo.sequence)) was refused again and the client logged in \(starts.count) times; once is enough",
                         starts.map { MessageTraffic.evidence($0, "login start") })
        }
        return .pass("logged in again (#\(login.sequence)) and redid \(action) (#\(redo.sequence))",
                     [MessageTraffic.evidence(problem, "credentials-invalid"), MessageTraffic.evidence(login, "new login"),
                      MessageTraffic.evidence(redo, "action redone")])
    }
}
