import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Issue 36: with the mocks bound to the network (docs/devices.md's recipe for a phone), the
/// control API stays on loopback behind the session's token, a browser page of another site
/// cannot drive it, and the forward proxy reaches the session's mocks and nothing else.
/// (The same from a second network namespace, with a real browser: scripts/security-check.sh.)
@Suite(.serialized) struct ControlPlaneSecurityTests {
    static let json = [("Content-Type", "application/json")]

    /// A suite bound to every address, as `serve --host 0.0.0.0 --public-host …` starts it.
    static func withNetworkSuite(_ body: (MockSuite, TestBrowser) async throws -> Void) async throws {
        try await SuiteFixture.with(loaded: try SuiteFixture.profile("shibboleth-basic"), host: "0.0.0.0",
                                    publicHost: "phone-lan.example", body)
    }

    static func port(_ url: String) throws -> Int {
        try #require(URLComponents(string: url)?.port)
    }

    @Test func theControlAPIListensOnLoopbackAndWantsTheTokenWhenTheMocksAreOnTheNetwork() async throws {
        try await Self.withNetworkSuite { suite, browser in
            let binding = try #require(suite.servers.binding(of: "control"))
            #expect(binding.host == "127.0.0.1", "the control API binds loopback whatever --host says")
            #expect(try #require(suite.servers.binding(of: "idp")).host == "0.0.0.0")
            let control = suite.readyInfo().control
            #expect(control.base.hasPrefix("http://127.0.0.1:"), "its URLs name loopback, never the public host")
            #expect(control.tokenRequired == true)
            let token = try #require(control.token)
            #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
            let bare = try await browser.get(control.state)
            #expect(bare.status == 401)
            #expect(bare.body.contains("control.token"))
            #expect(bare.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let wrong = try await browser.get(control.state, headers: [("Authorization", "Bearer " + String(repeating: "0", count: 32))])
            #expect(wrong.status == 401)
            #expect(try await browser.get(control.state, headers: [("Authorization", "Bearer " + token)]).status == 200)
            #expect(try await browser.get(control.state + "?token=" + token).status == 200)
            // The container's health probe needs no token and learns nothing.
            let health = try await browser.get(control.base + "/health")
            #expect(health.status == 200 && health.body.contains("ok") && !health.body.contains("knobs"))
            // A state change with the token goes through.
            let set = try await browser.send("PUT", control.knobs, headers: Self.json + [("Authorization", "Bearer " + token)],
                                             body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
            #expect(set.status == 200)
            #expect(suite.environment.knobs.map(\.text) == ["wrong-audience"])
        }
    }

    @Test func onLoopbackTheControlAPINeedsNoTokenButStillChecksHostOriginAndMediaType() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let control = suite.readyInfo().control
            #expect(control.tokenRequired == false)
            #expect(try await browser.get(control.state).status == 200)
            let port = try Self.port(control.base)
            // DNS rebinding: a name that is not this session's, resolved to 127.0.0.1.
            let rebound = try await RawHTTPExchange.send(port: port, head: "GET /state HTTP/1.1\r\nHost: rebind.example:\(port)\r\nConnection: close\r\n\r\n")
            #expect(rebound.statusLine.contains("403"), "\(rebound.statusLine)")
            #expect(rebound.text.contains("DNS rebinding"))
            // An IP literal cannot be rebound; `localhost` is the machine's own name.
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
                let answer = try await RawHTTPExchange.send(port: port, head: "GET /state HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                #expect(answer.statusLine.contains("200"), "Host \(host): \(answer.statusLine)")
            }
            // A page of another site, and a form's media type: refused, nothing changed.
            let foreign = try await browser.send("PUT", control.knobs, headers: Self.json + [("Origin", "https://evil.example")],
                                                 body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
            #expect(foreign.status == 403)
            #expect(foreign.body.contains("evil.example"))
            let nullOrigin = try await browser.send("POST", control.reset, headers: Self.json + [("Origin", "null")], body: nil)
            #expect(nullOrigin.status == 403)
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let form = try await browser.send("POST", control.knobs, headers: [("Content-Type", type)],
                                                  body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
                #expect(form.status == 415, "\(type): \(form.status)")
            }
            let bodiless = try await browser.send("POST", control.clock, headers: [], body: nil)
            #expect(bodiless.status == 415)
            #expect(suite.environment.knobs.isEmpty)
            #expect(suite.environment.clock.currentOffset == 0)
            // The page's own origin (the console's in-process calls carry its Host) passes.
            let same = try await browser.send("PUT", control.knobs,
                                              headers: Self.json + [("Origin", "http://127.0.0.1:\(port)")],
                                              body: Array(#"{"knobs": ["wrong-audience"]}"#.utf8))
            #expect(same.status == 200)
        }
    }

    @Test func theForwardProxyReachesTheSessionsMocksAndNothingElse() async throws {
        // An unrelated service on another loopback port: what the proxy must never reach.
        let bystander = try await MockServerGroup.start([.init(handler: EchoHandler())], log: TrafficLog())
        defer { Task { await bystander.stop() } }
        try await Self.withNetworkSuite { suite, browser in
            let info = suite.readyInfo()
            #expect(info.proxy.password != ForwardProxyMock.defaultPassword)
            #expect(info.proxy.password.hasPrefix(ForwardProxyMock.defaultPassword + "-"), "it keeps the characters clients must encode")
            let proxyPort = try Self.port(info.proxy.url)
            let credentials = BasicCredentials(username: info.proxy.username, password: info.proxy.password).headerValue
            func through(_ target: String, credentials: String? = credentials) async throws -> RawHTTPExchange {
                let authority = URLComponents(string: target).map { "\($0.host ?? ""):\($0.port ?? 80)" } ?? ""
                var head = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n"
                if let credentials { head += "Proxy-Authorization: \(credentials)\r\n" }
                return try await RawHTTPExchange.send(port: proxyPort, head: head + "\r\n")
            }
            let idpMetadata = info.idp.metadata.replacingOccurrences(of: "phone-lan.example", with: "127.0.0.1")
            #expect(try await through(idpMetadata).statusLine.contains("200"), "a mock, by loopback")
            #expect(try await through(info.idp.metadata).statusLine.contains("200"), "a mock, by the public name")
            let controlPort = try Self.port(info.control.base)
            let refused = [
                "http://127.0.0.1:\(controlPort)/state": "the control API",
                "http://localhost:\(controlPort)/knobs": "the control API by name",
                "http://127.0.0.1:\(proxyPort)/": "the proxy itself",
                try #require(bystander.baseURL(of: "echo")) + "/": "another loopback service",
                "http://169.254.169.254/latest/meta-data/": "a link-local metadata service",
                "http://phone-lan.example:\(controlPort)/state": "the control port by the public name",
            ]
            for (target, what) in refused {
                let answer = try await through(target)
                #expect(answer.statusLine.contains("403") || answer.statusLine.contains("400"), "\(what): \(answer.statusLine)")
                #expect(!answer.text.contains("knobCatalog") && !answer.text.contains("echoed"), "\(what) was reached")
            }
            let userinfo = try await through("http://user@127.0.0.1:\(controlPort)/state")
            #expect(userinfo.statusLine.contains("400") || userinfo.statusLine.contains("403"), "\(userinfo.statusLine)")
            #expect(!userinfo.text.contains("knobCatalog"))
            // Without, or with the old fixed, credentials: 407 before anything else is said.
            #expect(try await through(idpMetadata, credentials: nil).statusLine.contains("407"))
            let old = BasicCredentials(username: "proxyuser", password: ForwardProxyMock.defaultPassword).headerValue
            #expect(try await through("http://127.0.0.1:\(controlPort)/state", credentials: old).statusLine.contains("407"))
            #expect(suite.log.entries.filter { $0.mock == "control" }.isEmpty, "no request reached the control API")
            _ = browser
        }
    }

    @Test func everySuiteHasAPasswordAndATokenOfItsOwn() async throws {
        let profile = try SuiteFixture.profile("shibboleth-basic")
        let first = try await MockSuite.start(profile: profile, mockIdPDirectory: SuiteFixture.mockIdP)
        let second = try await MockSuite.start(profile: profile, mockIdPDirectory: SuiteFixture.mockIdP)
        #expect(first.proxy.password != second.proxy.password)
        #expect(first.control.sessionGuard.token != second.control.sessionGuard.token)
        await first.stop()
        await second.stop()
    }
}

/// A service that is none of the mocks.
private struct EchoHandler: MockHandler {
    let name = "echo"
    func handle(_ request: MockRequest) async -> MockResponse {
        MockResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("echoed \(request.path)".utf8))
    }
}
