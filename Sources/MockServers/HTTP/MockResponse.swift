import Foundation
import SAMLCore

/// What a mock answers. Besides status, headers and body it can carry a misbehaviour the
/// listener carries out (answer late, never answer, cut the body short, reset the
/// connection), so that faults are data like everything else.
public struct MockResponse: Sendable {
    /// How the listener delivers the answer.
    public enum Delivery: Sendable, Equatable {
        case normal
        /// Waits this long before answering (a slow IdP).
        case delayed(Duration)
        /// Never answers; the connection is closed after this long (a dead IdP).
        case noAnswer(closeAfter: Duration)
        /// The status line, the headers (the full Content-Length) and half the body, then the
        /// connection closed: a truncated answer.
        case truncated
        /// The status line, the headers and half the body, then a TCP reset (RST).
        case reset
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var delivery: Delivery
    /// Notes the mock wants in the traffic log beside this exchange (e.g. the reason an SP
    /// refused a Response), read by checks.
    public var annotations: [String: String]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                delivery: Delivery = .normal, annotations: [String: String] = [:]) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delivery = delivery
        self.annotations = annotations
    }

    public func header(_ name: String) -> String? {
        headers.first { FieldName.equal($0.name, name) }?.value
    }

    public func headers(named name: String) -> [String] {
        headers.filter { FieldName.equal($0.name, name) }.map(\.value)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public mutating func addHeader(_ name: String, _ value: String) { headers.append((name, value)) }

    public mutating func setCookie(_ cookie: SetCookie) { headers.append(("Set-Cookie", cookie.headerValue)) }

    public func annotated(_ key: String, _ value: String) -> MockResponse {
        var copy = self
        copy.annotations[key] = value
        return copy
    }

    // MARK: - Common answers

    public static func html(_ html: String, status: Int = 200) -> MockResponse {
        MockResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                     body: Array(html.utf8))
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> MockResponse {
        MockResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    public static func xml(_ xml: String, status: Int = 200, contentType: String = "application/xml; charset=utf-8") -> MockResponse {
        MockResponse(status: status, headers: [("Content-Type", contentType)], body: Array(xml.utf8))
    }

    public static func json(_ object: some Encodable, status: Int = 200, contentType: String = "application/json") -> MockResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(object)) ?? Data("{}".utf8)
        return MockResponse(status: status, headers: [("Content-Type", contentType)], body: Array(data))
    }

    /// A redirect (302 Found by default, as Shibboleth and most IdPs send).
    public static func redirect(_ location: String, status: Int = 302) -> MockResponse {
        MockResponse(status: status, headers: [("Location", location), ("Cache-Control", "no-store")])
    }

    /// An error page with a title and a message, both HTML-escaped.
    public static func errorPage(status: Int, title: String, message: String) -> MockResponse {
        html("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>\(HTMLText.escape(title))</title></head>
        <body><h1>\(HTMLText.escape(title))</h1><p class="error">\(HTMLText.escape(message))</p></body></html>

        """, status: status)
    }

    public static func notFound(_ path: String) -> MockResponse {
        errorPage(status: 404, title: "Not Found", message: "No resource at \(path)")
    }

    public static func methodNotAllowed(_ method: String, allowed: [String]) -> MockResponse {
        var response = errorPage(status: 405, title: "Method Not Allowed", message: "\(method) is not allowed here; use \(allowed.joined(separator: " or "))")
        response.addHeader("Allow", allowed.joined(separator: ", "))
        return response
    }
}
