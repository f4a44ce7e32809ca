import Foundation
import Harness
import MockServers
import NIOCore
import NIOHTTP1
import SAMLCore

/// Complete logins per second at a fixed number of client connections: `concurrency`
/// virtual users, each logging in again as soon as its last login ended, for `seconds`
/// (after `warmUp` logins per user that are not counted). Latency percentiles over every
/// counted login.
struct LoginThroughput: Codable, Sendable {
    var flow: String
    var target: String
    var concurrency: Int
    var logins: Int
    var failed: Int
    var seconds: Double
    var loginsPerSecond: Double
    var p50Milliseconds: Double
    var p99Milliseconds: Double
    /// The part of each login spent waiting on the IdP's answers (its requests' latencies as
    /// the client saw them, connection included), median over the counted logins; nil when
    /// the driver does not tell the IdP apart.
    var idpP50Milliseconds: Double?
    var firstError: String?

    /// One login's latency, and the part of it spent on the IdP's requests when known.
    struct Timing: Sendable {
        var seconds: Double
        var idpSeconds: Double?

        init(_ seconds: Double, idp: Double? = nil) {
            self.seconds = seconds
            idpSeconds = idp
        }
    }

    /// One login (thrown errors count as failures).
    typealias Login = @Sendable (_ user: Int) async throws -> Timing

    static func measure(flow: String, target: String, concurrency: Int, seconds: Double, warmUp: Int = 2,
                        login: @escaping Login) async -> LoginThroughput {
        struct Worker: Sendable {
            var latencies: [Double] = []
            var idp: [Double] = []
            var failed = 0
            var firstError: String?
        }
        for user in 0..<concurrency {
            for _ in 0..<warmUp { _ = try? await login(user) }
        }
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(seconds * 1000))
        let workers = await withTaskGroup(of: Worker.self, returning: [Worker].self) { group in
            for user in 0..<concurrency {
                group.addTask {
                    var worker = Worker()
                    // Bounded: a login that keeps failing fast must not spin forever.
                    while ContinuousClock.now < deadline, worker.failed < 1000 {
                        do {
                            let timing = try await login(user)
                            worker.latencies.append(timing.seconds)
                            if let idp = timing.idpSeconds { worker.idp.append(idp) }
                        } catch {
                            worker.failed += 1
                            if worker.firstError == nil { worker.firstError = "\(error)" }
                        }
                    }
                    return worker
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let wall = BenchProcess.seconds(ContinuousClock.now - started)
        let latencies = workers.flatMap(\.latencies).sorted()
        let idp = workers.flatMap(\.idp).sorted()
        return LoginThroughput(
            flow: flow, target: target, concurrency: concurrency, logins: latencies.count,
            failed: workers.map(\.failed).reduce(0, +), seconds: BenchFormat.round(wall, 3),
            loginsPerSecond: BenchFormat.round(Double(latencies.count) / wall, 1),
            p50Milliseconds: BenchFormat.round(percentile(0.50, latencies) * 1000, 2),
            p99Milliseconds: BenchFormat.round(percentile(0.99, latencies) * 1000, 2),
            idpP50Milliseconds: idp.isEmpty ? nil : BenchFormat.round(percentile(0.50, idp) * 1000, 3),
            firstError: workers.compactMap(\.firstError).first)
    }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ p: Double, _ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }

    /// The HTTP client of the login measurements: `load`'s (keep-alive connections pooled per
    /// origin, as many as requests in flight; redirects not followed: the drivers follow them,
    /// as a browser does, to count and time every hop).
    static func makeClient() -> LoadHTTPClient {
        LoadHTTPClient(readTimeout: .seconds(30))
    }
}

/// Browser-like Web SSO through any SAML SP and IdP with a form login: follows redirects,
/// fills the first form that has a password field (its text field gets the username), sends
/// hidden fields back as they are with the form's submit button, auto-posts the IdP's
/// Response form, and ends on the SP page that holds the session's secret. The same client
/// drives the mock IdP and the peer (SimpleSAMLphp) in the comparison, so neither gets a
/// shortcut the other does not.
struct BenchWebSSOClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let client: LoadHTTPClient
    let secureURL: String
    let user: TestUser

    /// One login with a fresh cookie jar: its latency, and the part spent on requests to any
    /// origin but the SP's (the IdP's pages, its login POST, its redirects).
    func login() async throws -> LoginThroughput.Timing {
        let started = ContinuousClock.now
        let session = LoadDriver.Session(client: client)
        let spOrigin = AttackBrowser.origin(of: secureURL)
        var idp = Duration.zero
        func send(_ method: HTTPMethod, _ url: String, body: String? = nil) async throws -> (Int, [(String, String)], String) {
            let sent = ContinuousClock.now
            let answer = try await session.send(method, url, body: body)
            if AttackBrowser.origin(of: url) != spOrigin { idp += ContinuousClock.now - sent }
            return answer
        }
        var url = secureURL
        var (status, headers, body) = try await send(.GET, url)
        for _ in 0..<12 {
            if [301, 302, 303].contains(status) {
                guard let location = headers.first(where: { $0.0.lowercased() == "location" })?.1 else {
                    throw Failure(description: "a redirect without Location from \(url)")
                }
                url = URL(string: location, relativeTo: URL(string: url))?.absoluteString ?? location
                (status, headers, body) = try await send(.GET, url)
                continue
            }
            guard status == 200 else { throw Failure(description: "\(url) answered \(status): \(body.prefix(200))") }
            guard let form = HTMLFormParser.forms(in: body).first(where: { $0.method == "post" }) else {
                guard LoadDriver.secret(in: body) != nil else { throw Failure(description: "no form and no secret at \(url)") }
                return .init(BenchProcess.seconds(ContinuousClock.now - started), idp: BenchProcess.seconds(idp))
            }
            let action = URL(string: form.action ?? url, relativeTo: URL(string: url))?.absoluteString ?? url
            url = action
            (status, headers, body) = try await send(.POST, action, body: QueryParameter.formEncoded(fields(of: form)))
        }
        throw Failure(description: "the login did not end after 12 pages (last: \(url))")
    }

    /// What a browser submits (HTML §4.10.21.4, constructing the entry list): every named
    /// control but buttons, plus the submitter; here the credentials typed into the text and
    /// password fields of a login form.
    func fields(of form: HTMLForm) -> [(String, String)] {
        let isLogin = form.fields.contains { $0.type == "password" }
        var pairs: [(String, String)] = []
        var submitter: (String, String)?
        var usernameFilled = false
        for field in form.fields {
            switch field.type {
            case "submit", "button", "image":
                if submitter == nil { submitter = (field.name, field.value) }
            case "password":
                pairs.append((field.name, user.password))
            case "text" where isLogin && !usernameFilled, "email" where isLogin && !usernameFilled:
                pairs.append((field.name, user.username))
                usernameFilled = true
            case "radio", "checkbox", "reset", "file":
                continue
            default:
                pairs.append((field.name, field.value))
            }
        }
        if let submitter { pairs.append(submitter) }
        return pairs
    }
}

/// Rounding and padding for the bench tables and JSON.
enum BenchFormat {
    static func round(_ value: Double, _ places: Int) -> Double {
        guard value.isFinite else { return 0 }
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
