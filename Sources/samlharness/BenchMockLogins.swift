import Foundation
import Logging
import MockServers

/// Item 2 of issue 9: complete logins per second through the mocks over loopback HTTP, for
/// Web SSO, ECP and CAS REST, with 1 and 2 client connections — the drivers of
/// `samlharness load` (``LoadDriver``), each login with its own cookie jar and ending on its
/// proof (the SP's per-session secret, the CAS user of a fresh ticket).
enum BenchMockLogins {
    static let flows: [LoadDriver.Flow] = [.webSSO, .ecp, .casREST]

    static func run(mockIdPDirectory: URL, profile: String, seconds: Double, concurrencies: [Int],
                    logger: Logger) async throws -> [LoginThroughput] {
        let loaded = try LoadedProfile.load(named: profile, from: mockIdPDirectory)
        let suite = try await MockSuite.start(profile: loaded, mockIdPDirectory: mockIdPDirectory, logger: logger)
        let ready = suite.readyInfo()
        // Users whose password every flow accepts (ECP sends it in a Basic header).
        let users = loaded.profile.users.filter { $0.secondFactorCode == nil }
            .map { TestUser(username: $0.username, password: $0.password) }
        var cells: [LoginThroughput] = []
        for flow in flows {
            for concurrency in concurrencies {
                let client = LoginThroughput.makeClient()
                let cell = await LoginThroughput.measure(flow: flow.rawValue, target: "mocks (\(profile))",
                                                         concurrency: concurrency, seconds: seconds) { user in
                    let driver = LoadDriver(client: client, flow: flow, ready: ready, user: users[user % users.count])
                    return .init(try await driver.login().seconds)
                }
                await client.shutdown()
                cells.append(cell)
                // The SP's sessions and the traffic log grow with every login; start each
                // measurement from the same state.
                suite.sp.reset()
                suite.log.removeAll()
            }
        }
        await suite.stop()
        return cells
    }
}
