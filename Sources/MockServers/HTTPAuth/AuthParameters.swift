/// The parts of an `Authorization` or `Proxy-Authorization` field value (RFC 9110 §11.4):
/// `credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`.
///
/// Parsing is strict where the RFC is strict (a parameter named twice, an unterminated
/// quoted-string, a bare value) so the 400 a mock answers can name the byte that was wrong.
public struct AuthParameters: Sendable, Equatable {
    /// Why a credentials value could not be read.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The scheme as sent (`Basic`, `Digest`…); compare case-insensitively (RFC 9110 §11.1).
    public var scheme: String
    /// The token68 form (Basic's base64), when the credentials are not a parameter list.
    public var token68: String?
    /// `name=value` parameters; names lowercased (RFC 9110 §11.2: case-insensitive), values
    /// unquoted with their backslash escapes removed.
    public var parameters: [String: String]
    /// Parameter names in the order sent, lowercased.
    public var order: [String]

    public init(scheme: String, token68: String? = nil, parameters: [String: String] = [:], order: [String] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
        self.order = order
    }

    /// The value of a parameter (name compared case-insensitively).
    public subscript(name: String) -> String? { parameters[name.lowercased()] }

    /// Whether the scheme is `name`, ignoring case.
    public func isScheme(_ name: String) -> Bool { scheme.lowercased() == name.lowercased() }

    /// Reads a credentials value. `expectToken68` picks the form after the scheme: Basic
    /// carries a token68 (RFC 7617 §2), Digest an auth-param list (RFC 7616 §3.4).
    public static func parse(_ value: String, expectToken68: Bool) throws -> AuthParameters {
        var reader = Reader(Array(value.utf8))
        reader.skip(whitespace: true)
        let scheme = reader.token()
        guard !scheme.isEmpty else {
            throw ParseError(value.isEmpty ? "the field is empty" : "it does not start with an auth-scheme token")
        }
        var result = AuthParameters(scheme: scheme)
        guard !reader.atEnd else { return result }
        guard reader.peek == UInt8(ascii: " ") else {
            throw ParseError("the auth-scheme `\(scheme)` is not followed by a space")
        }
        reader.skip(whitespace: true)
        if expectToken68 {
            let token = reader.token68()
            reader.skip(whitespace: true)
            guard !token.isEmpty, reader.atEnd else {
                throw ParseError("expected a single token68 after `\(scheme)`")
            }
            result.token68 = token
            return result
        }
        // RFC 9110 §5.6.1: empty list elements are allowed and ignored.
        while !reader.atEnd {
            reader.skip(whitespace: true)
            if reader.peek == UInt8(ascii: ",") { reader.advance(); continue }
            if reader.atEnd { break }
            let name = reader.token().lowercased()
            guard !name.isEmpty else {
                throw ParseError("expected a parameter name at byte \(reader.offset), found `\(reader.rest(12))`")
            }
            reader.skip(whitespace: true)  // BWS
            guard reader.peek == UInt8(ascii: "=") else {
                throw ParseError("parameter `\(name)` has no `=value`")
            }
            reader.advance()
            reader.skip(whitespace: true)  // BWS
            let parsed: String
            if reader.peek == UInt8(ascii: "\"") {
                guard let quoted = reader.quotedString() else {
                    throw ParseError("the quoted-string value of `\(name)` is not terminated")
                }
                parsed = quoted
            } else {
                parsed = reader.token()
                guard !parsed.isEmpty else { throw ParseError("parameter `\(name)` has an empty value") }
            }
            // RFC 9110 §11.2: each parameter name MUST only occur once.
            guard result.parameters[name] == nil else { throw ParseError("parameter `\(name)` appears twice") }
            result.parameters[name] = parsed
            result.order.append(name)
            reader.skip(whitespace: true)
            guard reader.atEnd || reader.peek == UInt8(ascii: ",") else {
                throw ParseError("expected `,` after parameter `\(name)`, found `\(reader.rest(12))`")
            }
        }
        return result
    }

    /// `value` as a quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped with a backslash.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for character in value {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }

    /// A byte cursor over the field value.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { offset >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[offset] }
        mutating func advance() { offset += 1 }

        func rest(_ limit: Int) -> String {
            String(decoding: bytes[offset..<min(bytes.count, offset + limit)], as: UTF8.self)
        }

        mutating func skip(whitespace: Bool) {
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { advance() }
        }

        /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
        /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
        static func isTChar(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }

        mutating func token() -> String {
            let start = offset
            while let byte = peek, Self.isTChar(byte) { advance() }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        /// RFC 9110 §11.2: token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
        mutating func token68() -> String {
            let start = offset
            while let byte = peek, byte.isASCIIAlphanumeric || Array("-._~+/".utf8).contains(byte) { advance() }
            while peek == UInt8(ascii: "=") { advance() }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        /// RFC 9110 §5.6.4: quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE. Bytes
        /// above 0x7F (obs-text) are kept, so UTF-8 usernames survive.
        mutating func quotedString() -> String? {
            advance()  // the opening DQUOTE
            var out: [UInt8] = []
            while let byte = peek {
                advance()
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    out.append(escaped)
                    advance()
                default:
                    out.append(byte)
                }
            }
            return nil
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
