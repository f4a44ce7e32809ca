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

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        guard let fd = open(port: port) else { return false }
        close(fd)
        return true
    }
}
