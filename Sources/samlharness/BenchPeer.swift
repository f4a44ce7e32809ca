import Foundation
import Logging
import MockServers

/// Items 3 and 4 of issue 9, the peer side: the same Web SSO loop against a real IdP on this
/// machine — SimpleSAMLphp from Debian (exampleauth:UserPass), set up by
/// scripts/setup-peer-idp.sh and served by `php -S` on loopback — with the same client
/// (``BenchWebSSOClient``) and the same mock SP, trusting the peer's key. The mock side of the
/// ratio runs the same client against the mock IdP's `simplesamlphp` personality (same page
/// shapes, both signatures), so the two differ only in the IdP.
struct PeerComparison: Codable, Sendable {
    /// What scripts/setup-peer-idp.sh writes (peer.json).
    struct Setup: Decodable {
        let name: String
        let version: String
        let php: String
        let docroot: String
        let configDir: String
        let sessionsDir: String
        let username: String
        let password: String
    }

    struct Ratio: Codable, Sendable {
        var concurrency: Int
        var mockLoginsPerSecond: Double
        var peerLoginsPerSecond: Double
        var ratio: Double
        /// Median IdP time per login (the IdP's requests only), mock and peer, and peer/mock.
        var mockIdPMilliseconds: Double?
        var peerIdPMilliseconds: Double?
        var idpRatio: Double?
    }

    var peer: String
    var version: String?
    /// Why the peer was not measured (nil when it was).
    var skipped: String?
    var mock: [LoginThroughput] = []
    var peerLogins: [LoginThroughput] = []
    var ratios: [Ratio] = []
    /// `php -S` exec → the first complete login through it, per run (ms).
    var peerStartupRunsMilliseconds: [Double] = []
    var peerStartupMedianMilliseconds: Double?
    var phpServerWorkers: Int?
    var errors: [String] = []

    static func skipped(_ peer: String, _ reason: String) -> PeerComparison {
        PeerComparison(peer: peer, skipped: reason)
    }

    static func run(peer: String, setupDirectory: URL, mockIdPDirectory: URL, seconds: Double, concurrencies: [Int],
                    startupRuns: Int, workers: Int, logger: Logger) async -> PeerComparison {
        let file = setupDirectory.appendingPathComponent("peer.json")
        guard let data = try? Data(contentsOf: file), let setup = try? JSONDecoder().decode(Setup.self, from: data) else {
            return .skipped(peer, "the peer is not set up (\(file.path) is missing): run scripts/setup-peer-idp.sh")
        }
        guard FileManager.default.isExecutableFile(atPath: setup.php),
              FileManager.default.fileExists(atPath: setup.docroot + "/simplesaml/saml2/idp/SSOService.php") else {
            return .skipped(peer, "\(setup.php) or SimpleSAMLphp under \(setup.docroot) is missing: run scripts/setup-peer-idp.sh")
        }
        var result = PeerComparison(peer: peer, version: setup.version, phpServerWorkers: workers)
        do {
            result.mock = try await measureMock(mockIdPDirectory: mockIdPDirectory, seconds: seconds,
                                                concurrencies: concurrencies, logger: logger)
            try await measurePeer(setup, into: &result, mockIdPDirectory: mockIdPDirectory, seconds: seconds,
                                  concurrencies: concurrencies, startupRuns: startupRuns, workers: workers, logger: logger)
        } catch {
            result.errors.append("\(error)")
        }
        for peerCell in result.peerLogins {
            guard let mockCell = result.mock.first(where: { $0.concurrency == peerCell.concurrency }),
                  peerCell.loginsPerSecond > 0 else { continue }
            var ratio = Ratio(concurrency: peerCell.concurrency, mockLoginsPerSecond: mockCell.loginsPerSecond,
                              peerLoginsPerSecond: peerCell.loginsPerSecond,
                              ratio: BenchFormat.round(mockCell.loginsPerSecond / peerCell.loginsPerSecond, 1))
            if let mockIdP = mockCell.idpP50Milliseconds, let peerIdP = peerCell.idpP50Milliseconds, mockIdP > 0 {
                ratio.mockIdPMilliseconds = mockIdP
                ratio.peerIdPMilliseconds = peerIdP
                ratio.idpRatio = BenchFormat.round(peerIdP / mockIdP, 1)
            }
            result.ratios.append(ratio)
        }
        return result
    }

    /// The same client against the mock IdP's simplesamlphp personality.
    static func measureMock(mockIdPDirectory: URL, seconds: Double, concurrencies: [Int],
                            logger: Logger) async throws -> [LoginThroughput] {
        let loaded = try LoadedProfile.load(named: "simplesamlphp", from: mockIdPDirectory)
        let suite = try await MockSuite.start(profile: loaded, mockIdPDirectory: mockIdPDirectory, logger: logger)
        let secure = suite.readyInfo().sp.secure
        let users = loaded.profile.users.filter { $0.secondFactorCode == nil }
            .map { TestUser(username: $0.username, password: $0.password) }
        var cells: [LoginThroughput] = []
        for concurrency in concurrencies {
            let client = LoginThroughput.makeClient()
            cells.append(await LoginThroughput.measure(flow: "web-sso", target: "mocks (simplesamlphp personality)",
                                                       concurrency: concurrency, seconds: seconds) { user in
                try await BenchWebSSOClient(client: client, secureURL: secure, user: users[user % users.count]).login()
            })
            await client.shutdown()
            suite.sp.reset()
            suite.log.removeAll()
        }
        await suite.stop()
        return cells
    }

    /// The mock SP pointed at SimpleSAMLphp: its IdP base URL replaced by the peer's, so its
    /// AuthnRequest goes to the peer's SSOService.php and it trusts the peer's entity ID
    /// (`{base}/simplesaml/saml2/idp/metadata.php`) under the key the peer signs with.
    static func measurePeer(_ setup: Setup, into result: inout PeerComparison, mockIdPDirectory: URL, seconds: Double,
                            concurrencies: [Int], startupRuns: Int, workers: Int, logger: Logger) async throws {
        let loaded = try LoadedProfile.load(named: "simplesamlphp", from: mockIdPDirectory)
        let suite = try await MockSuite.start(profile: loaded, mockIdPDirectory: mockIdPDirectory, logger: logger)
        let client = LoginThroughput.makeClient()
        do {
            try await measurePeer(setup, suite: suite, client: client, into: &result, seconds: seconds,
                                  concurrencies: concurrencies, startupRuns: startupRuns, workers: workers)
        } catch {
            await client.shutdown()
            await suite.stop()
            throw error
        }
        await client.shutdown()
        await suite.stop()
    }

    static func measurePeer(_ setup: Setup, suite: MockSuite, client: LoadHTTPClient, into result: inout PeerComparison,
                            seconds: Double, concurrencies: [Int], startupRuns: Int, workers: Int) async throws {
        guard let port = BenchProcess.freeLoopbackPort() else { throw BenchWebSSOClient.Failure(description: "no free port") }
        suite.environment.setBaseURL("http://127.0.0.1:\(port)", for: "idp")
        let ready = suite.readyInfo()
        let user = TestUser(username: setup.username, password: setup.password)
        var environment = ProcessInfo.processInfo.environment
        environment["SIMPLESAMLPHP_CONFIG_DIR"] = setup.configDir
        environment["SAMLH_PEER_SP_ENTITY_ID"] = ready.sp.entityID
        environment["SAMLH_PEER_SP_ACS"] = ready.sp.acs
        environment["PHP_CLI_SERVER_WORKERS"] = String(workers)
        // Production-like PHP: opcache on (php-fpm deployments have it), sessions in the
        // private directory.
        let arguments = ["-d", "opcache.enable_cli=1", "-d", "session.save_path=\(setup.sessionsDir)",
                         "-S", "127.0.0.1:\(port)", "-t", setup.docroot]
        let serverLog = URL(fileURLWithPath: setup.sessionsDir).deletingLastPathComponent()
            .appendingPathComponent("log/php-server.log").path
        func start() throws -> BenchProcess {
            clearSessions(setup.sessionsDir)
            return try BenchProcess(executable: setup.php, arguments: arguments, environment: environment,
                                    stdoutFile: serverLog, stderrFile: serverLog + ".err")
        }
        // Start-up: exec → the first complete login (the peer has no ready line; a login
        // proves everything is up, PHP's first compilation of SimpleSAMLphp included).
        let probe = BenchWebSSOClient(client: client, secureURL: ready.sp.secure, user: user)
        for _ in 0..<startupRuns {
            let process = try start()
            var lastError = ""
            var done = false
            while !done, ContinuousClock.now < process.started + .seconds(30) {
                do {
                    _ = try await probe.login()
                    done = true
                } catch {
                    lastError = "\(error)"
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            let elapsed = BenchProcess.seconds(ContinuousClock.now - process.started) * 1000
            process.terminate(grace: .seconds(5))
            guard done else {
                throw BenchWebSSOClient.Failure(description: "no login through SimpleSAMLphp within 30 s: \(lastError)")
            }
            result.peerStartupRunsMilliseconds.append(BenchFormat.round(elapsed, 1))
        }
        result.peerStartupMedianMilliseconds = BenchFormat.round(BenchFormat.median(result.peerStartupRunsMilliseconds), 1)
        // Throughput, on a fresh server warmed up by the measurement's own warm-up logins.
        let process = try start()
        defer { process.terminate(grace: .seconds(5)) }
        var up = false
        while !up, ContinuousClock.now < process.started + .seconds(30) {
            up = (try? await probe.login()) != nil
            if !up { try await Task.sleep(for: .milliseconds(5)) }
        }
        for concurrency in concurrencies {
            let pool = LoginThroughput.makeClient()
            result.peerLogins.append(await LoginThroughput.measure(flow: "web-sso", target: "SimpleSAMLphp \(setup.version) (php -S)",
                                                                   concurrency: concurrency, seconds: seconds, warmUp: 5) { _ in
                try await BenchWebSSOClient(client: pool, secureURL: ready.sp.secure, user: user).login()
            })
            await pool.shutdown()
            suite.sp.reset()
            suite.log.removeAll()
        }
    }

    /// Removes the PHP session files of earlier runs (only `sess_*` in the peer's own directory).
    static func clearSessions(_ directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix("sess_") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}
