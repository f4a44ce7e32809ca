import ArgumentParser
import Foundation
import SAMLCore

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Generate a test key and a self-signed certificate (PEM).",
        discussion: """
        Writes NAME-key.pem and NAME-cert.pem into --out-dir, or prints both to standard \
        output when --out-dir is not given. Test keys only: never use them for production.
        """
    )

    @Option(help: "Key type: \(KeyGenerator.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")).")
    var algorithm: String = "rsa2048"

    @Option(name: .customLong("cn"), help: "Certificate subject common name.")
    var commonName: String = "samlharness-test"

    @Option(help: "Validity in days.")
    var days: Int = 3650

    @Option(help: "File name stem for the written files.")
    var name: String = "samlharness"

    @Option(help: "Directory to write NAME-key.pem and NAME-cert.pem into.")
    var outDir: String?

    @Flag(help: "Overwrite existing files.")
    var force = false

    func run() throws {
        guard let algo = KeyGenerator.Algorithm(rawValue: algorithm) else {
            throw ValidationError("--algorithm \(algorithm) is not one of \(KeyGenerator.Algorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard days > 0 else { throw ValidationError("--days must be positive") }
        let pair = try KeyGenerator.generate(algo, commonName: commonName, days: days)
        guard let outDir else {
            print(pair.privateKey.pem, terminator: "")
            print(pair.certificate.pem, terminator: "")
            return
        }
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let keyPath = (outDir as NSString).appendingPathComponent("\(name)-key.pem")
        let certPath = (outDir as NSString).appendingPathComponent("\(name)-cert.pem")
        for path in [keyPath, certPath] where FileManager.default.fileExists(atPath: path) && !force {
            throw ValidationError("\(path) exists; pass --force to overwrite")
        }
        // Mode 0600 from its creation: never readable by another user, not even for a moment.
        try PrivateFile.write(pair.privateKey.pem, to: keyPath)
        try pair.certificate.pem.write(toFile: certPath, atomically: true, encoding: .utf8)
        print("wrote \(keyPath) and \(certPath) (\(algo.rawValue), CN=\(commonName), \(days) days)")
    }
}
