import AsyncHTTPClient
import MockServers
import NIOSSL
import Foundation
import NIOCore
import NIOHTTP1
import SAMLCore

/// A small scripted browser for the tests: it keeps cookies (host-only, by path), follows
/// redirects one hop at a time so each hop can be asserted, and fills and submits the forms
/// the mocks serve. Real HTTP over loopback through AsyncHTTPClient.
public final class TestBrowser: @unchecked Sendable {
    public struct Page {
        public let url: String
        public let status: Int
        public let headers: [(String, String)]
        public let body: String

        public func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }

        public var location: String? { header("Location") }
        public var forms: [HTMLForm] { HTMLFormParser.forms(in: body) }
        public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) }
    }

    public struct Cookie {
        public let host: String
        public let name: String
        public var value: String
        public let path: String
    }

    public let client: HTTPClient
    public private(set) var cookies: [Cookie] = []
    /// Every page seen, in order.
    public private(set) var history: [Page] = []
    public var extraHeaders: [(String, String)] = []

    public init(timeout: TimeAmount = .seconds(20)) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(5), read: timeout)
        // The https mocks (`tls`, `https-downgrade`) use the machine's local CA.
        let ca = MockTLS.defaultDirectory().appendingPathComponent("ca.pem")
        if FileManager.default.fileExists(atPath: ca.path) {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(ca.path)]
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// A test that throws before ``shutdown()`` must not leave the client running: its deinit
    /// traps in debug builds and takes the whole test process down (a second shutdown only
    /// reports alreadyShutdown).
    deinit {
        client.shutdown { _ in }
    }

    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func get(_ url: String, headers: [(String, String)] = []) async throws -> Page {
        try await send("GET", url, headers: headers, body: nil)
    }

    public func post(_ url: String, form: String, headers: [(String, String)] = []) async throws -> Page {
        try await send("POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
                       body: Array(form.utf8))
    }

    public func send(_ method: String, _ url: String, headers: [(String, String)], body: [UInt8]?) async throws -> Page {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in extraHeaders + headers { request.headers.add(name: name, value: value) }
        let parsed = URLComponents(string: url)
        let host = "\(parsed?.host ?? ""):\(parsed?.port ?? 80)"
        let path = parsed?.percentEncodedPath ?? "/"
        let sent = cookies.filter { $0.host == host && path.hasPrefix($0.path) }
        if !sent.isEmpty {
            request.headers.add(name: "Cookie", value: sent.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let page = Page(url: url, status: Int(response.status.code),
                        headers: response.headers.map { ($0.name, $0.value) },
                        body: String(buffer: bytes))
        for header in page.headers where header.0.lowercased() == "set-cookie" {
            store(header.1, host: host)
        }
        history.append(page)
        return page
    }

    private func store(_ header: String, host: String) {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let eq = first.firstIndex(of: "=") else { return }
        let name = String(first[..<eq])
        let value = String(first[first.index(after: eq)...])
        let path = parts.first { $0.lowercased().hasPrefix("path=") }.map { String($0.dropFirst(5)) } ?? "/"
        let expired = parts.contains { $0.lowercased() == "max-age=0" }
        cookies.removeAll { $0.host == host && $0.name == name && $0.path == path }
        if !expired { cookies.append(Cookie(host: host, name: name, value: value, path: path)) }
    }

    public func cookie(_ name: String) -> String? { cookies.first { $0.name == name }?.value }

    public func forgetCookies() { cookies.removeAll() }

    /// Resolves a Location or form action against the page URL.
    public func resolve(_ reference: String, against base: String) -> String {
        URL(string: reference, relativeTo: URL(string: base))?.absoluteString ?? reference
    }

    /// Follows redirects (GET after 301/302/303) until a non-redirect page, at most `limit` hops.
    public func follow(_ page: Page, limit: Int = 10) async throws -> Page {
        var current = page
        var hops = 0
        while current.isRedirect, let location = current.location {
            hops += 1
            guard hops <= limit else { throw BrowserError("more than \(limit) redirects from \(page.url)") }
            current = try await get(resolve(location, against: current.url))
        }
        return current
    }

    /// Submits the first form of `page`: its fields (only the checked radio buttons of a
    /// group are kept by taking the first value of each name), `values` replacing or adding
    /// fields, and `button` as the pressed submit button.
    public func submit(_ page: Page, values: [String: String] = [:], button: (String, String)? = nil) async throws -> Page {
        guard let form = page.forms.first else { throw BrowserError("no form on \(page.url):\n\(page.body.prefix(600))") }
        var seen = Set<String>()
        var pairs: [(name: String, value: String)] = []
        for field in form.fields where field.type != "submit" && field.type != "button" {
            if field.type == "radio" || field.type == "checkbox" { continue }
            guard seen.insert(field.name).inserted || field.name == "_shib_idp_consentIds" else { continue }
            pairs.append((field.name, values[field.name] ?? field.value))
        }
        for (name, value) in values where !pairs.contains(where: { $0.name == name }) { pairs.append((name, value)) }
        if let button { pairs.append(button) }
        let action = resolve(form.action ?? page.url, against: page.url)
        let body = QueryParameter.formEncoded(pairs)
        if form.method.lowercased() == "get" {
            return try await get(action + (action.contains("?") ? "&" : "?") + body)
        }
        return try await post(action, form: body)
    }
}

public struct BrowserError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
