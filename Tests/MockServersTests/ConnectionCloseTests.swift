import Foundation
import MockServers
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Connections end as RFC 9112 says: a body over the limit gets its 413 and a closed connection
/// (a lingering close: the rest of the body is read and dropped), and an HTTP/1.0 request without
/// keep-alive gets its answer and then the close it reads to (§9.3). Every mock listener runs on
/// the same HTTP/1 channel (``MockServerGroup``), the replay's included.
@Suite struct ConnectionCloseTests {
    /// What a raw connection got: the bytes until the server closed it, and how it ended
    /// (0: orderly close; EAGAIN: still open when the read timed out).
    struct Exchange {
        var bytes: [UInt8]
        var error: Int32
        var sent: Int
        var text: String { String(decoding: bytes, as: UTF8.self) }
        var statusLine: String { text.components(separatedBy: "\r\n").first ?? "" }
        func header(_ name: String) -> [String] {
            text.components(separatedBy: "\r\n\r\n").first?.components(separatedBy: "\r\n")
                .filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) } ?? []
        }

        /// How many answers (status lines) arrived.
        var answers: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
    }

    /// Sends `head` and then `bodyBytes` bytes of body the way python's `http.client` does —
    /// all of it before reading a byte — then reads until the server closes (10 s at most).
    static func send(port: Int, head: String, bodyBytes: Int = 0) throws -> Exchange {
        guard let fd = LoopbackSocket.open(port: port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
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
            return Exchange(bytes: bytes, error: count == 0 ? 0 : errno, sent: sent)
        }
    }

    /// ``send(port:head:bodyBytes:)`` on a thread of its own, off the cooperative pool the mocks
    /// answer from.
    static func sendOffPool(port: Int, head: String, bodyBytes: Int = 0) async throws -> Exchange {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try send(port: port, head: head, bodyBytes: bodyBytes) }) }.start()
        }
    }

    static func port(_ base: String?) throws -> Int {
        let base = try #require(base)
        return try #require(URLComponents(string: base)?.port)
    }

    @Test(arguments: ["sp", "idp", "auth", "proxy", "control", "cas", "adfs", "cm"])
    func aTwentyMegabyteBodyGets413AndAClosedConnection(_ mock: String) async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let port = try Self.port(suite.servers.baseURL(of: mock))
            let size = 20 * 1024 * 1024
            let head = "POST /Shibboleth.sso/SAML2/POST HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(size)\r\n\r\n"
            let exchange = try await Self.sendOffPool(port: port, head: head, bodyBytes: size)
            #expect(exchange.statusLine.hasPrefix("HTTP/1.1 413"), "\(mock): \(exchange.statusLine)")
            #expect(exchange.header("Connection") == ["close"], "\(mock): \(exchange.header("Connection"))")
            #expect(exchange.error == 0, "\(mock): the connection was not closed (errno \(exchange.error))")
            #expect(exchange.sent == head.utf8.count + size, "\(mock): the whole body was read and dropped")
            let entry = try #require(suite.log.entries.last { $0.mock == mock })
            #expect(entry.response?.status == 413)
            #expect(entry.annotations["refused"] == "body.too-large")
        }
    }

    @Test func anHTTP10RequestIsAnsweredAndTheConnectionClosed() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let port = try Self.port(suite.servers.baseURL(of: "sp"))
            let exchange = try await Self.sendOffPool(port: port, head: "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(exchange.statusLine == "HTTP/1.1 200 OK")
            #expect(exchange.header("Connection") == ["close"])
            #expect(exchange.error == 0, "the connection was left open (errno \(exchange.error))")
            let length = try #require(Int(exchange.header("Content-Length").first ?? ""))
            let body = exchange.text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            #expect(body.utf8.count == length, "the whole answer arrived before the close")
        }
    }

    @Test func anHTTP10KeepAliveConnectionStaysOpenUntilTheClientSaysClose() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let port = try Self.port(suite.servers.baseURL(of: "sp"))
            let head = "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
                + "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
            let exchange = try await Self.sendOffPool(port: port, head: head)
            #expect(exchange.answers == 2, "both requests answered on one connection")
            #expect(exchange.header("Connection") == ["keep-alive"], "the first answer keeps the connection")
            #expect(exchange.text.contains("Connection: close"), "the second answer closes it")
            #expect(exchange.error == 0)
        }
    }

    @Test func anHTTP11ConnectionStaysOpen() async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let port = try Self.port(suite.servers.baseURL(of: "sp"))
            let head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            let exchange = try await Self.sendOffPool(port: port, head: head)
            #expect(exchange.answers == 2)
            #expect(exchange.header("Connection").isEmpty, "the first answer keeps the connection")
            #expect(exchange.text.contains("Connection: close"), "the answer to `Connection: close` says close")
            #expect(exchange.error == 0)
        }
    }
}
