import Foundation
import MockServers
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Transport faults the mocks inject (a body cut short, a reset connection) reach the wire as
/// described, and the mocks themselves stay up under clients that misbehave at the socket
/// level (slow-loris: many connections trickling half a request).
@Suite struct FaultToleranceTests {
    /// Reads everything a raw connection gets for `request` until the server closes or resets
    /// it: the bytes and the errno that ended it (0 for an orderly close).
    static func exchange(port: Int, _ request: String) throws -> (bytes: [UInt8], error: Int32) {
        guard let fd = LoopbackSocket.open(port: port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = request.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { bytes += buffer[0..<count]; continue }
            return (bytes, count == 0 ? 0 : errno)
        }
    }

    /// ``exchange(port:_:)`` on a thread of its own: a blocking read must never hold one of the
    /// cooperative pool's threads, which the mocks' handlers need to answer it.
    static func exchangeOffPool(port: Int, _ request: String) async throws -> (bytes: [UInt8], error: Int32) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try exchange(port: port, request) }) }.start()
        }
    }

    /// The raw request for the login page the SSO endpoint's redirect leads to (the flow
    /// cookie it set included): the page the body-cutting knobs cut (a 302 is sent whole).
    static func loginPageRequest(_ suite: MockSuite) async throws -> (port: Int, request: String) {
        let browser = TestBrowser()
        defer { Task { try? await browser.shutdown() } }
        let start = try await browser.get(suite.readyInfo().sp.secure)
        let sso = try await browser.get(try #require(start.location))
        #expect(sso.status == 302, "the SSO endpoint's redirect arrives whole")
        let login = browser.resolve(try #require(sso.location), against: sso.url)
        let url = try #require(URLComponents(string: login))
        let target = url.percentEncodedPath + "?" + (url.percentEncodedQuery ?? "")
        let cookies = browser.cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        return (try #require(url.port), "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 0)\r\nCookie: \(cookies)\r\n\r\n")
    }

    @Test(arguments: [Knob.truncatedBody, .connectionReset])
    func aCutAnswerPromisesMoreThanItSends(_ knob: Knob) async throws {
        try await SuiteFixture.with("shibboleth", knobs: [knob]) { suite, _ in
            let (port, request) = try await Self.loginPageRequest(suite)
            let (bytes, error) = try await Self.exchangeOffPool(port: port, request)
            // What the IdP meant to send is in the traffic log; the wire got half its body.
            let entry = try #require(suite.log.entries.last)
            let full = try #require(entry.response).body.count
            #expect(full > 0)
            if knob == .truncatedBody {
                let text = String(decoding: bytes, as: UTF8.self)
                let head = try #require(text.range(of: "\r\n\r\n"))
                let headers = text[..<head.lowerBound].lowercased()
                #expect(headers.contains("content-length: \(full)"), "\(headers)")
                #expect(bytes.count - text[..<head.upperBound].utf8.count == full / 2)
                #expect(error == 0)
            } else {
                // A reset drops what the client had not read yet: it sees at most half, then ECONNRESET.
                #expect(error == ECONNRESET)
                let text = String(decoding: bytes, as: UTF8.self)
                if let head = text.range(of: "\r\n\r\n") {
                    #expect(bytes.count - text[..<head.upperBound].utf8.count <= full / 2)
                }
            }
            #expect(entry.annotations["transport"] == "\(knob == .connectionReset ? "reset" : "closed") after \(full / 2) of \(full) body bytes")
            // The IdP serves the next request whole.
            let browser = TestBrowser()
            defer { Task { try? await browser.shutdown() } }
            let metadata = try await browser.get(suite.readyInfo().idp.metadata)
            #expect(metadata.status == 200)
        }
    }

    /// `samlharness load` over every flow at once: 400 logins all in flight, none lost, every
    /// exchange in the traffic log, every per-login proof distinct.
    @Test func concurrentLoginsAcrossFlowsLoseNothing() async throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let outcome = try await ClientProcess.run(HarnessBinary.url.path, [
            "load", "--logins", "400", "--concurrency", "400", "--json", json.path, "--mockidp-dir", SuiteFixture.mockIdP.path,
        ], timeout: 240)
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        #expect(figures["succeeded"] as? Int == 400)
        #expect(figures["failed"] as? Int == 0)
        #expect(figures["trafficLogComplete"] as? Bool == true)
        #expect(figures["distinctSecrets"] as? Int == 300)
        let flows = try #require(figures["flows"] as? [[String: Any]])
        #expect(flows.map { $0["flow"] as? String } == ["web-sso", "ecp", "cas-rest", "http-basic"])
        #expect(flows.allSatisfy { $0["succeeded"] as? Int == 100 && ($0["p99Milliseconds"] as? Double ?? 0) > 0 })
    }

    /// `load --mocks process` (issue 25): the mocks in a `samlharness serve` child, the client here;
    /// logins through the simplesamlphp personality's login form (its `username`/`password`
    /// fields, not Shibboleth's), the child's traffic log complete through its control API, and
    /// the client's CPU and the mocks' reported apart, each a share of the machine.
    @Test func loadWithTheMocksInAChildMeasuresTheClientApart() async throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let outcome = try await ClientProcess.run(HarnessBinary.url.path, [
            "load", "--profile", "simplesamlphp", "--flows", "web-sso,ecp", "--logins", "60", "--concurrency", "4",
            "--mocks", "process", "--json", json.path, "--mockidp-dir", SuiteFixture.mockIdP.path,
        ], timeout: 240)
        #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
        #expect(outcome.stdout.contains("CPU per login: client (this process)"), "\(outcome.stdout)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        #expect(figures["succeeded"] as? Int == 60)
        #expect(figures["mocks"] as? String == "process")
        #expect(figures["trafficLogComplete"] as? Bool == true)
        #expect((figures["trafficLogEntries"] as? Int ?? 0) == (figures["requests"] as? Int ?? -1))
        #expect(figures["distinctSecrets"] as? Int == 60)
        let client = figures["thisProcessCPUMillisecondsPerLogin"] as? Double ?? 0
        let mocks = figures["mocksProcessCPUMillisecondsPerLogin"] as? Double ?? 0
        let cores = Double(figures["cores"] as? Int ?? 0)
        #expect(client > 0 && mocks > 0, "\(figures)")
        #expect((figures["thisProcessCoresBusy"] as? Double ?? -1) <= cores && (figures["mocksProcessCoresBusy"] as? Double ?? -1) <= cores)
        // The child is reaped once load has answered: its /proc entry is gone.
        let pid = outcome.stdout.components(separatedBy: "(serve, pid ").dropFirst().first?.prefix { $0.isNumber }
        let childPID = try #require(pid.flatMap { Int($0) }, "\(outcome.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(childPID)/stat"))
    }

    /// 200 connections each holding half a request line do not stop the mocks from serving a
    /// whole login meanwhile (one event loop, no thread per connection); a starved server would
    /// leave the browser to its read timeout.
    @Test func slowLorisConnectionsDoNotStarveTheMocks() async throws {
        try await SuiteFixture.with("shibboleth", knobs: []) { suite, browser in
            let port = try #require(URLComponents(string: suite.readyInfo().sp.base)?.port)
            var sockets: [Int32] = []
            defer { sockets.forEach { close($0) } }
            for _ in 0..<200 {
                let fd = try #require(LoopbackSocket.open(port: port))
                _ = "GET /secure HTTP/1.1\r\nHost: 127.0".utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
                sockets.append(fd)
            }
            let page = try await SuiteFixture.webSSO(suite, browser)
            #expect(page.status == 200)
            #expect(SuiteFixture.spVerdict(suite).accepted != nil)
        }
    }
}
