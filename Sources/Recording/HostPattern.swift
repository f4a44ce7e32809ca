import Foundation

/// One `--allow-host` value: `idp.example.org`, `idp.example.org:8443`, `*.example.org` (any
/// subdomain, not the domain itself), `127.0.0.1`, `[::1]:8443`. Host names compare without
/// regard to case; no port means any port.
public struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let wildcard: Bool
    public let port: Int?

    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw Invalid(description: "--allow-host: an empty host") }
        if trimmed.contains("://") || trimmed.contains("/") {
            throw Invalid(description: "--allow-host \(text): give a host (idp.example.org, idp.example.org:8443, *.example.org), not a URL")
        }
        guard let (host, port) = Authority.split(trimmed) else {
            throw Invalid(description: "--allow-host \(text): not HOST or HOST:PORT")
        }
        if let port, !(1...65535).contains(port) {
            throw Invalid(description: "--allow-host \(text): port \(port) is not 1–65535")
        }
        var name = host.lowercased()
        var wildcard = false
        if name.hasPrefix("*.") {
            wildcard = true
            name.removeFirst(2)
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_:"))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(allowed.contains), !name.contains("*") else {
            throw Invalid(description: "--allow-host \(text): `\(host)` is not a host name or IP address (a leading `*.` is the only wildcard)")
        }
        self.host = name
        self.wildcard = wildcard
        self.port = port
    }

    public func matches(host candidate: String, port candidatePort: Int) -> Bool {
        if let port, port != candidatePort { return false }
        var name = candidate.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if wildcard { return name.hasSuffix("." + host) }
        return name == host
    }

    public var description: String {
        let name = (wildcard ? "*." : "") + (host.contains(":") ? "[\(host)]" : host)
        return port.map { "\(name):\($0)" } ?? name
    }
}

/// `host:port` as written in a CONNECT target, a Host field or a URL authority.
enum Authority {
    /// Splits `host[:port]` (IPv6 in brackets); nil when unreadable.
    static func split(_ text: String) -> (host: String, port: Int?)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else { return nil }
            return (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return parts[0].isEmpty ? nil : (String(parts[0]), nil)
        case 2:
            guard !parts[0].isEmpty, let port = Int(parts[1]) else { return nil }
            return (String(parts[0]), port)
        default:
            // A bare IPv6 address (no port).
            return text.contains("::") || parts.count == 8 ? (text, nil) : nil
        }
    }

    /// `host` with brackets for IPv6, `:port` unless it is the scheme's default.
    static func format(host: String, port: Int, scheme: String) -> String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }
}
