import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Raw TCP to 127.0.0.1, for tests that must send exact bytes or probe a port.
public enum LoopbackSocket {
    /// Connects `fd` to 127.0.0.1:`port`; 0 on success, else -1 with `errno` set.
    public static func connect(_ fd: Int32, port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// A new socket connected to 127.0.0.1:`port` (the caller closes it), or nil.
    public static func open(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard connect(fd, port: port) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// A new socket bound to 127.0.0.1:`localPort` (0: any) and connected to 127.0.0.1:`port`,
    /// so a test can make the kernel's reuse of a client port happen on purpose; or nil.
    public static func open(port: Int, localPort: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_port = in_port_t(UInt16(localPort).bigEndian)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connect(fd, port: port) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The local port `fd` is bound to, or nil.
    public static func localPort(of fd: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Closes `fd` with a reset (SO_LINGER 0), leaving no TIME_WAIT behind, so its local port
    /// can be bound again at once.
    public static func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        guard let fd = open(port: port) else { return false }
        close(fd)
        return true
    }
}
