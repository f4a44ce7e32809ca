import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Harness
import Testing

/// `Conformance.run` as an app team calls it from its own `swift test`: a small URLSession
/// client of its own behind an `AuthClient`, a slice of the catalog, the reports written.
/// Only the public API (`import Harness`, no `@testable`).
@Suite struct ConformanceRunTests {
    /// An app's HTTP Basic login on URLSession, with its adapter: no credentials before the
    /// challenge (URLSession asks its delegate on a 401), the challenge answered once, a refused
    /// password reported.
    struct BasicLogin: AuthClient {
        /// How many times the delegate answers with the same password. One is right; the classic
        /// bug answers again when the server refused it (`previousFailureCount` read loosely, or
        /// not at all: then forever).
        var passwordAttempts = 1

        var name: String { passwordAttempts == 1 ? "urlsession-basic" : "urlsession-basic (\(passwordAttempts) attempts)" }
        func supports(_ flow: Flow) -> Bool { flow == .httpBasic }

        func run(_ target: ScenarioTarget) async throws -> ClientReport {
            let answer = ChallengeAnswer(user: target.username ?? "", password: target.password ?? "",
                                         attempts: passwordAttempts)
            let session = URLSession(configuration: .ephemeral, delegate: answer, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let request = URLRequest(url: URL(string: target.start)!, timeoutInterval: target.requestTimeout ?? 10)
            do {
                let (body, response) = try await session.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                guard status == 200 else { return ClientReport(outcome: "failure", error: "HTTP \(status)") }
                return ClientReport(outcome: "success", resource: String(decoding: body, as: UTF8.self))
            } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
                return ClientReport(outcome: "failure", error: "HTTP 401: the server refused the password")
            }
        }
    }

    /// Answers a password challenge `attempts` times, then gives up when the server asks again
    /// (it refused the answer): the task ends with `URLError.cancelled`.
    final class ChallengeAnswer: NSObject, URLSessionTaskDelegate, Sendable {
        let user: String
        let password: String
        let attempts: Int

        init(user: String, password: String, attempts: Int) {
            self.user = user
            self.password = password
            self.attempts = attempts
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic else {
                return completionHandler(.performDefaultHandling, nil)   // server trust: the system's checks
            }
            if challenge.previousFailureCount < attempts {
                completionHandler(.useCredential, URLCredential(user: user, password: password, persistence: .forSession))
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        }
    }

    /// The http-basic scenarios a client that answers one challenge per URL meets (the other
    /// two redirect to a second protection space after the login).
    static let basicSlice = ["flow:http-basic -http-basic.redirect-to-other-host -http-basic.protection-space-reused"]

    static func temporaryDirectory(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    }

    @Test func aConformingClientPassesAndEveryReportIsWritten() async throws {
        let reports = Self.temporaryDirectory("conformance-reports")
        defer { try? FileManager.default.removeItem(at: reports) }
        let results = try await Conformance.run(BasicLogin(), filter: Self.basicSlice, jobs: 2, timeScale: 0.25,
                                                reportDirectory: reports)
        #expect(results.count >= 4)
        #expect(results.map(\.scenario).contains("http-basic.bad-password"))
        for result in results {
            #expect(result.status == .pass, "\(result.scenario): \(result.reason ?? "")")
        }
        #expect(StatusCounts(results).clean)

        let files = try FileManager.default.contentsOfDirectory(atPath: reports.path).sorted()
        #expect(files == ["junit.xml", "report.html", "report.json", "report.sarif", "results.jsonl", "summary.md"])
        let report = try JSONDecoder().decode(ConformanceReport.self, from: Data(contentsOf: reports.appendingPathComponent("report.json")))
        #expect(report.runs.map(\.client) == ["urlsession-basic"])
        #expect(report.runs.first?.results.map(\.scenario) == results.map(\.scenario))
        #expect(report.runs.first?.timeScale == 0.25)
        #expect(report.runs.first?.results.allSatisfy { $0.trace != nil } == true, "the HTML and SARIF read the traces")
        let junit = try String(contentsOf: reports.appendingPathComponent("junit.xml"), encoding: .utf8)
        for result in results { #expect(junit.contains("name=\"\(result.scenario)\"")) }
        #expect(!junit.contains("<failure"))
        // results.jsonl: the header, the catalog line, one line per result, the end line.
        let lines = try String(contentsOf: reports.appendingPathComponent("results.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == results.count + 3)
        #expect(lines.first?.contains("\"event\":\"run\"") == true)
        #expect(lines.last?.contains("\"event\":\"end\"") == true)
        // The test user's password never reaches a report.
        let password = try #require(Conformance.scenarios(filter: ["http-basic.bad-password"]).first?.user?.password)
        for file in files {
            let text = try String(contentsOf: reports.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains(password), "\(file) shows the password")
        }
    }

    @Test func aClientThatRetriesARefusedPasswordIsCaught() async throws {
        let reports = Self.temporaryDirectory("conformance-caught")
        defer { try? FileManager.default.removeItem(at: reports) }
        let results = try await Conformance.run(BasicLogin(passwordAttempts: 5),
                                                filter: ["http-basic.bad-password", "http-basic.utf8-credentials"], jobs: 2,
                                                timeScale: 0.25, reportDirectory: reports)
        #expect(results.map(\.scenario) == ["http-basic.bad-password", "http-basic.utf8-credentials"])
        let caught = try #require(results.first)
        #expect(caught.status == .fail)
        let failed = caught.verdicts.filter { $0.level == .required && $0.status == .fail }.map(\.check)
        // Five answers where three are allowed, and the refused credentials sent again unchanged.
        #expect(failed == ["flow.bad-password-bounded", "httpauth.challenge-answered"], "\(caught.reason ?? "")")
        #expect(caught.reason?.hasPrefix("flow.bad-password-bounded") == true, "\(caught.reason ?? "")")
        #expect(results.last?.status == .pass, "the right password is still answered once")
        #expect(!StatusCounts(results).clean)
        let junit = try String(contentsOf: reports.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("<failure type=\"flow.bad-password-bounded\""))
    }

    @Test func aFilterThatSelectsNothingIsAnErrorNotAGreenRun() async throws {
        await #expect(throws: Conformance.UsageError.self) {
            try await Conformance.run(BasicLogin(), filter: ["http-basic.bad-pasword"])
        }
        await #expect(throws: Conformance.UsageError.self) {
            try await Conformance.run(BasicLogin(), filter: Self.basicSlice, timeScale: 5)
        }
    }
}
