import Foundation
import ReferenceClient
import ReferenceClientNIO
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 server that answers from a script and keeps every request's raw bytes
/// with the connection it came on: what `samlh-reference-client`'s transport put on the wire.
/// Its accept loop and connections run on threads of their own (never the cooperative pool),
/// each read bounded by a receive timeout.
final class ScriptedHTTPServer: @unchecked Sendable {
    enum Reply: Sendable {
        /// These bytes, the connection kept open for the next request.
        case bytes(Data)
        /// These bytes, then a close.
        case bytesThenClose(Data)
        /// These bytes, then a TCP reset.
        case bytesThenReset(Data)
        /// These bytes, then nothing more until the client goes.
        case bytesThenStall(Data)
    }

    struct Received: Sendable {
        var connection: Int
        var head: String
        var body: Data
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var received: [Received] = []
    private var connections = 0
    private let script: @Sendable (Int) -> Reply

    /// `script(n)` answers the n-th request (from 0).
    init(script: @escaping @Sendable (Int) -> Reply) throws {
        self.script = script
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0, let port = LoopbackSocket.localPort(of: fd) else {
            if fd >= 0 { close(fd) }
            throw POSIXError(.EADDRNOTAVAIL)
        }
        listener = fd
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting; the accept thread closes the listener itself, so its descriptor
    /// number cannot be reused by another test's socket while that thread may still use it.
    /// Connections in progress end when their client goes.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    var requests: [Received] { lock.withLock { received } }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let index = lock.withLock { () -> Int in
                connections += 1
                return connections - 1
            }
            Thread { [self] in serve(fd, connection: index) }.start()
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        // Each read waits at most 10 s; a connection waits for its client at most a minute.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let giveUp = Date().addingTimeInterval(60)
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // One request: the head, then Content-Length bytes of body.
            var request: Received?
            while request == nil {
                if let end = buffer.range(of: Data("\r\n\r\n".utf8)) {
                    let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                    let length = head.split(separator: "\r\n").compactMap { line -> Int? in
                        let parts = line.split(separator: ":", maxSplits: 1)
                        guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                        return Int(parts[1].trimmingCharacters(in: .whitespaces))
                    }.first ?? 0
                    if buffer.count - end.upperBound + buffer.startIndex >= length {
                        let bodyStart = end.upperBound
                        request = Received(connection: connection, head: head, body: Data(buffer[bodyStart..<(bodyStart + length)]))
                        buffer = Data(buffer[(bodyStart + length)...])
                        break
                    }
                }
                let count = read(fd, &chunk, chunk.count)
                if count < 0, errno == EAGAIN || errno == EINTR, Date() < giveUp { continue }
                guard count > 0 else {
                    close(fd)
                    return
                }
                buffer.append(contentsOf: chunk[0..<count])
            }
            guard let request else { return }
            let number = lock.withLock { () -> Int in
                received.append(request)
                return received.count - 1
            }
            let write: (Data) -> Void = { bytes in
                _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            }
            switch script(number) {
            case .bytes(let text):
                write(text)
            case .bytesThenClose(let text):
                write(text)
                close(fd)
                return
            case .bytesThenReset(let text):
                write(text)
                LoopbackSocket.reset(fd)
                return
            case .bytesThenStall(let text):
                // Silence until the client goes (or a minute passes).
                write(text)
                while Date() < giveUp {
                    let count = read(fd, &chunk, chunk.count)
                    if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { break }
                }
                close(fd)
                return
            }
        }
    }
}

/// `NIOHTTPTransport`, the executable's plain-http transport: the bytes it sends, the
/// connections it uses, and how each transport fault comes back.
@Suite struct NIOHTTPTransportTests {
    static let ok = Data("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok".utf8)
    static let cutShort = Data("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b".utf8)

    static func request(_ server: ScriptedHTTPServer, _ target: String, method: String = "GET",
                        headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: Double = 10,
                        fresh: Bool = false) throws -> TransportRequest {
        TransportRequest(method: method, url: try #require(URL(string: "http://127.0.0.1:\(server.port)\(target)")),
                         headers: headers, body: body, timeout: timeout, freshConnection: fresh)
    }

    /// The fields a plain library adds, the target's bytes untouched (`%2B`, `+`, `%3D`, `%2F`
    /// stay as they are), successive requests on one kept-alive connection, and a fresh one
    /// when asked (the `ntlm-new-connection` bug).
    @Test func sendsTheFieldsAndTheBytesAndKeepsTheConnection() async throws {
        let server = try ScriptedHTTPServer { _ in .bytes(Self.ok) }
        defer { server.stop() }
        let transport = NIOHTTPTransport()
        let target = "/pro%2Ftected;x?SAMLRequest=b%2Bc+d%3D&RelayState=%7E~"
        let first = try await transport.send(try Self.request(server, target))
        let second = try await transport.send(try Self.request(server, target, headers: [("Authorization", "Basic YWxpY2U6cHc=")]))
        let form = Data("username=alice&password=p%2Bw%3D".utf8)
        let third = try await transport.send(try Self.request(server, "/login", method: "POST",
                                                              headers: [("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8"),
                                                                        ("Accept", "text/html")],
                                                              body: form, fresh: true))
        await transport.shutdown()
        #expect(first.status == 200 && second.status == 200 && third.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self) == "ok")
        #expect(first.headers["content-type"] == "text/plain")
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[0].head.hasPrefix("GET \(target) HTTP/1.1\r\n"))
        let fields = Self.fields(requests[0].head)
        #expect(fields["accept"] == ["*/*"])
        #expect(fields["accept-encoding"] == [NIOHTTPTransport.acceptEncoding])
        #expect(fields["connection"] == ["keep-alive"])
        #expect(fields["user-agent"] == [NIOHTTPTransport.userAgent])
        #expect(fields["accept-language"] == ["en"])
        #expect(fields["host"] == ["127.0.0.1:\(server.port)"])
        #expect(Self.fields(requests[1].head)["authorization"] == ["Basic YWxpY2U6cHc="])
        #expect(requests[0].connection == requests[1].connection, "successive requests share the kept-alive connection")
        #expect(requests[2].connection != requests[1].connection, "a fresh connection was asked for")
        #expect(requests[2].head.hasPrefix("POST /login HTTP/1.1\r\n"))
        #expect(requests[2].body == form)
        #expect(Self.fields(requests[2].head)["accept"] == ["text/html"], "the flow's Accept replaces */*")
        #expect(Self.fields(requests[2].head)["content-length"] == ["\(form.count)"])
    }

    /// A gzip body is decoded (the transport accepts only what it decodes); repeated fields come
    /// back joined, as URLSession joins them.
    @Test func decodesGzipAndJoinsRepeatedFields() async throws {
        // gzip of "hello, gzip"
        let gzip: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7,
                             0x51, 0x48, 0xaf, 0xca, 0x2c, 0x00, 0x00, 0x4a, 0x9b, 0xb1, 0x5c, 0x0b, 0x00, 0x00, 0x00]
        let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: \(gzip.count)\r\n\r\n"
        let zipped = try ScriptedHTTPServer { _ in .bytes(Data(head.utf8) + Data(gzip)) }
        defer { zipped.stop() }
        let transport = NIOHTTPTransport()
        let answer = try await transport.send(TransportRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1:\(zipped.port)/")),
                                                               headers: [], body: nil, timeout: 10))
        await transport.shutdown()
        #expect(String(decoding: answer.body, as: UTF8.self) == "hello, gzip")
        #expect(answer.headers["set-cookie"] == "a=1, b=2")
    }

    /// Each fault comes back as the kind the client words it by. The request's time is a
    /// minute where the server ends the exchange itself, so a busy test process cannot turn a
    /// fault into a timeout; half a second where only the transport's own timer can end it (the
    /// server then waits a minute for the client to go).
    @Test(arguments: [
        ("closed before any answer", ScriptedHTTPServer.Reply.bytesThenClose(Data()), TransportFailure.Kind.closed),
        ("body cut short, then closed", .bytesThenClose(cutShort), .cutOff),
        ("body cut short, then reset", .bytesThenReset(cutShort), .reset),
        ("head, then silence", .bytesThenStall(cutShort), .timedOut),
        ("nothing at all", .bytesThenStall(Data()), .timedOut),
    ])
    func faults(_ name: String, _ reply: ScriptedHTTPServer.Reply, _ kind: TransportFailure.Kind) async throws {
        let server = try ScriptedHTTPServer { _ in reply }
        defer { server.stop() }
        let transport = NIOHTTPTransport()
        let started = ContinuousClock.now
        var failure: TransportFailure?
        do {
            _ = try await transport.send(try Self.request(server, "/", timeout: kind == .timedOut ? 0.5 : 60))
        } catch let error as TransportFailure {
            failure = error
        }
        let took = ContinuousClock.now - started
        await transport.shutdown()
        let caught = try #require(failure, "\(name): the exchange should have failed")
        // A reset may reach the client before it read the first bytes: a cut-off body then.
        let accepted: [TransportFailure.Kind] = kind == .reset ? [.reset, .cutOff] : [kind]
        #expect(accepted.contains(caught.kind), "\(name): \(caught.kind) — \(caught.detail)")
        if kind == .timedOut {
            #expect(took < .seconds(60), "\(name): took \(took); the request's time was 0.5 s")
        }
    }

    /// A port bound but not listening (held for the test, so no other test can take it)
    /// refuses the connection.
    @Test func nobodyListening() async throws {
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(held) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(held, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(held >= 0 && bound == 0)
        let port = try #require(LoopbackSocket.localPort(of: held))
        let transport = NIOHTTPTransport()
        var failure: TransportFailure?
        do {
            _ = try await transport.send(TransportRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1:\(port)/")),
                                                          headers: [], body: nil, timeout: 60))
        } catch let error as TransportFailure {
            failure = error
        }
        await transport.shutdown()
        let caught = try #require(failure, "a request to a port nobody listens on should fail")
        #expect(caught.kind == .refused, "\(caught.detail)")
    }

    static func fields(_ head: String) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            fields[parts[0].lowercased(), default: []].append(parts[1].trimmingCharacters(in: .whitespaces))
        }
        return fields
    }
}
