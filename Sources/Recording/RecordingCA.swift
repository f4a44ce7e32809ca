import Crypto
import Foundation
import NIOSSL
import enum SAMLCore.PrivateFile
import SwiftASN1
import X509

/// The certificate authority `samlharness record` intercepts TLS with: a directory holding
/// `ca.pem` (the certificate a device trusts) and `ca.key` (its private key, mode 0600, never
/// printed, logged or served).
///
/// ``loadOrCreate(at:)`` makes a new one on first use — EC P-256, self-signed, `CA:TRUE,
/// pathlen:0`, `keyCertSign, cRLSign`, two years — unless the directory already holds one (the
/// harness's local test CA from `scripts/setup-tls.sh` is accepted too; its name constraint then
/// limits what can be intercepted to `localhost` and IP addresses).
///
/// Leaves are made on the fly (``leaf(for:)``), one per host, cached for the life of the value:
/// EC P-256, SAN = the host (DNS name or IP address), `serverAuth`, valid from an hour ago for
/// 30 days (under every platform's lifetime cap). Every leaf shares one key, made per run, so a
/// client can pin it (Chromium's `--ignore-certificate-errors-spki-list`, ``leafSPKISHA256``).
public final class RecordingCA: Sendable {
    /// What went wrong with the CA directory, naming the file.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public let directory: URL
    public let certificate: Certificate
    /// `ca.pem` as stored (what devices install).
    public let certificatePEM: String
    private let privateKey: Certificate.PrivateKey
    private let leafKey: P256.Signing.PrivateKey
    private let leafKeyNIO: NIOSSLPrivateKey
    private let leaves: LeafCache

    /// Whether ``loadOrCreate(at:)`` made the CA just now.
    public let created: Bool

    public var certificateURL: URL { directory.appendingPathComponent("ca.pem") }
    public var keyURL: URL { directory.appendingPathComponent("ca.key") }

    /// `ca.pem` as DER (`ca.crt`, the form Android's and iOS's installers take).
    public var certificateDER: [UInt8] {
        (try? certificate.serializeAsPEM().derBytes) ?? []
    }

    /// SHA-256 of the CA certificate's DER, `AA:BB:…` as browsers and OS settings show it.
    public var fingerprintSHA256: String {
        SHA256.hash(data: certificateDER).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// Base64 SHA-256 of every leaf's SubjectPublicKeyInfo (Chromium's
    /// `--ignore-certificate-errors-spki-list`, HPKP's pin format).
    public var leafSPKISHA256: String {
        Data(SHA256.hash(data: leafKey.publicKey.derRepresentation)).base64EncodedString()
    }

    /// The default directory: `$XDG_DATA_HOME/samlharness/recording-ca` (`~/.local/share/…`).
    public static var defaultDirectory: URL {
        dataHome.appendingPathComponent("samlharness/recording-ca", isDirectory: true)
    }

    static var dataHome: URL {
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
    }

    private init(directory: URL, certificate: Certificate, certificatePEM: String, privateKey: Certificate.PrivateKey,
                 created: Bool) throws {
        self.directory = directory
        self.certificate = certificate
        self.certificatePEM = certificatePEM
        self.privateKey = privateKey
        self.created = created
        leafKey = P256.Signing.PrivateKey()
        leafKeyNIO = try NIOSSLPrivateKey(bytes: Array(leafKey.pemRepresentation.utf8), format: .pem)
        leaves = LeafCache()
    }

    /// Loads the CA in `directory`, or makes one there when it holds neither file.
    public static func loadOrCreate(at directory: URL, now: Date = Date()) throws -> RecordingCA {
        let manager = FileManager.default
        let certURL = directory.appendingPathComponent("ca.pem")
        let keyURL = directory.appendingPathComponent("ca.key")
        let hasCert = manager.fileExists(atPath: certURL.path)
        let hasKey = manager.fileExists(atPath: keyURL.path)
        if hasCert != hasKey {
            throw Failure("\(directory.path) holds \(hasCert ? "ca.pem but no ca.key" : "ca.key but no ca.pem"); "
                + "remove it (samlharness recording-ca remove) or restore the missing file")
        }
        if hasCert { return try load(from: directory) }
        return try create(at: directory, now: now)
    }

    /// Loads an existing CA; fails naming the file when it is missing or unreadable.
    public static func load(from directory: URL) throws -> RecordingCA {
        let certURL = directory.appendingPathComponent("ca.pem")
        let keyURL = directory.appendingPathComponent("ca.key")
        let certPEM: String
        let keyPEM: String
        do {
            certPEM = try String(contentsOf: certURL, encoding: .utf8)
            keyPEM = try String(contentsOf: keyURL, encoding: .utf8)
        } catch {
            throw Failure("cannot read the recording CA in \(directory.path): \(error.localizedDescription)")
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: certPEM)
        } catch {
            throw Failure("\(certURL.path) is not a PEM certificate: \(error)")
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: keyPEM)
        } catch {
            throw Failure("\(keyURL.path) is not a PEM private key this tool can sign with (EC P-256/P-384/P-521 or RSA): \(error)")
        }
        guard key.publicKey == certificate.publicKey else {
            throw Failure("\(keyURL.path) is not the key of \(certURL.path)")
        }
        let constraints = try? certificate.extensions.basicConstraints
        guard case .isCertificateAuthority = constraints else {
            throw Failure("\(certURL.path) is not a CA certificate (basicConstraints CA:TRUE missing)")
        }
        if certificate.notValidAfter < Date() {
            throw Failure("\(certURL.path) expired on \(certificate.notValidAfter); remove it (samlharness recording-ca remove) and record again to make a new one")
        }
        return try RecordingCA(directory: directory, certificate: certificate, certificatePEM: certPEM,
                               privateKey: key, created: false)
    }

    private static func create(at directory: URL, now: Date) throws -> RecordingCA {
        let manager = FileManager.default
        do {
            try PrivateFile.makeDirectory(directory.path)
        } catch {
            throw Failure("cannot make the recording CA directory \(directory.path): \(error)")
        }
        let key = P256.Signing.PrivateKey()
        let caKey = Certificate.PrivateKey(key)
        let host = ProcessInfo.processInfo.hostName
        let day = now.formatted(.iso8601.year().month().day())
        let name = try DistinguishedName {
            OrganizationName("SAMLHarness")
            OrganizationalUnitName("samlharness record on \(host), made \(day)")
            CommonName("SAMLHarness recording CA")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: caKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(730 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: caKey.publicKey)
            },
            issuerPrivateKey: caKey)
        let certPEM = try certificate.serializeAsPEM().pemString + "\n"
        let keyURL = directory.appendingPathComponent("ca.key")
        let certURL = directory.appendingPathComponent("ca.pem")
        // The key file is created 0600 before a byte of it is written (PrivateFile).
        do {
            try PrivateFile.write(key.pemRepresentation, to: keyURL.path)
        } catch {
            throw Failure("cannot write \(keyURL.path): \(error)")
        }
        guard manager.createFile(atPath: certURL.path, contents: Data(certPEM.utf8),
                                 attributes: [.posixPermissions: 0o644]) else {
            throw Failure("cannot write \(certURL.path)")
        }
        return try RecordingCA(directory: directory, certificate: certificate, certificatePEM: certPEM,
                               privateKey: caKey, created: true)
    }

    /// Removes `ca.pem` and `ca.key` (and the directory when that leaves it empty). Returns
    /// whether there was anything to remove.
    @discardableResult
    public static func remove(at directory: URL) throws -> Bool {
        let manager = FileManager.default
        var removed = false
        for name in ["ca.key", "ca.pem"] {
            let url = directory.appendingPathComponent(name)
            if manager.fileExists(atPath: url.path) {
                try manager.removeItem(at: url)
                removed = true
            }
        }
        if let rest = try? manager.contentsOfDirectory(atPath: directory.path), rest.isEmpty {
            try? manager.removeItem(at: directory)
        }
        return removed
    }

    // MARK: - Leaves

    /// The TLS server context presenting a leaf for `host` (made once, then cached).
    public func serverContext(for host: String) throws -> NIOSSLContext {
        if let cached = leaves.context(for: host) { return cached }
        let leafPEM = try leafPEM(for: host)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(leafPEM.utf8), format: .pem))],
            privateKey: .privateKey(leafKeyNIO))
        // HTTP/1.1 only towards the client: the proxy records HTTP/1.1 exchanges.
        configuration.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: configuration)
        return leaves.store(context, for: host)
    }

    /// A leaf certificate for `host`, PEM.
    public func leafPEM(for host: String, now: Date = Date()) throws -> String {
        let name: GeneralName
        if let ip = Self.ipAddressBytes(host) {
            name = .ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip)))
        } else {
            name = .dnsName(host)
        }
        let publicKey = Certificate.PublicKey(leafKey.publicKey)
        // No CN for an IP address: OpenSSL checks a CN that parses as a host name against a
        // CA's DNS name constraints (the local test CA permits only `localhost`).
        let isIP = Self.ipAddressBytes(host) != nil
        let subject = try DistinguishedName {
            OrganizationName("SAMLHarness recording proxy")
            if !isIP { CommonName(String(host.prefix(64))) }
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86400),
            issuer: certificate.subject, subject: subject, signatureAlgorithm: Self.signatureAlgorithm(for: privateKey),
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([name])
                SubjectKeyIdentifier(hash: publicKey)
                if let ski = try? certificate.extensions.subjectKeyIdentifier {
                    AuthorityKeyIdentifier(keyIdentifier: ski.keyIdentifier)
                }
            },
            issuerPrivateKey: privateKey)
        return try leaf.serializeAsPEM().pemString + "\n"
    }

    static func signatureAlgorithm(for key: Certificate.PrivateKey) -> Certificate.SignatureAlgorithm {
        let publicKey = key.publicKey
        if P256.Signing.PublicKey(publicKey) != nil { return .ecdsaWithSHA256 }
        if P384.Signing.PublicKey(publicKey) != nil { return .ecdsaWithSHA384 }
        if P521.Signing.PublicKey(publicKey) != nil { return .ecdsaWithSHA512 }
        return .sha256WithRSAEncryption
    }

    /// The 4 or 16 bytes of an IPv4/IPv6 literal (brackets allowed), nil for a host name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

/// Per-host server contexts, made once.
private final class LeafCache: @unchecked Sendable {
    private let lock = NSLock()
    private var contexts: [String: NIOSSLContext] = [:]

    func context(for host: String) -> NIOSSLContext? {
        lock.withLock { contexts[host.lowercased()] }
    }

    func store(_ context: NIOSSLContext, for host: String) -> NIOSSLContext {
        lock.withLock {
            if let existing = contexts[host.lowercased()] { return existing }
            contexts[host.lowercased()] = context
            return context
        }
    }

    var count: Int { lock.withLock { contexts.count } }
}
