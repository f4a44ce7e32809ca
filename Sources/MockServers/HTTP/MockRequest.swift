import Foundation
import SAMLCore

/// One HTTP request as a mock received it: the bytes as sent (request target, headers in
/// order, body), plus where it came from. Mocks answer from this value alone, so they can be
/// driven in-process by tests without a socket.
public struct MockRequest: Sendable {
    public var method: String
    /// The request target exactly as on the request line (origin-form `/path?query`, or
    /// absolute-form `http://host/path` when sent to a proxy; RFC 9112 §3.2).
    public var target: String
    /// Header fields in the order received; names as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Identifies the TCP connection (stable for the connection's lifetime).
    public var connectionID: Int
    public var remoteAddress: String?
    /// The `scheme://host:port` the mock that received it listens on.
    public var origin: String

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                connectionID: Int = 0, remoteAddress: String? = nil, origin: String = "http://127.0.0.1") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
        self.remoteAddress = remoteAddress
        self.origin = origin
    }

    /// True for absolute-form (`http://host/path`, RFC 9112 §3.2.2): the target does not start
    /// with `/` and names a scheme. An origin-form target whose query holds a URL
    /// (`/cas/login?service=http://…`) is not absolute-form.
    var isAbsoluteForm: Bool {
        guard !target.hasPrefix("/"), let range = target.range(of: "://") else { return false }
        return !target[..<range.lowerBound].contains { $0 == "/" || $0 == "?" }
    }

    /// The path part of the target, percent-escapes left as sent.
    public var path: String {
        var t = Substring(target)
        if isAbsoluteForm, let range = t.range(of: "://") {  // absolute-form: drop scheme://authority
            let afterScheme = t[range.upperBound...]
            t = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        return String(t.prefix { $0 != "?" && $0 != "#" })
    }

    /// The raw query string (after `?`), or nil.
    public var rawQuery: String? {
        guard let index = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: index)...].prefix { $0 != "#" })
    }

    /// Query parameters, decoded (`+` as space, as HTML forms send them).
    public var query: [QueryParameter] { rawQuery.map(QueryParameter.parse) ?? [] }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? { query.first(named: name)?.value }

    /// The first header with this name (case-insensitive, RFC 9110 §5.1).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every header with this name, in order.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body's fields when it is `application/x-www-form-urlencoded`; empty otherwise.
    public var formFields: [QueryParameter] {
        guard let type = header("Content-Type")?.lowercased(), type.hasPrefix("application/x-www-form-urlencoded") else {
            return []
        }
        return QueryParameter.parse(bodyText)
    }

    /// The first value of a form field, found by scanning the body's bytes: only that value is
    /// decoded, so asking for a field of a multi-megabyte body (a hostile SAMLRequest) costs
    /// one pass, not a copy and decode of every field per question.
    public func formValue(_ name: String) -> String? {
        guard let type = header("Content-Type")?.lowercased(), type.hasPrefix("application/x-www-form-urlencoded") else {
            return nil
        }
        let wanted = Array(name.utf8)
        return body.withUnsafeBufferPointer { bytes -> String? in
            guard let base = bytes.baseAddress else { return nil }
            // memchr: the scan stays one fast pass over megabytes in a debug build too.
            func find(_ byte: UInt8, from: Int, to: Int) -> Int? {
                guard from < to, let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
                return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            var start = 0
            while start < bytes.count {
                let end = find(UInt8(ascii: "&"), from: start, to: bytes.count) ?? bytes.count
                let eq = find(UInt8(ascii: "="), from: start, to: end)
                let nameEnd = eq ?? end
                let rawName = UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])
                // A name percent-encoded is at most three bytes per byte of the name it decodes to.
                let matches = rawName.elementsEqual(wanted)
                    || (rawName.count <= 3 * wanted.count
                        && (rawName.contains(UInt8(ascii: "%")) || rawName.contains(UInt8(ascii: "+")))
                        && PercentEncoding.formDecode(String(decoding: rawName, as: UTF8.self)) == name)
                if matches, end > start {
                    guard let eq else { return "" }
                    return PercentEncoding.formDecode(String(decoding: UnsafeBufferPointer(rebasing: bytes[(eq + 1)..<end]), as: UTF8.self))
                }
                start = end + 1
            }
            return nil
        }
    }

    /// Cookies from every `Cookie` header (RFC 6265 §5.4: `name=value` pairs separated by `; `).
    public var cookies: [(name: String, value: String)] {
        headers(named: "Cookie").flatMap { line in
            line.split(separator: ";").compactMap { pair -> (String, String)? in
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let eq = trimmed.firstIndex(of: "=") else { return nil }
                return (String(trimmed[..<eq]), String(trimmed[trimmed.index(after: eq)...]))
            }
        }
    }

    public func cookie(_ name: String) -> String? { cookies.first { $0.name == name }?.value }

    /// The URL this request names, as the client would write it.
    public var url: String {
        if method == "TLS", target == "*" { return origin + "/" }  // a TLS connection without a request
        return isAbsoluteForm ? target : origin + target
    }
}
