import Foundation
import MockServers
import Testing
import TestSupport

@testable import Recording

/// `samlharness record` is no open proxy (issue 36): listening beyond loopback it refuses hosts
/// outside `--allow-host`, refuses loopback, private, link-local, CGNAT and unspecified
/// destinations (by address, after resolving a name), and asks a password. Beyond loopback
/// without a LAN: the recorder binds `0.0.0.0` port 0 and the test connects through
/// 127.0.0.1 — the guards key on the listen address, not on the client's.
@Suite(.serialized) struct RecordGuardTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("record-guard-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `record ARGUMENTS` with its own CA, HAR and scenario paths.
    static func recorder(_ arguments: [String], directory: URL) async throws -> ServeProcess {
        try await ServeProcess.start(["--ca-dir", directory.appendingPathComponent("ca").path,
                                      "--out", directory.appendingPathComponent("guarded.yaml").path,
                                      "--har", directory.appendingPathComponent("guarded.har").path] + arguments, command: "record")
    }

    static func port(of recorder: ServeProcess) throws -> Int {
        let proxy = try #require(recorder.ready["proxy"] as? String)
        return try #require(URLComponents(string: proxy)?.port)
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Proxy-Authorization: Basic \(Data("\(user):\(password)".utf8).base64EncodedString())\r\n"
    }

    /// One request on a connection of its own, `Connection: close`.
    static func send(_ port: Int, _ method: String, _ target: String, host: String, auth: String = "") async throws -> RawHTTPExchange {
        try await RawHTTPExchange.send(port: port, head: "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n\(auth)Connection: close\r\n\r\n")
    }

    // MARK: - Beyond loopback

    @Test func beyondLoopbackAPasswordIsMadeAndDemanded() async throws {
        let directory = try Self.temporaryDirectory()
        let serve = try await ServeProcess.start(["--no-console"])
        defer { serve.terminate() }
        let metadata = try #require(serve.url("idp", "metadata"))
        let mock = try #require(URLComponents(string: metadata))
        let recorder = try await Self.recorder(["--listen", "0.0.0.0:0", "--allow-host", "127.0.0.1", "--allow-private-destinations"],
                                         directory: directory)
        defer { recorder.terminate(signal: SIGINT) }
        let port = try Self.port(of: recorder)
        #expect(recorder.ready["beyond_loopback"] as? Bool == true)
        #expect(recorder.ready["others"] as? String == "refuse")
        let user = try #require(recorder.ready["proxy_user"] as? String)
        let password = try #require(recorder.ready["proxy_password"] as? String)
        #expect(password.count >= 20)
        let target = "http://127.0.0.1:\(mock.port!)\(mock.path)"

        // No credentials, wrong ones, another scheme: 407 with the challenge (RFC 9110 §11.7.1).
        for auth in ["", Self.basic(user, "wrong"), "Proxy-Authorization: Bearer \(password)\r\n"] {
            let refused = try await Self.send(port, "GET", target, host: "127.0.0.1:\(mock.port!)", auth: auth)
            #expect(refused.statusLine == "HTTP/1.1 407 Proxy Authentication Required", "\(auth): \(refused.text)")
            #expect(refused.header("Proxy-Authenticate") == ["Basic realm=\"samlharness record\", charset=\"UTF-8\""])
            #expect(refused.text.contains("asks for its user and password"))
        }
        let connect = try await Self.send(port, "CONNECT", "127.0.0.1:\(mock.port!)", host: "127.0.0.1:\(mock.port!)")
        #expect(connect.statusLine.hasPrefix("HTTP/1.1 407"), "\(connect.text)")
        // The CA stays open: a device needs it before it can authenticate.
        let ca = try await Self.send(port, "GET", "/ca.crt", host: "127.0.0.1:\(port)")
        #expect(ca.statusLine == "HTTP/1.1 200 OK", "\(ca.statusLine)")
        // With the password: through to the mock (a private destination: --allow-private-destinations).
        let through = try await Self.send(port, "GET", target, host: "127.0.0.1:\(mock.port!)", auth: Self.basic(user, password))
        #expect(through.statusLine == "HTTP/1.1 200 OK", "\(through.text)")
        #expect(through.text.contains("EntityDescriptor"))

        let (_, stderr) = await recorder.stop(signal: SIGINT)
        #expect(stderr.contains("proxy user \(user), password \(password) (made for this session"), "\(stderr)")
        let har = try String(contentsOf: directory.appendingPathComponent("guarded.har"), encoding: .utf8)
        #expect(har.contains("EntityDescriptor"), "the exchange is recorded")
        #expect(!har.lowercased().contains("proxy-authorization") && !har.contains(password), "the proxy's credentials are recorded")
        #expect(recorder.stdoutAfterReady.contains("asked for the proxy password: 4 request(s)"), "\(recorder.stdoutAfterReady)")
    }

    @Test func beyondLoopbackOtherHostsAreRefusedWhateverOthersSays() async throws {
        let directory = try Self.temporaryDirectory()
        let recorder = try await Self.recorder(["--listen", "0.0.0.0:0", "--allow-host", "idp.example.org", "--proxy-user", "rec:pw"],
                                         directory: directory)
        defer { recorder.terminate(signal: SIGINT) }
        let port = try Self.port(of: recorder)
        let auth = Self.basic("rec", "pw")
        let plain = try await Self.send(port, "GET", "http://sp.example.net/login", host: "sp.example.net", auth: auth)
        let tunnel = try await Self.send(port, "CONNECT", "sp.example.net:443", host: "sp.example.net:443", auth: auth)
        for answer in [plain, tunnel] {
            #expect(answer.statusLine == "HTTP/1.1 403 Forbidden", "\(answer.text)")
            #expect(answer.text.contains("refuses sp.example.net:"))
            #expect(answer.text.contains("not on the allow-list (idp.example.org)"))
            #expect(answer.text.contains("whatever --others says"))
            #expect(answer.text.contains("--allow-host sp.example.net"))
        }
        // The page a device sees says so too.
        let page = try await Self.send(port, "GET", "/", host: "127.0.0.1:\(port)")
        #expect(page.text.contains("Every other host is refused"))
    }

    /// Every way to name this machine, its network or the metadata service: refused with a page
    /// naming the address, its range and the flag; nothing reaches the mock.
    @Test func beyondLoopbackPrivateDestinationsAreRefused() async throws {
        let directory = try Self.temporaryDirectory()
        let serve = try await ServeProcess.start(["--no-console", "--har-out", directory.appendingPathComponent("mock.har").path])
        defer { serve.terminate() }
        let metadata = try #require(serve.url("idp", "metadata"))
        let mock = try #require(URLComponents(string: metadata))
        let mockPort = try #require(mock.port)
        let hosts = ["127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "2130706433", "0.0.0.0", "169.254.169.254",
                     "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "[fe80::1]", "[fd00::1]", "[::]"]
        let recorder = try await Self.recorder(["--listen", "0.0.0.0:0", "--proxy-user", "rec:pw"]
                                         + hosts.flatMap { ["--allow-host", $0] }, directory: directory)
        let port = try Self.port(of: recorder)
        #expect(recorder.ready["private_destinations"] as? String == "refused")
        let auth = Self.basic("rec", "pw")
        let ranges = ["127.0.0.1": "loopback", "localhost": "loopback", "[::1]": "loopback (::1)",
                      "[::ffff:127.0.0.1]": "loopback (127.0.0.0/8), IPv4-mapped", "2130706433": "loopback",
                      "0.0.0.0": "unspecified", "169.254.169.254": "link-local (169.254.0.0/16, cloud metadata",
                      "10.1.2.3": "private (10.0.0.0/8)", "172.16.0.1": "private (172.16.0.0/12)",
                      "192.168.1.1": "private (192.168.0.0/16)", "100.64.0.1": "CGNAT (100.64.0.0/10)",
                      "[fe80::1]": "link-local (fe80::/10)", "[fd00::1]": "private (unique local fc00::/7)", "[::]": "unspecified (::)"]
        for host in hosts {
            let authority = "\(host):\(mockPort)"
            var attempts = [
                ("GET absolute-form", try await Self.send(port, "GET", "http://\(authority)\(mock.path)", host: authority, auth: auth)),
                ("CONNECT", try await Self.send(port, "CONNECT", authority, host: authority, auth: auth)),
            ]
            if host == "127.0.0.1" || host == "localhost" {
                attempts.append(("user@", try await Self.send(port, "GET", "http://alice@\(authority)\(mock.path)", host: authority,
                                                              auth: auth)))
                attempts.append(("user:password@", try await Self.send(port, "GET", "http://a:b@\(authority)/", host: authority,
                                                                       auth: auth)))
            }
            for (how, answer) in attempts {
                #expect(answer.statusLine == "HTTP/1.1 403 Forbidden", "\(how) \(host): \(answer.text)")
                #expect(answer.text.contains(ranges[host]!), "\(how) \(host): \(answer.text)")
                #expect(answer.text.contains("--allow-private-destinations"), "\(how) \(host)")
                #expect(!answer.text.contains("EntityDescriptor"), "\(how) \(host) reached the mock")
            }
        }
        // A name is refused for what it resolves to.
        let named = try await Self.send(port, "GET", "http://localhost:\(mockPort)/", host: "localhost", auth: auth)
        #expect(named.text.contains("localhost resolves to "), "\(named.text)")
        let (_, stderr) = await recorder.stop(signal: SIGINT)
        #expect(stderr.contains("refused 127.0.0.1:\(mockPort): 127.0.0.1, loopback"), "\(stderr)")
        #expect(recorder.stdoutAfterReady.contains("refused: 169.254.169.254:\(mockPort): 169.254.169.254, link-local"),
                "\(recorder.stdoutAfterReady)")
        // Nothing reached the mock.
        await serve.stop()
        let mockHAR = try String(contentsOf: directory.appendingPathComponent("mock.har"), encoding: .utf8)
        #expect(!mockHAR.contains("/metadata"), "a refused request reached the mock")
    }

    // MARK: - On loopback

    /// Listening on loopback, nothing changes: no password asked, loopback destinations reached,
    /// other hosts tunnelled by default.
    @Test func onLoopbackNothingChanges() async throws {
        let directory = try Self.temporaryDirectory()
        let serve = try await ServeProcess.start(["--no-console"])
        defer { serve.terminate() }
        let metadata = try #require(serve.url("idp", "metadata"))
        let mock = try #require(URLComponents(string: metadata))
        let recorder = try await Self.recorder(["--listen", "127.0.0.1:0", "--allow-host", "localhost"], directory: directory)
        defer { recorder.terminate(signal: SIGINT) }
        #expect(recorder.ready["proxy_password"] == nil)
        #expect(recorder.ready["others"] as? String == "tunnel")
        #expect(recorder.ready["beyond_loopback"] as? Bool == false)
        let port = try Self.port(of: recorder)
        for host in ["localhost", "127.0.0.1"] {  // recorded, and tunnelled (not on the list)
            let authority = "\(host):\(mock.port!)"
            let answer = try await Self.send(port, "GET", "http://\(authority)\(mock.path)", host: authority)
            #expect(answer.statusLine == "HTTP/1.1 200 OK", "\(host): \(answer.text)")
        }
    }

    /// `--proxy-user` on loopback: demanded, and a real client (curl) that gives it gets through.
    @Test func proxyUserOnLoopbackIsDemandedAndCurlGetsThrough() async throws {
        let directory = try Self.temporaryDirectory()
        let serve = try await ServeProcess.start(["--no-console"])
        defer { serve.terminate() }
        let metadata = try #require(serve.url("idp", "metadata"))
        let recorder = try await Self.recorder(["--listen", "127.0.0.1:0", "--allow-host", "127.0.0.1", "--proxy-user", "alice:pä ss:w"],
                                         directory: directory)
        defer { recorder.terminate(signal: SIGINT) }
        let proxy = try #require(recorder.ready["proxy"] as? String)
        #expect(recorder.ready["proxy_password"] as? String == "pä ss:w")
        let without = try await ClientProcess.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--proxy", proxy, metadata])
        #expect(without.stdout == "407", "\(without.stdout) \(without.stderr)")
        let with = try await ClientProcess.run("/usr/bin/curl", ["-sS", "--proxy", proxy, "--proxy-user", "alice:pä ss:w", metadata])
        #expect(with.status == 0 && with.stdout.contains("EntityDescriptor"), "\(with.stdout) \(with.stderr)")
    }

    @Test func usageErrorsNameTheFlag() async throws {
        let out = try Self.temporaryDirectory().appendingPathComponent("usage.yaml").path
        let tunnel = try await HarnessBinary.run(["record", "--allow-host", "idp.example.org", "--out", out,
                                                  "--listen", "0.0.0.0:0", "--others", "tunnel"])
        #expect(tunnel.status == 2 && tunnel.stderr.contains("--others tunnel with --listen 0.0.0.0:0"), "\(tunnel.stderr)")
        let user = try await HarnessBinary.run(["record", "--allow-host", "idp.example.org", "--out", out, "--proxy-user", "nocolon"])
        #expect(user.status == 2 && user.stderr.contains("expected USER:PASSWORD"), "\(user.stderr)")
        let both = try await HarnessBinary.run(["record", "--allow-host", "idp.example.org", "--out", out, "--proxy-user", "a:b",
                                                "--no-proxy-password"])
        #expect(both.status == 2 && both.stderr.contains("one or the other"), "\(both.stderr)")
    }

    // MARK: - The guard's parts

    @Test func addressRanges() throws {
        func range(_ text: String) -> String? { DestinationGuard.range(of: DestinationGuard.numericAddress(text)!) }
        for refused in ["127.0.0.1", "127.255.0.9", "0.0.0.0", "0.1.2.3", "10.0.0.1", "172.16.0.1", "172.31.255.255",
                        "192.168.0.1", "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.1", "255.255.255.255",
                        "::1", "::", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "fe80::1", "fc00::1",
                        "fd12:3456::1", "ff02::1", "::127.0.0.1"] {
            #expect(range(refused) != nil, "\(refused)")
        }
        for allowed in ["93.184.216.34", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "192.169.0.1",
                        "169.253.1.1", "2606:2800:220:1::1", "::ffff:93.184.216.34", "2001:db8::1"] {
            #expect(range(allowed) == nil, "\(allowed)")
        }
        for loopback in ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"] {
            #expect(DestinationGuard.isLoopback(listenHost: loopback), "\(loopback)")
        }
        for beyond in ["0.0.0.0", "::", "192.168.1.10", "10.0.0.2", "example.org", "vm"] {
            #expect(!DestinationGuard.isLoopback(listenHost: beyond), "\(beyond)")
        }
        // Names and odd numeric forms resolve as a connection would read them.
        for name in ["localhost", "127.1", "2130706433", "0x7f000001"] {
            let addresses = try DestinationGuard.resolve(name)
            #expect(!addresses.isEmpty && addresses.allSatisfy { DestinationGuard.range(of: $0.bytes) != nil }, "\(name): \(addresses)")
        }
    }

    @Test func proxyCredentials() throws {
        let credentials = try ProxyCredentials("alice:pa:ss")
        #expect(credentials.user == "alice" && credentials.password == "pa:ss")
        let good = "Basic " + Data("alice:pa:ss".utf8).base64EncodedString()
        #expect(credentials.accepts([good]) && credentials.accepts(["basic  " + Data("alice:pa:ss".utf8).base64EncodedString()]))
        #expect(!credentials.accepts([]) && !credentials.accepts(["Basic " + Data("alice:pa:s".utf8).base64EncodedString()]))
        #expect(!credentials.accepts(["Bearer x", "Basic !!!"]))
        for bad in ["", "alice", ":pw", "alice:", "a\u{7}:b"] {
            #expect(throws: ProxyCredentials.Invalid.self, "\(bad)") { try ProxyCredentials(bad) }
        }
        let one = ProxyCredentials.random()
        let two = ProxyCredentials.random()
        #expect(one.password != two.password && one.password.count == 22)
    }
}
