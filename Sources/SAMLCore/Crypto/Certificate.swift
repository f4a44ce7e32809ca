import Foundation
internal import CXMLSec

/// An X.509 certificate, immutable once loaded.
public final class Certificate: @unchecked Sendable {
    let x509: OpaquePointer
    /// Base64 DER on one line: the text of `ds:X509Certificate`. Encoded once: metadata, the
    /// signer and the IdP's SP lookup read it on every request.
    public let base64DER: String

    init(adopting x509: OpaquePointer) {
        self.x509 = x509
        base64DER = Data(Self.der(of: x509)).base64EncodedString()
    }

    deinit {
        cxmlsec_x509_free(x509)
    }

    /// Loads a PEM certificate; also accepts the bare base64 DER body (as in metadata's
    /// `ds:X509Certificate`), with or without line breaks.
    public convenience init(pem: String) throws {
        try XMLLibrary.ensureInitialized()
        if !pem.contains("-----BEGIN") {
            try self.init(base64DER: pem)
            return
        }
        let x = pem.withCString { cxmlsec_read_certificate_pem($0, Int32(pem.utf8.count)) }
        guard let x else {
            throw KeyError(.unreadableCertificate, "not a PEM certificate (expected -----BEGIN CERTIFICATE-----)")
        }
        self.init(adopting: x)
    }

    /// Loads DER bytes.
    public convenience init(der: [UInt8]) throws {
        try XMLLibrary.ensureInitialized()
        let x = der.withUnsafeBufferPointer { cxmlsec_read_certificate_der($0.baseAddress, Int32($0.count)) }
        guard let x else {
            throw KeyError(.unreadableCertificate, "not a DER X.509 certificate (\(der.count) bytes)")
        }
        self.init(adopting: x)
    }

    /// Loads base64 DER, whitespace ignored (the content of `ds:X509Certificate`).
    public convenience init(base64DER: String) throws {
        let compact = base64DER.filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: compact) else {
            throw KeyError(.unreadableCertificate, "certificate text is neither PEM nor base64 DER")
        }
        try self.init(der: Array(data))
    }

    /// ``init(base64DER:)`` through a small cache: the certificates of SP metadata and of
    /// `ds:KeyInfo` come back with every login (at most 256 kept; the cache starts over when
    /// full, so a stream of distinct certificates costs only the parse).
    public static func cached(base64DER: String) throws -> Certificate {
        if let known = DERCache.shared.lookup(base64DER) { return known }
        let certificate = try Certificate(base64DER: base64DER)
        DERCache.shared.store(base64DER, certificate)
        return certificate
    }

    private final class DERCache: @unchecked Sendable {
        static let shared = DERCache()
        static let capacity = 256
        private let lock = NSLock()
        private var entries: [String: Certificate] = [:]

        func lookup(_ text: String) -> Certificate? {
            lock.withLock { entries[text] }
        }

        func store(_ text: String, _ certificate: Certificate) {
            lock.withLock {
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[text] = certificate
            }
        }
    }

    /// Loads a PEM certificate file.
    public convenience init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw KeyError(.unreadableCertificate, "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(pem: text)
    }

    /// DER bytes.
    public var der: [UInt8] { Self.der(of: x509) }

    private static func der(of x509: OpaquePointer) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let len = cxmlsec_certificate_der(x509, &out)
        guard len > 0, let out else { return [] }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(len)))
    }

    /// PEM.
    public var pem: String {
        guard let c = cxmlsec_certificate_pem(x509) else { return "" }
        defer { free(c) }
        return String(cString: c)
    }

    /// Subject distinguished name (RFC 2253).
    public var subject: String {
        guard let c = cxmlsec_certificate_subject(x509) else { return "" }
        defer { free(c) }
        return String(cString: c)
    }

    /// End of validity.
    public var notAfter: Date { Date(timeIntervalSince1970: TimeInterval(cxmlsec_certificate_not_after(x509))) }

    /// The certified public key.
    public var publicKey: PublicKey {
        PublicKey(adopting: cxmlsec_certificate_public_key(x509)!)
    }

    /// True when both are the same certificate.
    public func isSame(as other: Certificate) -> Bool { der == other.der }
}
