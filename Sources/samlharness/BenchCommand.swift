import ArgumentParser
import Foundation
import Logging
import MockServers
import SAMLCore

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure SAMLHarness against OpenSSL's raw RSA rate, a real IdP, and its own targets, in one run.",
        discussion: """
        Measures, in one run (docs/performance.md): (1) OpenSSL's raw RSA-2048 sign rate \
        (`openssl speed rsa2048` when the openssl CLI is present, and a direct EVP loop in this \
        process), then signed SAML Responses per second (parse + enveloped signature + \
        serialise) and verifications per second, on one thread; (2) complete logins per second \
        through the mocks over loopback HTTP — Web SSO, ECP, CAS REST — with 1 and 2 client \
        connections, p50 and p99; (3) `samlharness serve` from exec to its ready line; (4) with \
        --peer simplesamlphp, the same Web SSO loop against SimpleSAMLphp under php -S \
        (scripts/setup-peer-idp.sh) and the ratio, and the peer's start-up to its first login; \
        (5) with --catalog, the whole catalog against the reference client with --jobs 1 and 2, \
        at --time-scale 0.1 and 1: wall time, scenarios/s, peak RSS. Prints a table, writes JSON with --json-out, and says \
        which of issue 9's targets this run met. Use a release build.
        """
    )

    @Option(help: "Seconds per signing measurement.")
    var seconds: Double = 2

    @Option(name: .customLong("login-seconds"), help: "Seconds per login measurement (each flow and number of connections).")
    var loginSeconds: Double = 3

    @Option(help: "Client connections for the login measurements, comma-separated.")
    var connections = "1,2"

    @Option(name: .customLong("startup-runs"), help: "How many times serve (and the peer) are started to time start-up.")
    var startupRuns = 5

    @Flag(help: "Also run the whole catalog against the reference client with --jobs 1 and 2 (takes minutes).")
    var catalog = false

    @Option(name: .customLong("catalog-jobs"), help: "The --jobs values of the catalog runs, comma-separated.")
    var catalogJobs = "1,2"

    @Option(name: .customLong("catalog-time-scales"),
            help: "The --time-scale values of the catalog runs, comma-separated (each with every --catalog-jobs value).")
    var catalogTimeScales = "0.1,1"

    @Option(name: .customLong("catalog-filter"), help: "Only these scenarios in the catalog runs (as `run --filter`; default: all).")
    var catalogFilter: String?

    @Option(help: "Compare with a real IdP on this machine: simplesamlphp (set up by scripts/setup-peer-idp.sh).")
    var peer: String?

    @Option(name: .customLong("peer-dir"), help: "Where scripts/setup-peer-idp.sh wrote the peer's configuration (default: .build/peer-ssp).")
    var peerDirectory: String?

    @Option(name: .customLong("peer-workers"), help: "PHP_CLI_SERVER_WORKERS for the peer's php -S.")
    var peerWorkers = 2

    @Flag(name: .customLong("signing-only"), help: "Only the signing figures (what bench measured before the other sections).")
    var signingOnly = false

    @Option(name: .customLong("json-out"), help: "Write the figures as JSON to this file.")
    var jsonOut: String?

    @Option(name: .customLong("json"), help: .hidden)
    var deprecatedJSON: String?

    /// `--json-out`, or the older `--json FILE` (deprecated: `--json` alone means JSON on
    /// standard output elsewhere, as in `list --json`).
    var json: String? {
        if let deprecatedJSON {
            FileHandle.standardError.write(Data("note: `--json FILE` is deprecated; use `--json-out FILE`\n".utf8))
            return deprecatedJSON
        }
        return jsonOut
    }

    @Option(help: "Directory holding idp-key.pem and idp-cert.pem (default: MockIdP/keys).")
    var keys: String?

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory (default: found above the working directory).")
    var mockIdPDirectory: String?

    @Flag(help: "Skip `openssl speed` (use only the in-process EVP baseline).")
    var noOpensslSpeed = false

    func validate() throws {
        guard seconds > 0, seconds <= 60 else { throw ValidationError("--seconds must be > 0 and ≤ 60") }
        guard loginSeconds > 0, loginSeconds <= 120 else { throw ValidationError("--login-seconds must be > 0 and ≤ 120") }
        guard (1...50).contains(startupRuns) else { throw ValidationError("--startup-runs must be 1…50") }
        guard (1...16).contains(peerWorkers) else { throw ValidationError("--peer-workers must be 1…16") }
        _ = try Self.counts(connections, option: "--connections", range: 1...64)
        _ = try Self.counts(catalogJobs, option: "--catalog-jobs", range: 1...64)
        _ = try Self.scales(catalogTimeScales)
        if let peer, peer != "simplesamlphp" { throw ValidationError("--peer: the peer this build knows is `simplesamlphp`") }
    }

    static func scales(_ text: String) throws -> [Double] {
        let values = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0.map((0.05...1).contains) == true }) else {
            throw ValidationError("--catalog-time-scales: comma-separated factors in 0.05…1, e.g. 0.1,1")
        }
        return values.compactMap { $0 }
    }

    static func counts(_ text: String, option: String, range: ClosedRange<Int>) throws -> [Int] {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0.map(range.contains) == true }) else {
            throw ValidationError("\(option): comma-separated numbers in \(range.lowerBound)…\(range.upperBound), e.g. 1,2")
        }
        return values.compactMap { $0 }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
        var logger = Logger(label: "samlharness.bench")
        logger.logLevel = .error
        let directory = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
        let keyDirectory = keys ?? directory.appendingPathComponent("keys").path
        let key = try PrivateKey(contentsOf: URL(fileURLWithPath: "\(keyDirectory)/idp-key.pem"))
        let cert = try Certificate(contentsOf: URL(fileURLWithPath: "\(keyDirectory)/idp-cert.pem"))
        let signing = try SigningBenchmark(key: key, certificate: cert, seconds: seconds,
                                           runOpenSSLSpeed: !noOpensslSpeed).run()
        print(signing.table)
        if signingOnly {
            try write(signing.jsonData())
            return
        }
        let connectionCounts = try Self.counts(connections, option: "--connections", range: 1...64)
        let logins = try await BenchMockLogins.run(mockIdPDirectory: directory, profile: "shibboleth", seconds: loginSeconds,
                                                   concurrencies: connectionCounts, logger: logger)
        let executable = BenchProcess.currentExecutable
        let startup = ServeStartup.measure(executable: executable, mockIdPDirectory: directory, runs: startupRuns)
        var comparison: PeerComparison?
        if let peer {
            let setup = peerDirectory.map { URL(fileURLWithPath: $0) }
                ?? directory.deletingLastPathComponent().appendingPathComponent(".build/peer-ssp")
            comparison = await PeerComparison.run(peer: peer, setupDirectory: setup, mockIdPDirectory: directory,
                                                  seconds: loginSeconds, concurrencies: connectionCounts,
                                                  startupRuns: min(startupRuns, 5), workers: peerWorkers, logger: logger)
        } else {
            comparison = .skipped("simplesamlphp", "not asked for: run scripts/setup-peer-idp.sh, then bench --peer simplesamlphp")
        }
        var catalogRuns: [CatalogRun]?
        var catalogSkipped: String? = "not run (add --catalog; it takes minutes)"
        if catalog {
            catalogSkipped = nil
            let jobs = try Self.counts(catalogJobs, option: "--catalog-jobs", range: 1...64)
            catalogRuns = try Self.scales(catalogTimeScales).flatMap { scale in
                jobs.map {
                    CatalogRun.measure(executable: executable, mockIdPDirectory: directory, jobs: $0, timeScale: scale,
                                       filter: catalogFilter)
                }
            }
        }
        let report = BenchReport(signing: signing, logins: logins, serveStartup: startup, catalog: catalogRuns,
                                 catalogSkipped: catalogSkipped, peer: comparison)
        print(report.table)
        try write(report.jsonData())
    }

    private func write(_ data: Data) throws {
        guard let json else { return }
        try data.write(to: URL(fileURLWithPath: json))
        print("wrote \(json)")
    }
}
