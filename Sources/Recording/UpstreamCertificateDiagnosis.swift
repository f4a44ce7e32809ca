import Foundation
import MockServers
import NIOSSL
import SwiftASN1
import X509

/// Says in words why an upstream's certificate failed verification. BoringSSL reports only
/// `CERTIFICATE_VERIFY_FAILED`; the proxy then reads the leaf the server presents (a second
/// handshake with verification off, no request) and names what is wrong with it: expired, not
/// yet valid, issued for other names, self-signed, or from an issuer the trust store lacks.
enum UpstreamCertificateDiagnosis {
    /// `connectHost`: the address to connect to (the one ``DestinationGuard`` checked), when not `host`.
    static func explain(host: String, connectHost: String? = nil, port: Int, serverHostname: String?, error: String) async -> String {
        let brief = summarize(error)
        guard let presented = await UpstreamClient.presentedCertificate(host: connectHost ?? host, port: port,
                                                                        serverHostname: serverHostname),
              let der = try? presented.toDERBytes(), let leaf = try? Certificate(derEncoded: der) else {
            return brief
        }
        return describe(leaf, host: host, now: Date(), brief: brief)
    }

    static func describe(_ leaf: Certificate, host: String, now: Date, brief: String) -> String {
        var problems: [String] = []
        let day = Date.ISO8601FormatStyle().year().month().day()
        if leaf.notValidAfter < now {
            problems.append("it expired on \(leaf.notValidAfter.formatted(day))")
        }
        if leaf.notValidBefore > now {
            problems.append("it is not valid before \(leaf.notValidBefore.formatted(day))")
        }
        let names = subjectNames(of: leaf)
        if !names.isEmpty, !names.contains(where: { matches($0, host: host) }) {
            problems.append("it names \(names.joined(separator: ", ")), not \(host)")
        }
        if leaf.issuer == leaf.subject {
            problems.append("it is self-signed (\(leaf.subject))")
        } else if problems.isEmpty {
            problems.append("its issuer \(leaf.issuer) is not in the trust store, or the server left out an intermediate certificate")
        }
        return problems.joined(separator: "; ") + " [\(brief)]"
    }

    /// DNS and IP names of the leaf's SAN (or its CN when there is no SAN).
    static func subjectNames(of leaf: Certificate) -> [String] {
        var names: [String] = []
        if let san = try? leaf.extensions.subjectAlternativeNames {
            for name in san {
                switch name {
                case .dnsName(let dns): names.append(dns)
                case .ipAddress(let octets): names.append(ipText(Array(octets.bytes)))
                default: break
                }
            }
        }
        if names.isEmpty {
            for rdn in leaf.subject {
                for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                    names.append(String(describing: attribute.value))
                }
            }
        }
        return names
    }

    static func matches(_ name: String, host: String) -> Bool {
        let name = name.lowercased()
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if name == host { return true }
        if name.hasPrefix("*.") {
            let suffix = name.dropFirst(1)
            return host.hasSuffix(suffix) && !host.dropLast(suffix.count).contains(".")
        }
        return false
    }

    static func ipText(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var address = in6_addr()
        guard bytes.count == 16 else { return bytes.map { String(format: "%02x", $0) }.joined() }
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        return inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The handshake error in a few words (BoringSSL's reason, NIOSSL's hostname failure).
    static func summarize(_ error: String) -> String {
        if error.contains("failedToValidateHostname") { return "hostname verification failed" }
        if error.contains("CERTIFICATE_VERIFY_FAILED") { return "CERTIFICATE_VERIFY_FAILED" }
        if error.contains("TLSV1_ALERT_PROTOCOL_VERSION") || error.contains("UNSUPPORTED_PROTOCOL") {
            return "no TLS version in common (the server offers only TLS 1.0/1.1?)"
        }
        return String(error.prefix(300))
    }
}
