import Foundation
import SAMLCore
import Synchronization
import Testing
@testable import MockServers

/// The HTTP-auth mock and the forward proxy, driven by the real `/usr/bin/curl`.
@Suite struct HTTPAuthTests {
    /// `+ = & %`, spaces and non-ASCII letters in the passwords; a non-ASCII username too.
    static let alice = TestUser(username: "alice", password: "s3cret+=&%20 wörd Ünï")
    static let jaeger = TestUser(username: "jäger", password: "Grüße & 100% = +1")
    static let proxyPassword = "pr0xy+=&% pässwörd"

    // MARK: - Building blocks

    @Test func messageDigestMatchesKnownVectors() {
        // RFC 1321 §A.5; FIPS 180-4 examples ("abc").
        #expect(MessageDigest.md5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MessageDigest.md5.hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MessageDigest.sha1.hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(MessageDigest.sha256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(MessageDigest.sha512_256.hex("abc") == "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
        #expect(MessageDigest.sha256.hash(Array("abc".utf8)).count == 32)
    }

    @Test func digestResponseMatchesRFC7616Example() {
        // RFC 7616 §3.9.1.
        let inputs = (user: "Mufasa", realm: "http-auth@example.org", password: "Circle of Life", uri: "/dir/index.html",
                      nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        func response(_ algorithm: HTTPDigestAlgorithm) -> String {
            algorithm.response(username: inputs.user, realm: inputs.realm, password: inputs.password, method: "GET",
                               uri: inputs.uri, nonce: inputs.nonce, nc: "00000001", cnonce: inputs.cnonce)
        }
        #expect(response(.md5) == "8ca523f5e9506fed4657c9700eebdbec")
        #expect(response(.sha256) == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
    }

    @Test func authParametersReadQuotedStringsAndRefuseDuplicates() throws {
        let parsed = try AuthParameters.parse(#"Digest username="a\"b", realm = "r, x" ,, nc=00000001"#, expectToken68: false)
        #expect(parsed.isScheme("digest"))
        #expect(parsed["username"] == #"a"b"#)
        #expect(parsed["REALM"] == "r, x")
        #expect(parsed.order == ["username", "realm", "nc"])
        #expect(throws: AuthParameters.ParseError.self) { try AuthParameters.parse(#"Digest a=1, A=2"#, expectToken68: false) }
        #expect(throws: AuthParameters.ParseError.self) { try AuthParameters.parse(#"Digest a="open"#, expectToken68: false) }
        #expect(try AuthParameters.parse("Basic YTpi", expectToken68: true).token68 == "YTpi")
    }

    // MARK: - Basic

    @Test func basicWithCurlGetsTheSecretAndSendsUTF8Credentials() async throws {
        try await withMocks { servers, _ in
            let user = Self.jaeger
            let run = try await Curl().run(["--basic", "-u", "\(user.username):\(user.password)", servers.url("auth", "/basic/page")])
            #expect(run.status == 200, "\(run)")
            #expect(run.body.contains(HTTPAuthMock.secret(username: user.username, realm: "SAMLHarness Basic")))
            let entry = try #require(servers.log.entries.last)
            #expect(entry.annotations[HTTPAuthResult.Key.result] == "ok")
            #expect(entry.annotations[HTTPAuthResult.Key.user] == user.username)
            // RFC 7617 §2.1: base64 of the UTF-8 bytes of user-id ":" password.
            let expected = "Basic " + Data("\(user.username):\(user.password)".utf8).base64EncodedString()
            #expect(entry.request.header("Authorization") == expected)
        }
    }

    @Test func basicWrongPasswordIsRechallengedEveryTimeWithoutLockout() async throws {
        try await withMocks { servers, _ in
            let url = servers.url("auth", "/basic/page")
            for _ in 0..<3 {
                let run = try await Curl().run(["--basic", "-u", "alice:wrong", url])
                #expect(run.status == 401)
                let entry = try #require(servers.log.entries.last)
                #expect(entry.annotations[HTTPAuthResult.Key.result] == "wrong-credentials")
                #expect(entry.response?.header("WWW-Authenticate") == #"Basic realm="SAMLHarness Basic", charset="UTF-8""#)
            }
            let run = try await Curl().run(["--basic", "-u", "alice:\(Self.alice.password)", url])
            #expect(run.status == 200, "no lockout after three wrong passwords")
        }
    }

    @Test func basicSecretsArePerProtectionSpaceAndMalformedIs400() async throws {
        try await withMocks { servers, _ in
            let credentials = "alice:\(Self.alice.password)"
            let one = try await Curl().run(["--basic", "-u", credentials, servers.url("auth", "/basic/x")])
            let other = try await Curl().run(["--basic", "-u", credentials, servers.url("auth", "/basic-other/x")])
            #expect(one.body.contains(HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic")))
            #expect(other.body.contains(HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic (other)")))
            #expect(HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic")
                != HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic (other)"))
            let missing = try await Curl().run([servers.url("auth", "/basic-other/x")])
            #expect(missing.status == 401)
            #expect(servers.log.entries.last?.response?.header("WWW-Authenticate")?.contains("(other)") == true)
            let bad = try await Curl().run(["-H", "Authorization: Basic !!!notbase64", servers.url("auth", "/basic/x")])
            #expect(bad.status == 400)
            #expect(bad.body.contains("not base64"))
            #expect(servers.log.entries.last?.annotations[HTTPAuthResult.Key.result] == "malformed")
        }
    }

    // MARK: - Digest

    @Test(arguments: [("/digest/md5/page", "MD5"), ("/digest/sha256/page", "SHA-256"), ("/digest/md5-sess/p", "MD5-sess"),
                      ("/digest/sha256-sess/p", "SHA-256-sess"), ("/digest/sha512-256/p", "SHA-512-256"),
                      ("/digest/any/page", "SHA-256")])
    func digestWithCurlGetsTheSecret(path: String, algorithm: String) async throws {
        try await withMocks { servers, auth in
            let user = Self.jaeger
            let run = try await Curl().run(["--digest", "-u", "\(user.username):\(user.password)", servers.url("auth", path)])
            #expect(run.status == 200, "\(run)")
            let space = try #require(auth.space(for: path))
            #expect(run.body.contains(HTTPAuthMock.secret(username: user.username, realm: space.realm)))
            let entries = servers.log.entries
            try #require(entries.count == 2)
            #expect(entries[0].response?.status == 401)
            #expect(entries[0].annotations[HTTPAuthResult.Key.result] == "missing")
            let challenges = entries[0].response?.headers(named: "WWW-Authenticate") ?? []
            if path.hasPrefix("/digest/any/") {
                // RFC 7616 §3.7: the preferred algorithm first, one field per challenge.
                #expect(challenges.count == 2)
                #expect(challenges.first?.contains("algorithm=SHA-256") == true)
                #expect(challenges.last?.contains("algorithm=MD5") == true)
            }
            let sent = try AuthParameters.parse(try #require(entries[1].request.header("Authorization")), expectToken68: false)
            #expect(sent["algorithm"] == algorithm)
            #expect(sent["uri"] == path)
            #expect(sent["qop"] == "auth")
            #expect(entries[1].annotations[HTTPAuthResult.Key.result] == "ok")
            #expect(entries[1].annotations[HTTPAuthResult.Key.algorithm] == algorithm)
            #expect(entries[1].response?.header("Authentication-Info")?.hasPrefix("rspauth=") == true)
        }
    }

    @Test func digestWrongPasswordGets401() async throws {
        try await withMocks { servers, _ in
            let run = try await Curl().run(["--digest", "-u", "alice:not-it", servers.url("auth", "/digest/sha256/x")])
            #expect(run.status == 401)
            #expect(servers.log.entries.map { $0.annotations[HTTPAuthResult.Key.result] } == ["missing", "wrong-credentials"])
        }
    }

    @Test func staleNonceIsAnsweredWithStaleTrueAndReplayedCountIsRefused() async throws {
        try await withMocks { servers, auth in
            let path = "/digest/sha256/stale"
            let url = servers.url("auth", path)
            let user = Self.alice
            _ = try await Curl().run([url])
            let first = try challenge(servers.log)
            auth.expireNonces()
            func authorization(_ nonce: String, nc: Int) -> String {
                let ncValue = String(format: "%08x", nc)
                let response = HTTPDigestAlgorithm.sha256.response(
                    username: user.username, realm: first.realm, password: user.password, method: "GET", uri: path,
                    nonce: nonce, nc: ncValue, cnonce: "c0ffee42")
                return "Authorization: Digest username=\"\(user.username)\", realm=\"\(first.realm)\", nonce=\"\(nonce)\", "
                    + "uri=\"\(path)\", algorithm=SHA-256, qop=auth, nc=\(ncValue), cnonce=\"c0ffee42\", "
                    + "response=\"\(response)\", opaque=\"\(first.opaque)\""
            }
            // A right answer with an expired nonce: 401, stale=true, a fresh nonce (RFC 7616 §3.3).
            let stale = try await Curl().run(["-H", authorization(first.nonce, nc: 1), url])
            #expect(stale.status == 401)
            let fresh = try challenge(servers.log)
            #expect(fresh.stale)
            #expect(fresh.nonce != first.nonce)
            #expect(servers.log.entries.last?.annotations[HTTPAuthResult.Key.result] == "stale-nonce")
            // The retry with the fresh nonce succeeds.
            let retry = try await Curl().run(["-H", authorization(fresh.nonce, nc: 1), url])
            #expect(retry.status == 200)
            #expect(retry.body.contains(HTTPAuthMock.secret(username: user.username, realm: first.realm)))
            // The same nc again is a replay (RFC 7616 §5.5); the next one is fine.
            let replay = try await Curl().run(["-H", authorization(fresh.nonce, nc: 1), url])
            #expect(replay.status == 401)
            #expect(servers.log.entries.last?.annotations[HTTPAuthResult.Key.result] == "replayed-nc")
            let next = try await Curl().run(["-H", authorization(fresh.nonce, nc: 2), url])
            #expect(next.status == 200)
            // A uri that is not the request-target is 400 (RFC 7616 §3.4.6).
            let otherURI = authorization(fresh.nonce, nc: 3).replacingOccurrences(of: "uri=\"\(path)\"", with: "uri=\"/elsewhere\"")
            let mismatch = try await Curl().run(["-H", otherURI, url])
            #expect(mismatch.status == 400)
            #expect(mismatch.body.contains("request-target"))
        }
    }

    @Test func curlRetriesAfterStaleTrue() async throws {
        let auth = HTTPAuthMock(users: [Self.alice])
        let servers = try await MockServerGroup.start([.init(handler: ExpireBeforeFirstAnswer(auth: auth))], log: TrafficLog())
        defer { Task { await servers.stop() } }
        let run = try await Curl().run(["--digest", "-u", "alice:\(Self.alice.password)", servers.url("auth", "/digest/md5/x")])
        let results = servers.log.entries.map { $0.annotations[HTTPAuthResult.Key.result] ?? "-" }
        #expect(results == ["missing", "stale-nonce", "ok"], "curl answered stale=true with: \(results)")
        #expect(run.status == 200)
    }

    // MARK: - Proxy

    @Test func curlThroughTheProxyGetsTheSecretAndTheOriginSeesNoProxyCredentials() async throws {
        try await withMocks { servers, _ in
            let run = try await Curl().run(["--proxy", servers.url("proxy", ""), "--proxy-user", "proxyuser:\(Self.proxyPassword)",
                                            "--basic", "-u", "alice:\(Self.alice.password)", servers.url("auth", "/basic/x")])
            #expect(run.status == 200, "\(run)")
            #expect(run.body.contains(HTTPAuthMock.secret(username: "alice", realm: "SAMLHarness Basic")))
            let proxyLeg = try #require(servers.log.entries.first { $0.mock == "proxy" })
            let originLeg = try #require(servers.log.entries.first { $0.mock == "auth" })
            #expect(proxyLeg.annotations[ForwardProxyMock.Key.result] == "forwarded")
            #expect(proxyLeg.request.header("Proxy-Authorization")?.hasPrefix("Basic ") == true)
            #expect(proxyLeg.annotations[ForwardProxyMock.Key.upstream] == servers.binding(of: "auth").map { "127.0.0.1:\($0.port)" })
            #expect(originLeg.request.header("Proxy-Authorization") == nil)
            #expect(originLeg.request.header("Via") == ForwardProxyMock.via)
            #expect(originLeg.annotations[HTTPAuthResult.Key.result] == "ok")
            #expect(proxyLeg.response?.header("Via") == ForwardProxyMock.via)
        }
    }

    @Test func curlDigestThroughTheProxy() async throws {
        try await withMocks { servers, _ in
            let run = try await Curl().run(["--proxy", servers.url("proxy", ""), "--proxy-user", "proxyuser:\(Self.proxyPassword)",
                                            "--digest", "-u", "alice:\(Self.alice.password)", servers.url("auth", "/digest/sha256/p?q=1")])
            #expect(run.status == 200, "\(run)")
            #expect(servers.log.entries.filter { $0.mock == "auth" }.map { $0.response?.status } == [401, 200])
        }
    }

    @Test func proxyWithoutOrWithWrongCredentialsGets407() async throws {
        try await withMocks { servers, _ in
            let target = servers.url("auth", "/basic/x")
            let none = try await Curl().run(["--proxy", servers.url("proxy", ""), target])
            #expect(none.status == 407)
            let wrong = try await Curl().run(["--proxy", servers.url("proxy", ""), "--proxy-user", "proxyuser:nope", target])
            #expect(wrong.status == 407)
            let entries = servers.log.entries
            #expect(entries.allSatisfy { $0.mock == "proxy" }, "nothing reached the origin")
            #expect(entries.map { $0.annotations[HTTPAuthResult.Key.result] } == ["missing", "wrong-credentials"])
            #expect(entries.first?.response?.header("Proxy-Authenticate") == #"Basic realm="SAMLHarness proxy", charset="UTF-8""#)
        }
    }

    @Test func proxyRelaysRedirectsAndEverySetCookie() async throws {
        let log = TrafficLog()
        let servers = try await MockServerGroup.start(
            [.init(handler: ForwardProxyMock(password: Self.proxyPassword)), .init(handler: CookieRedirectOrigin())], log: log)
        defer { Task { await servers.stop() } }
        let curl = try Curl()
        let proxy = ["--proxy", servers.url("proxy", ""), "--proxy-user", "proxyuser:\(Self.proxyPassword)"]
        let redirect = try await curl.run(proxy + [servers.url("origin", "/set")])
        #expect(redirect.status == 302, "the proxy relays the 302 instead of following it")
        let relayed = try #require(log.entries.first { $0.mock == "proxy" }?.response)
        #expect(relayed.headers(named: "Set-Cookie") == CookieRedirectOrigin.cookies)
        #expect(relayed.header("Location") == "/landing")
        let landing = try await curl.run(proxy + [servers.url("origin", "/landing")])
        #expect(landing.body.contains("a=1; b=2"), "\(landing.body)")
    }

    @Test func proxyRefusalsNameTheirReason() async throws {
        try await withMocks { servers, _ in
            let proxy = ["--proxy", servers.url("proxy", ""), "--proxy-user", "proxyuser:\(Self.proxyPassword)"]
            let remote = try await Curl().run(proxy + ["http://example.invalid/x"])
            #expect(remote.status == 403)
            #expect(remote.body.contains("only forwards to loopback"))
            let direct = try await Curl().run([servers.url("proxy", "/x")])
            #expect(direct.status == 400)
            #expect(direct.body.contains("send absolute-form requests"))
            _ = try await Curl().run(proxy + ["--proxytunnel", servers.url("auth", "/basic/x")])
            let connect = try #require(servers.log.entries.last)
            #expect(connect.request.method == "CONNECT")
            #expect(connect.response?.status == 501)
            let closedPort = try await Self.closedPort()
            let unreachable = try await Curl().run(proxy + ["http://127.0.0.1:\(closedPort)/x"])
            #expect(unreachable.status == 502)
            #expect(unreachable.body.contains("127.0.0.1:\(closedPort)"))
        }
    }

    // MARK: - Helpers

    /// Starts `auth` and `proxy` on port 0, runs `body`, stops them.
    func withMocks(_ body: (MockServerGroup, HTTPAuthMock) async throws -> Void) async throws {
        let auth = HTTPAuthMock(users: [Self.alice, Self.jaeger])
        let proxy = ForwardProxyMock(password: Self.proxyPassword)
        let servers = try await MockServerGroup.start([.init(handler: auth), .init(handler: proxy)], log: TrafficLog())
        do {
            try await body(servers, auth)
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    /// The Digest challenge of the last answer in the log.
    func challenge(_ log: TrafficLog) throws -> (realm: String, nonce: String, opaque: String, stale: Bool) {
        let field = try #require(log.entries.last?.response?.header("WWW-Authenticate"))
        let parsed = try AuthParameters.parse(field, expectToken68: false)
        return (try #require(parsed["realm"]), try #require(parsed["nonce"]), try #require(parsed["opaque"]),
                parsed["stale"] == "true")
    }

    /// A loopback port nothing listens on: bound by a mock, then released.
    static func closedPort() async throws -> Int {
        let servers = try await MockServerGroup.start([.init(handler: CookieRedirectOrigin())], log: TrafficLog())
        let port = try #require(servers.binding(of: "origin")).port
        await servers.stop()
        return port
    }
}

extension MockServerGroup {
    fileprivate func url(_ mock: String, _ path: String) -> String { (baseURL(of: mock) ?? "http://unbound") + path }
}

/// An origin that redirects with two cookies (one with a comma in its Expires), and shows
/// the cookies it gets.
private struct CookieRedirectOrigin: MockHandler {
    static let cookies = ["a=1; Path=/", "b=2; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT"]
    let name = "origin"

    func handle(_ request: MockRequest) async -> MockResponse {
        guard request.path == "/set" else {
            return .text("cookies: " + request.headers(named: "Cookie").joined(separator: " | "))
        }
        var response = MockResponse.redirect("/landing")
        for cookie in Self.cookies { response.addHeader("Set-Cookie", cookie) }
        return response
    }
}

/// Expires every nonce just before the first request with credentials is judged, so the
/// client's first answer meets `stale=true`.
private final class ExpireBeforeFirstAnswer: MockHandler {
    let auth: HTTPAuthMock
    let expired = Mutex(false)
    var name: String { auth.name }

    init(auth: HTTPAuthMock) { self.auth = auth }

    func handle(_ request: MockRequest) async -> MockResponse {
        if request.header("Authorization") != nil, expired.withLock({ done in defer { done = true }; return !done }) {
            auth.expireNonces()
        }
        return await auth.handle(request)
    }
}

/// Runs `/usr/bin/curl` with a cookie jar of its own; the final status comes from
/// `-w %{http_code}`, the body from `-o`.
private struct Curl {
    struct Run: CustomStringConvertible {
        let exitCode: Int32
        let status: Int
        let body: String
        let stderr: String
        var description: String { "curl exit \(exitCode), status \(status), stderr: \(stderr), body: \(body.prefix(400))" }
    }

    static let path = "/usr/bin/curl"
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String]) async throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: Self.path) else {
            Issue.record("curl is missing at \(Self.path): install curl (CI installs it) to run the HTTP-auth tests")
            throw CancellationError()
        }
        let id = UUID().uuidString
        let body = directory.appendingPathComponent("\(id).body")
        let out = directory.appendingPathComponent("\(id).out")
        let err = directory.appendingPathComponent("\(id).err")
        let jar = directory.appendingPathComponent("cookies.txt").path
        for file in [body, out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["-sS", "--max-time", "20", "-c", jar, "-b", jar, "-o", body.path, "-w", "%{http_code}"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        // Wait without blocking a thread of the pool the mocks answer on.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return Run(exitCode: process.terminationStatus, status: Int(read(out)) ?? 0, body: read(body), stderr: read(err))
    }
}
