import Foundation
import NIOSSL

/// The TLS identity the mocks serve https with: the server certificate and key that
/// `scripts/setup-tls.sh` issues from the machine's local test CA (name-constrained to
/// 127.0.0.0/8, ::1 and `localhost`). Clients trust `caFile` (the runner passes it as
/// `SAMLH_CA_FILE`; the setup script also adds it to the system store).
///
/// ```swift
/// let tls = try MockTLS.load()          // $SAMLH_TLS_DIR or ~/.local/share/samlharness/tls
/// let servers = try await MockServerGroup.start([.init(handler: sp, tls: tls)], log: log)
/// ```
public struct MockTLS: Sendable {
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder holding `ca.pem`, `server.pem` and `server.key`.
    public let directory: URL
    /// The server configuration: the certificate chain (leaf, then the CA) and the key.
    public let configuration: TLSConfiguration
    /// The fault this identity presents (nil: the good certificate every client should trust).
    public var fault: TLSFault?

    /// The CA certificate clients must trust.
    public var caFile: URL { directory.appendingPathComponent("ca.pem") }

    /// Where the material lives: `SAMLH_TLS_DIR`, else `$XDG_DATA_HOME/samlharness/tls`,
    /// else `~/.local/share/samlharness/tls` (what `scripts/setup-tls.sh` writes).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dir = environment["SAMLH_TLS_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return data.appendingPathComponent("samlharness/tls")
    }

    /// Whether the material exists (the files are there; ``load(from:)`` still checks them).
    public static func isSetUp(in directory: URL = defaultDirectory()) -> Bool {
        ["ca.pem", "server.pem", "server.key"].allSatisfy {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
    }

    /// Loads the server certificate, the CA and the key from `directory`; with `fault`, the
    /// faulty chain and key `scripts/setup-tls.sh` made under `faults/FAULT/` (served exactly
    /// as that `server.pem` lists it), or for ``TLSFault/legacyProtocol`` the good certificate
    /// offered over TLS 1.0 and 1.1 only.
    public static func load(from directory: URL = defaultDirectory(), fault: TLSFault? = nil) throws -> MockTLS {
        guard isSetUp(in: directory) else {
            throw LoadError(description: "no TLS material in \(directory.path) (ca.pem, server.pem, server.key): "
                + "run `bash scripts/setup-tls.sh` (installed: `bash /usr/share/samlharness/scripts/setup-tls.sh`, or "
                + "share/samlharness/scripts/setup-tls.sh of the tarball), or set SAMLH_TLS_DIR")
        }
        let faultDirectory = fault?.directoryName.map { directory.appendingPathComponent("faults/\($0)") }
        if let faultDirectory, !["server.pem", "server.key"].allSatisfy({
            FileManager.default.fileExists(atPath: faultDirectory.appendingPathComponent($0).path)
        }) {
            throw LoadError(description: "no certificate for the `\(fault!.rawValue)` fault in \(faultDirectory.path) "
                + "(server.pem, server.key): run `bash scripts/setup-tls.sh` again (it makes the faults since issue 21)")
        }
        do {
            var configuration: TLSConfiguration
            if let faultDirectory {
                let chain = try NIOSSLCertificate.fromPEMFile(faultDirectory.appendingPathComponent("server.pem").path)
                let key = try NIOSSLPrivateKey(file: faultDirectory.appendingPathComponent("server.key").path, format: .pem)
                guard !chain.isEmpty else { throw LoadError(description: "faults/\(fault!.rawValue)/server.pem holds no certificate") }
                configuration = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            } else {
                let leaf = try NIOSSLCertificate.fromPEMFile(directory.appendingPathComponent("server.pem").path)
                let ca = try NIOSSLCertificate.fromPEMFile(directory.appendingPathComponent("ca.pem").path)
                let key = try NIOSSLPrivateKey(file: directory.appendingPathComponent("server.key").path, format: .pem)
                guard !leaf.isEmpty else { throw LoadError(description: "server.pem holds no certificate") }
                configuration = TLSConfiguration.makeServerConfiguration(
                    certificateChain: (leaf + ca).map { .certificate($0) }, privateKey: .privateKey(key))
            }
            if fault == .legacyProtocol {
                configuration.minimumTLSVersion = .tlsv1
                configuration.maximumTLSVersion = .tlsv11
            }
            return MockTLS(directory: directory, configuration: configuration, fault: fault)
        } catch let error as LoadError {
            throw LoadError(description: "TLS material in \(directory.path): \(error.description)")
        } catch {
            throw LoadError(description: "TLS material in \(directory.path) is unreadable (\(error)): "
                + "run `bash scripts/setup-tls.sh` again")
        }
    }
}
