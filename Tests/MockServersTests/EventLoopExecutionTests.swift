import Foundation
import MockServers
import NIOPosix
import Testing
import TestSupport

/// A mock's handler runs on the event loop that owns its connection (``EventLoopTaskExecutor``),
/// before and after it suspends, instead of on the cooperative pool: one thread per request,
/// no hop between the loop and the pool (docs/performance.md, the IdP leg's tail).
@Suite struct EventLoopExecutionTests {
    /// Answers where its code ran: on an event loop or not, before and after a suspension.
    struct WhereAmI: MockHandler {
        let name = "where"

        func handle(_ request: MockRequest) async -> MockResponse {
            let before = MultiThreadedEventLoopGroup.currentEventLoop != nil
            try? await Task.sleep(for: .milliseconds(5))
            let after = MultiThreadedEventLoopGroup.currentEventLoop != nil
            return .text("before=\(before) after=\(after)")
        }
    }

    @Test func aHandlerRunsOnItsConnectionsEventLoopAcrossSuspensions() async throws {
        let servers = try await MockServerGroup.start([.init(handler: WhereAmI())], log: TrafficLog())
        do {
            let base = try #require(servers.baseURL(of: "where"))
            let port = try #require(URLComponents(string: base)?.port)
            for _ in 0..<3 {
                let exchange = try await RawHTTPExchange.send(
                    port: port, head: "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                #expect(exchange.statusLine.hasPrefix("HTTP/1.1 200"))
                #expect(exchange.text.hasSuffix("before=true after=true"), "\(exchange.text)")
            }
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }
}
