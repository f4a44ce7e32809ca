import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `samlharness record` may reach when it listens beyond loopback: never this machine, its
/// network or the cloud's metadata service, unless the user asked (`--allow-private-destinations`).
///
/// A proxy on `0.0.0.0` that forwards anywhere is a way into everything its host can reach:
/// services bound to loopback (the harness's own control API, a database, another user's
/// server), the private network behind it, `169.254.169.254`. The guard resolves a destination
/// once, refuses it when any of its addresses is in one of the ranges below, and otherwise hands
/// back the addresses the proxy then connects to — the very addresses it checked, so a name
/// that resolves to a public address for the check and to `127.0.0.1` for the connection
/// (DNS rebinding) gets nowhere.
enum DestinationGuard {
    /// One resolved address.
    struct Address: Sendable, Equatable {
        /// 4 bytes (IPv4) or 16 (IPv6), network order.
        var bytes: [UInt8]
        /// As written for a connection: `203.0.113.7`, `2001:db8::1`.
        var text: String
    }

    /// Why a destination is refused: the address and the range it is in.
    struct Refusal: Sendable, Equatable {
        var address: String
        var range: String
    }

    /// The outcome of resolving and checking one destination.
    enum Verdict: Sendable {
        /// Connect to these addresses, in this order.
        case allowed([Address])
        case refused(Refusal)
        /// The name did not resolve (`getaddrinfo`'s words).
        case unresolved(String)
    }

    /// Whether the proxy listening on `host` is reachable from loopback only: `127.0.0.0/8`,
    /// `::1`, `::ffff:127.x`, `localhost`. Every other address (`0.0.0.0`, `::`, a LAN address) or
    /// name counts as beyond loopback.
    static func isLoopback(listenHost host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "localhost." { return true }
        guard let bytes = numericAddress(name) else { return false }
        return range(of: bytes)?.hasPrefix("loopback") == true
    }

    /// The range `bytes` is in when the proxy must not reach it; nil for a public address.
    /// RFC 6890's special-purpose registries, the parts that lead back into a machine or its
    /// network.
    static func range(of bytes: [UInt8]) -> String? {
        if bytes.count == 16 {
            // IPv4-mapped ::ffff:a.b.c.d (RFC 4291 §2.5.5.2) and NAT64 64:ff9b::a.b.c.d
            // (RFC 6052): the IPv4 address inside decides.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                return range(of: Array(bytes[12..<16])).map { $0 + ", IPv4-mapped" }
            }
            if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] {
                return range(of: Array(bytes[12..<16])).map { $0 + ", through NAT64" }
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) {
                return bytes[15] == 1 ? "loopback (::1)" : (bytes[15] == 0 ? "unspecified (::)" : "IPv4-compatible (::/96)")
            }
            if bytes[0..<12].allSatisfy({ $0 == 0 }) { return "IPv4-compatible (::/96)" }
            if bytes[0] & 0xfe == 0xfc { return "private (unique local fc00::/7)" }
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return "link-local (fe80::/10)" }
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0xc0 { return "site-local (fec0::/10)" }
            if bytes[0] == 0xff { return "multicast (ff00::/8)" }
            return nil
        }
        guard bytes.count == 4 else { return "not an IP address" }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0: return "unspecified (0.0.0.0/8)"
        case 10: return "private (10.0.0.0/8)"
        case 127: return "loopback (127.0.0.0/8)"
        case 100 where b & 0xc0 == 64: return "shared address space, CGNAT (100.64.0.0/10)"
        case 169 where b == 254: return "link-local (169.254.0.0/16, cloud metadata services)"
        case 172 where b & 0xf0 == 16: return "private (172.16.0.0/12)"
        case 192 where b == 168: return "private (192.168.0.0/16)"
        case 192 where b == 0 && bytes[2] == 0: return "IETF protocol assignments (192.0.0.0/24)"
        case 198 where b & 0xfe == 18: return "benchmarking (198.18.0.0/15)"
        case 224...239: return "multicast (224.0.0.0/4)"
        case 240...255: return "reserved or broadcast (240.0.0.0/4)"
        default: return nil
        }
    }

    /// `text` as address bytes when it is a numeric IPv4 or IPv6 address (inet_pton: the four
    /// dotted decimals only; `127.1` and `0x7f000001` are names here, which ``check(host:port:)``
    /// resolves like any other).
    static func numericAddress(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Resolves `host` (getaddrinfo, on NIO's thread pool) and checks every address it gave:
    /// one in a refused range refuses the destination, whichever the client would have used.
    static func check(host: String) async -> Verdict {
        let addresses: [Address]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive { try resolve(host) }
        } catch {
            return .unresolved("\(error)")
        }
        guard !addresses.isEmpty else { return .unresolved("no address") }
        for address in addresses {
            if let range = range(of: address.bytes) { return .refused(Refusal(address: address.text, range: range)) }
        }
        return .allowed(addresses)
    }

    struct ResolutionFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// getaddrinfo(3) for TCP, every family; numeric forms (`127.1`, `2130706433`) included, as
    /// a connection would read them.
    static func resolve(_ host: String) throws -> [Address] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else { throw ResolutionFailure(description: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var next = list
        while let entry = next {
            defer { next = entry.pointee.ai_next }
            guard let socketAddress = entry.pointee.ai_addr else { continue }
            var bytes: [UInt8]
            switch entry.pointee.ai_family {
            case AF_INET:
                bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var address = pointer.pointee.sin_addr
                    return withUnsafeBytes(of: &address) { Array($0) }
                }
            case AF_INET6:
                bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var address = pointer.pointee.sin6_addr
                    return withUnsafeBytes(of: &address) { Array($0) }
                }
            default:
                continue
            }
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(family, &bytes, &buffer, socklen_t(buffer.count)) != nil else { continue }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let address = Address(bytes: bytes, text: text)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
