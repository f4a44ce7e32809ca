import ArgumentParser
import Foundation
import SAMLCore

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure signing and verification throughput against OpenSSL's raw RSA rate.",
        discussion: """
        One thread, one core. Measures, in the same run: OpenSSL's raw RSA-2048 sign rate \
        (`openssl speed rsa2048` when the openssl CLI is present, and a direct EVP loop in \
        this process), then signed SAML Responses per second (parse + enveloped signature + \
        serialise) and verifications per second (parse + hardened verification). Prints a \
        table and writes JSON with --json.
        """
    )

    @Option(help: "Seconds per measurement.")
    var seconds: Double = 2

    @Option(help: "Write the figures as JSON to this file.")
    var json: String?

    @Option(help: "Directory holding idp-key.pem and idp-cert.pem.")
    var keys: String = "MockIdP/keys"

    @Flag(help: "Skip `openssl speed` (use only the in-process EVP baseline).")
    var noOpensslSpeed = false

    func run() throws {
        let key = try PrivateKey(contentsOf: URL(fileURLWithPath: "\(keys)/idp-key.pem"))
        let cert = try Certificate(contentsOf: URL(fileURLWithPath: "\(keys)/idp-cert.pem"))
        let report = try SigningBenchmark(key: key, certificate: cert, seconds: seconds,
                                          runOpenSSLSpeed: !noOpensslSpeed).run()
        print(report.table)
        if let json {
            try report.jsonData().write(to: URL(fileURLWithPath: json))
            print("wrote \(json)")
        }
    }
}
