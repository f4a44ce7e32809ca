import Foundation
import MockServers
import Testing
import TestSupport

/// Connections end as RFC 9112 says: a body over the limit gets its 413 and a closed connection
/// (a lingering close: the rest of the body is read and dropped), and an HTTP/1.0 request without
/// keep-alive gets its answer and then the close it reads to (§9.3). Every mock listener runs on
/// the same HTTP/1 channel (``MockServerGroup``), the replay's included.
@Suite struct ConnectionCloseTests {
    static func port(_ base: String?) throws -> Int {
        let base = try #require(base)
        return try #require(URLComponents(string: base)?.port)
    }

    @Test(arguments: ["sp", "idp", "auth", "proxy", "control", "cas", "adfs", "cm"])
    func aTwentyMegabyteBodyGets413AndAClosedConnection(_ mock: String) async throws {
        try await SuiteFixture.with("shibboleth") { suite, _ in
            let port = try Self.port(suite.servers.baseURL(of: mock))
            let size = 20 * 1024 * 1024
            let head = RawHTTPExchange.postHead("/Shibboleth.sso/SAML2/POST", port: port, bodyBytes: size)
            let exchange = try await RawHTTPExchange.send(port: port, head: head, bodyBytes: size)
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
            let exchange = try await RawHTTPExchange.send(port: port, head: "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
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
            let exchange = try await RawHTTPExchange.send(port: port, head: head)
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
            let exchange = try await RawHTTPExchange.send(port: port, head: head)
            #expect(exchange.answers == 2)
            #expect(exchange.header("Connection").isEmpty, "the first answer keeps the connection")
            #expect(exchange.text.contains("Connection: close"), "the answer to `Connection: close` says close")
            #expect(exchange.error == 0)
        }
    }
}
