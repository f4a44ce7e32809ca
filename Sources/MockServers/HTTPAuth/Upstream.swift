import Foundation

/// The origin a proxied request is for (RFC 9112 §3.2.2, §3.2.3): taken from an
/// absolute-form target (`GET http://127.0.0.1:8080/x`) when the request still has one, else
/// from `Host` (Hummingbird turns an absolute-form target into its path before a mock sees it;
/// the client's `Host` names the same authority, RFC 9112 §3.2.2).
struct Upstream: Sendable, Equatable {
    /// The host as written (`127.0.0.1`, `localhost`, `[::1]`).
    var host: String
    var port: Int
    /// The target in origin-form (`/path?query`), as the origin must receive it.
    var originForm: String
    /// The `Host` field the origin gets: the authority as the client wrote it.
    var hostField: String

    /// `host:port` as written in `Host`.
    var authority: String { "\(host):\(port)" }

    /// The host to open a TCP connection to (IPv6 brackets removed).
    var connectHost: String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Whether the origin is on loopback: `localhost`, `127.0.0.0/8` or `::1`.
    var isLoopback: Bool {
        let name = connectHost.lowercased()
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    init(host: String, port: Int, originForm: String, hostField: String? = nil) {
        self.host = host
        self.port = port
        self.originForm = originForm
        self.hostField = hostField ?? "\(host):\(port)"
    }

    /// The origin of a request received by the proxy, or nil when it names none.
    init?(request: MockRequest) {
        let target = request.target
        if request.isAbsoluteForm, let schemeEnd = target.range(of: "://") {
            guard target[..<schemeEnd.lowerBound].lowercased() == "http" else { return nil }
            let rest = target[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = String(rest[..<authorityEnd])
            guard let (host, port) = Self.split(authority: authority) else { return nil }
            var path = String(rest[authorityEnd...].prefix { $0 != "#" })
            if !path.hasPrefix("/") { path = "/" + path }
            self.init(host: host, port: port, originForm: path, hostField: authority)
        } else {
            guard let hostField = request.header("Host"), let (host, port) = Self.split(authority: hostField) else {
                return nil
            }
            self.init(host: host, port: port, originForm: target.isEmpty ? "/" : target,
                      hostField: hostField.trimmingCharacters(in: .whitespaces))
        }
    }

    /// Whether this origin is the listener at `origin` (`http://127.0.0.1:1234`) itself; all
    /// loopback names count as the same host.
    func isSame(asOrigin origin: String) -> Bool {
        guard let range = origin.range(of: "://"),
              let (host, port) = Self.split(authority: String(origin[range.upperBound...].prefix { $0 != "/" })) else {
            return false
        }
        let other = Upstream(host: host, port: port, originForm: "/")
        guard port == self.port else { return false }
        return (other.isLoopback && isLoopback) || other.connectHost.lowercased() == connectHost.lowercased()
    }

    /// RFC 9110 §4.2.1 / RFC 3986 §3.2: `host [ ":" port ]`, IPv6 literals in brackets, port 80
    /// by default for http.
    static func split(authority: String) -> (host: String, port: Int)? {
        let trimmed = authority.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.contains("@") else { return nil }
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { return nil }
            let host = String(trimmed[...close])
            let rest = trimmed[trimmed.index(after: close)...]
            if rest.isEmpty { return (host, 80) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
            return (host, port)
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return (trimmed, 80)
        case 2:
            guard !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
            return (String(parts[0]), port)
        default:
            return nil
        }
    }
}
