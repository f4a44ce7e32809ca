import Foundation
import MockServers
import SAMLCore

/// The credentials the scenario gives the client, and where a request carries a password:
/// a form field, HTTP Basic (RFC 7617), a WS-Security UsernameToken.
struct Credentials {
    let username: String?
    let password: String?

    init(_ context: CheckContext) {
        username = context.target.username
        password = context.target.password
    }

    /// A password a request carries, as raw bytes.
    struct Sent {
        let place: String
        let bytes: [UInt8]
    }

    /// The passwords `entry`'s request carries.
    static func passwordsSent(in entry: TrafficEntry) -> [Sent] {
        let request = entry.request
        var sent: [Sent] = []
        if let type = request.header("Content-Type")?.lowercased(), type.hasPrefix("application/x-www-form-urlencoded") {
            for pair in QueryParameter.parse(request.bodyText) where isPasswordField(pair.name) {
                sent.append(Sent(place: "form field `\(pair.name)`", bytes: PercentEncoding.percentDecode(pair.rawValue, plusAsSpace: true)))
            }
        }
        for pair in request.query where isPasswordField(pair.name) {
            sent.append(Sent(place: "query parameter `\(pair.name)`", bytes: PercentEncoding.percentDecode(pair.rawValue, plusAsSpace: true)))
        }
        if let basic = basicCredentials(request.header("Authorization")) {
            sent.append(Sent(place: "the Basic Authorization header", bytes: basic.password))
        }
        if let soap = soapPassword(request.body) {
            sent.append(Sent(place: "the UsernameToken's Password", bytes: soap))
        }
        return sent
    }

    static func isPasswordField(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("password") || lower == "pass" || lower == "passwd" || lower == "j_password" || lower == "pwd"
    }

    /// RFC 7617 §2: base64 of `user-id ":" password`.
    static func basicCredentials(_ header: String?) -> (user: [UInt8], password: [UInt8])? {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic " else { return nil }
        let token = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: token) else { return nil }
        let bytes = Array(data)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return (Array(bytes[..<colon]), Array(bytes[(colon + 1)...]))
    }

    /// The text of a `<…:Password>` element, character references resolved, as bytes.
    static func soapPassword(_ body: [UInt8]) -> [UInt8]? {
        guard body.count < 1 << 20, body.first(where: { $0 > 0x20 }) == UInt8(ascii: "<") else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        guard let open = text.range(of: #"<([A-Za-z_][\w.-]*:)?Password(\s[^>]*)?>"#, options: .regularExpression),
              let close = text.range(of: #"</([A-Za-z_][\w.-]*:)?Password\s*>"#, options: .regularExpression,
                                     range: open.upperBound..<text.endIndex) else { return nil }
        let startOffset = text.utf8.distance(from: text.utf8.startIndex, to: open.upperBound)
        let endOffset = text.utf8.distance(from: text.utf8.startIndex, to: close.lowerBound)
        let raw = Array(body[startOffset..<endOffset])
        guard raw.contains(UInt8(ascii: "&")) else { return raw }
        return Array(unescapeXML(String(decoding: raw, as: UTF8.self)).utf8)
    }

    /// XML 1.0 §4.6 predefined entities and §4.1 character references.
    static func unescapeXML(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                out += rest[amp...]
                return out
            }
            let name = rest[rest.index(after: amp)..<semi]
            switch name {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16)
                    : name.hasPrefix("#") ? UInt32(name.dropFirst(), radix: 10) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += rest[amp...semi] }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }
}
