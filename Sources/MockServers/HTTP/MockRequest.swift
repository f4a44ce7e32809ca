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
    ///
    /// The target is read on its UTF-8 view throughout: its delimiters are ASCII, and a walk by
    /// `Character` (grapheme breaking over a kilobyte of SAMLRequest) showed in issue 25's profile.
    var isAbsoluteForm: Bool {
        let bytes = target.utf8
        guard bytes.first != UInt8(ascii: "/"), let colon = Self.schemeSeparator(in: bytes) else { return false }
        return !bytes[..<colon].contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
    }

    /// Where `://` starts in `bytes`, if anywhere.
    private static func schemeSeparator(in bytes: String.UTF8View) -> String.Index? {
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[bytes.index(after: colon)...]
            if rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) { return colon }
            index = bytes.index(after: colon)
        }
        return nil
    }

    /// The path part of the target, percent-escapes left as sent.
    public var path: String {
        let bytes = target.utf8
        var start = bytes.startIndex
        if isAbsoluteForm, let colon = Self.schemeSeparator(in: bytes) {  // absolute-form: drop scheme://authority
            // The authority ends at the first `/`, `?` or `#` (RFC 3986 §3.2): `http://h?x=/a`
            // has the path `/`, not `/a`.
            let afterScheme = bytes.index(colon, offsetBy: 3)
            guard let slash = bytes[afterScheme...].firstIndex(where: {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }), bytes[slash] == UInt8(ascii: "/") else { return "/" }
            start = slash
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        return String(target[start..<end])
    }

    /// The raw query string (after `?`), or nil.
    public var rawQuery: String? {
        let bytes = target.utf8
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let start = bytes.index(after: mark)
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        return String(target[start..<end])
    }

    /// Query parameters, decoded (`+` as space, as HTML forms send them).
    public var query: [QueryParameter] { rawQuery.map(QueryParameter.parse) ?? [] }

    /// The first value of a query parameter: the query's bytes are scanned and only that value
    /// is decoded (the SSO endpoint asks for three parameters of a kilobyte-long query).
    public func queryValue(_ name: String) -> String? {
        var target = target
        return target.withUTF8 { bytes -> String? in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            var start = mark + 1
            // As `QueryParameter.parse`, a second leading `?` is not part of the first name.
            if start < bytes.count, bytes[start] == UInt8(ascii: "?") { start += 1 }
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            return QueryParameter.firstValue(named: name, in: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    /// The first header with this name (case-insensitive, RFC 9110 §5.1).
    public func header(_ name: String) -> String? {
        headers.first { FieldName.equal($0.name, name) }?.value
    }

    /// Every header with this name, in order.
    public func headers(named name: String) -> [String] {
        headers.filter { FieldName.equal($0.name, name) }.map(\.value)
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
        return body.withUnsafeBufferPointer { QueryParameter.firstValue(named: name, in: $0) }
    }

    /// Cookies from every `Cookie` header (RFC 6265 §5.4: `name=value` pairs separated by `; `).
    /// Read on the UTF-8 view; the whitespace trimmed around each pair is RFC 6265's (SP, HTAB).
    public var cookies: [(name: String, value: String)] {
        headers(named: "Cookie").flatMap { line -> [(name: String, value: String)] in
            let bytes = line.utf8
            func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            return bytes.split(separator: UInt8(ascii: ";")).compactMap { pair -> (name: String, value: String)? in
                guard let first = pair.firstIndex(where: { !isSpace($0) }),
                      let last = pair.lastIndex(where: { !isSpace($0) }) else { return nil }
                let trimmed = pair[first...last]
                guard let eq = trimmed.firstIndex(of: UInt8(ascii: "=")) else { return nil }
                return (String(line[first..<eq]), String(line[bytes.index(after: eq)..<bytes.index(after: last)]))
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
