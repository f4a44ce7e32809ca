import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One raw HTTP/1.x exchange over a new loopback connection, as a client that writes its whole
/// request (head and body) before reading a byte does it (python's `http.client`, raw sockets).
public struct RawHTTPExchange: Sendable {
    /// What arrived until the server closed the connection.
    public var bytes: [UInt8]
    /// How the reading ended: 0 for an orderly close, EAGAIN when it was still open after 10 s.
    public var error: Int32
    /// Bytes of the request the server took (all of them when it read the whole body).
    public var sent: Int

    public var text: String { String(decoding: bytes, as: UTF8.self) }
    public var statusLine: String { text.components(separatedBy: "\r\n").first ?? "" }

    /// The values of a header of the first answer.
    public func header(_ name: String) -> [String] {
        text.components(separatedBy: "\r\n\r\n").first?.components(separatedBy: "\r\n")
            .filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) } ?? []
    }

    /// How many answers (status lines) arrived.
    public var answers: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }

    /// Sends `head`, then `bodyBytes` bytes of body, then reads until the server closes (at
    /// most 10 s for each read and write), on a thread of its own: a blocking socket must never
    /// hold a thread of the cooperative pool the in-process mocks answer from.
    /// `readSeconds`: how long one read waits (the exchange ends with EAGAIN after that).
    public static func send(port: Int, head: String, bodyBytes: Int = 0, readSeconds: Int = 10) async throws -> RawHTTPExchange {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try sendBlocking(port: port, head: head, bodyBytes: bodyBytes, readSeconds: readSeconds) })
            }.start()
        }
    }

    static func sendBlocking(port: Int, head: String, bodyBytes: Int, readSeconds: Int = 10) throws -> RawHTTPExchange {
        guard let fd = LoopbackSocket.open(port: port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: readSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        let headBytes = Array(head.utf8)
        sent += headBytes.withUnsafeBufferPointer { max(0, Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))) }
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        var left = bodyBytes
        while left > 0 {
            let count = chunk.withUnsafeBufferPointer {
                Glibc.send(fd, $0.baseAddress, min(left, $0.count), Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { break }
            sent += count
            left -= count
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { bytes += buffer[0..<count]; continue }
            return RawHTTPExchange(bytes: bytes, error: count == 0 ? 0 : errno, sent: sent)
        }
    }

    /// The head of a form POST of `bodyBytes` bytes to `path`.
    public static func postHead(_ path: String, port: Int, bodyBytes: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(bodyBytes)\r\n\r\n"
    }
}
