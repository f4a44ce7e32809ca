import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import MockServers
import NIOCore
import SAMLCore

/// `samlharness load`: many concurrent Web SSO logins through the mocks on loopback, then a
/// check that every login got its own secret and that the traffic log holds every exchange.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Run concurrent Web SSO logins through the mocks (loopback only) and report latency and throughput.")

    @Option(help: "Logins in all (at most 20000).")
    var logins = 1000

    @Option(help: "Logins in flight at once.")
    var concurrency = 1000

    @Option(help: "The IdP profile (form login with consent by default).")
    var profile = "shibboleth"

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory.")
    var mockIdPDirectory: String?

    @Option(help: "Also write the figures as JSON to this file.")
    var json: String?

    func validate() throws {
        guard (1...20_000).contains(logins) else { throw ValidationError("--logins must be 1…20000") }
        guard (1...5_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1…5000") }
    }

    struct Figures: Codable {
        var profile: String
        var logins: Int
        var concurrency: Int
        var succeeded: Int
        var failed: Int
        var requests: Int
        var trafficLogEntries: Int
        var trafficLogComplete: Bool
        var distinctSecrets: Int
        var wallSeconds: Double
        var loginsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        var firstErrors: [String]
    }

    func run() async throws {
        var logger = Logger(label: "samlharness.load")
        logger.logLevel = .warning
        let directory = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
        let loaded = try LoadedProfile.load(named: profile, from: directory)
        let suite = try await MockSuite.start(profile: loaded, mockIdPDirectory: directory, logger: logger)
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let users = loaded.profile.users
        let secure = suite.readyInfo().sp.secure
        let started = ContinuousClock.now
        var outcomes: [LoadDriver.Outcome] = []
        var errors: [String] = []
        await withTaskGroup(of: Result<LoadDriver.Outcome, any Error>.self) { group in
            var next = 0
            func launch() {
                let driver = LoadDriver(client: client, secureURL: secure, user: users[next % users.count])
                group.addTask {
                    do { return .success(try await driver.login()) } catch { return .failure(error) }
                }
                next += 1
            }
            while next < min(concurrency, logins) { launch() }
            for await result in group {
                switch result {
                case .success(let outcome): outcomes.append(outcome)
                case .failure(let error): errors.append("\(error)")
                }
                if next < logins { launch() }
            }
        }
        let wall = ContinuousClock.now - started
        try await client.shutdown()
        let entries = suite.log.entries
        await suite.stop()
        let latencies = outcomes.map(\.seconds).sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)] * 1000
        }
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        let requests = outcomes.map(\.requests).reduce(0, +)
        let answered = entries.filter { $0.response != nil }.count
        let figures = Figures(
            profile: profile, logins: logins, concurrency: concurrency, succeeded: outcomes.count, failed: errors.count,
            requests: requests, trafficLogEntries: entries.count,
            trafficLogComplete: errors.isEmpty && entries.count == requests && answered == requests && suite.log.dropped == 0,
            distinctSecrets: Set(outcomes.map(\.secret)).count, wallSeconds: (wallSeconds * 1000).rounded() / 1000,
            loginsPerSecond: (Double(outcomes.count) / wallSeconds * 10).rounded() / 10,
            p50Milliseconds: (percentile(0.50) * 10).rounded() / 10, p99Milliseconds: (percentile(0.99) * 10).rounded() / 10,
            maxMilliseconds: ((latencies.last ?? 0) * 1000 * 10).rounded() / 10, firstErrors: Array(errors.prefix(5)))
        print("""
        load: \(figures.logins) Web SSO logins (\(profile)), \(figures.concurrency) in flight, loopback
          succeeded \(figures.succeeded), failed \(figures.failed), distinct secrets \(figures.distinctSecrets)
          requests \(figures.requests), traffic log entries \(figures.trafficLogEntries) (complete: \(figures.trafficLogComplete))
          wall \(figures.wallSeconds) s, \(figures.loginsPerSecond) logins/s
          login latency p50 \(figures.p50Milliseconds) ms, p99 \(figures.p99Milliseconds) ms, max \(figures.maxMilliseconds) ms
        """)
        for error in figures.firstErrors { print("  error: \(error)") }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(figures).write(to: URL(fileURLWithPath: json))
        }
        if figures.failed > 0 || !figures.trafficLogComplete || figures.distinctSecrets != figures.succeeded {
            throw ExitCode(1)
        }
    }
}
