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
        /// The classic bug: the delegate answers every challenge with the same password, however
        /// often the server refused it (`previousFailureCount` ignored).
        var retriesRefusedPassword = false

        var name: String { retriesRefusedPassword ? "urlsession-basic (retries)" : "urlsession-basic" }
        func supports(_ flow: Flow) -> Bool { flow == .httpBasic }

        func run(_ target: ScenarioTarget) async throws -> ClientReport {
            let answer = ChallengeAnswer(user: target.username ?? "", password: target.password ?? "",
                                         retriesRefusedPassword: retriesRefusedPassword)
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

    /// Answers a password challenge once, and gives up when the server asks again (it refused
    /// the answer): the task then ends with `URLError.cancelled`.
    final class ChallengeAnswer: NSObject, URLSessionTaskDelegate, Sendable {
        let user: String
        let password: String
        let retriesRefusedPassword: Bool

        init(user: String, password: String, retriesRefusedPassword: Bool) {
            self.user = user
            self.password = password
            self.retriesRefusedPassword = retriesRefusedPassword
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic else {
                return completionHandler(.performDefaultHandling, nil)   // server trust: the system's checks
            }
            if challenge.previousFailureCount == 0 || retriesRefusedPassword {
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

    @Test func aClientThatLoopsOnARefusedPasswordIsCaught() async throws {
        let reports = Self.temporaryDirectory("conformance-caught")
        defer { try? FileManager.default.removeItem(at: reports) }
        let results = try await Conformance.run(BasicLogin(retriesRefusedPassword: true),
                                                filter: ["http-basic.bad-password", "http-basic.utf8-credentials"], jobs: 2,
                                                timeScale: 0.25, reportDirectory: reports)
        #expect(results.map(\.scenario) == ["http-basic.bad-password", "http-basic.utf8-credentials"])
        let caught = try #require(results.first)
        // The loop never ends by itself: the runner stops the client, and the checks judge its traffic.
        #expect(caught.status == .error)
        #expect(caught.reason == "the client was stopped: it sent more than 2000 requests to the mocks")
        let failed = caught.verdicts.filter { $0.level == .required && $0.status == .fail }.map(\.check)
        #expect(failed.contains("flow.bad-password-bounded"), "\(failed)")
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
