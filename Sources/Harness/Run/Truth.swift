import Foundation
import MockServers

/// What the mocks know a client obtained in a run, read from the traffic log: the SP's
/// per-session `SECRET-…`, the CAS application's secret, the CAS user of a successful
/// validation, the HTTP-auth page's secret, the book's SHA-256, the issued WS-Trust
/// assertion's ID. A client obtained the resource when one of these appears in its result.
public struct Truth: Sendable, Equatable {
    public var tokens: [Token]

    public struct Token: Sendable, Equatable {
        /// Where the mocks issued it (`sp.secret`, `cas.app.secret`, `cas.user`, `auth.secret`,
        /// `cm.sha256`, `adfs.assertion-id`…).
        public var kind: String
        public var value: String
        public var exchange: Int
    }

    /// The first token the mocks delivered to the client in a 2xx answer's body (the
    /// protected page, the validation response, the book's feed, the RSTR).
    public var served: Token? { servedTokens.first }
    var servedTokens: [Token]

    public init(tokens: [Token], served: [Token] = []) {
        self.tokens = tokens
        self.servedTokens = served
    }

    /// The truth of a run's exchanges.
    public static func from(_ entries: [TrafficEntry]) -> Truth {
        var tokens: [Token] = []
        for entry in entries {
            let annotations = entry.annotations
            for key in ["sp.secret", "cas.app.secret", "cm.sha256"] {
                if let value = annotations[key], !value.isEmpty {
                    tokens.append(Token(kind: key, value: value, exchange: entry.sequence))
                }
            }
            if annotations["cas.validate"] == "success", let user = annotations["cas.user"] {
                tokens.append(Token(kind: "cas.user", value: "<cas:user>\(user)</cas:user>", exchange: entry.sequence))
            }
            guard let response = entry.response else { continue }
            if annotations["auth.result"] == "ok", response.status == 200,
               let secret = Self.firstMatch(in: response.body, #"id="secret">([^<]+)<"#) {
                tokens.append(Token(kind: "auth.secret", value: secret, exchange: entry.sequence))
            }
            // AD FS sign-on for a relying party outside the harness (AWS, Office 365): the
            // signed Response in the auto-post form is what the client takes away.
            if annotations["adfs.token"] == "saml20", let acs = annotations["adfs.acs"], !Self.isLoopback(acs),
               let response = Self.firstMatch(in: response.body, #"name="SAMLResponse"\s+value="([^"]+)""#) {
                tokens.append(Token(kind: "adfs.saml-response", value: response, exchange: entry.sequence))
                // A client that decodes it reports the XML: the Response's ID is in there.
                if let xml = Data(base64Encoded: response.filter { !$0.isWhitespace }),
                   let id = Self.firstMatch(in: Array(xml), #"<(?:samlp:)?Response[^>]*\sID="([^"]+)""#) {
                    tokens.append(Token(kind: "adfs.saml-response-id", value: "ID=\"\(id)\"", exchange: entry.sequence))
                }
            }
            if annotations["adfs.login"] == "ok", annotations["adfs.token"] != nil,
               let id = Self.firstMatch(in: response.body, #"(?:AssertionID|\sID)="(_[0-9A-Za-z]+)""#) {
                tokens.append(Token(kind: "adfs.assertion-id", value: id, exchange: entry.sequence))
            }
        }
        // A replayed chain: the pages served after the replayed SP accepted the Response.
        if let accepted = entries.lastIndex(where: { $0.annotations["replay.acs"] == "valid" }) {
            for entry in entries[accepted...].dropFirst() {
                guard let response = entry.response, (200..<300).contains(response.status), response.body.count >= 16,
                      let body = String(validating: response.body.prefix(4096), as: UTF8.self) else { continue }
                tokens.append(Token(kind: "replay.page", value: body, exchange: entry.sequence))
            }
        }
        var served: [Token] = []
        for entry in entries {
            guard let response = entry.response, (200..<300).contains(response.status),
                  let body = String(validating: response.body.prefix(4 << 20), as: UTF8.self) else { continue }
            if let token = tokens.first(where: { body.contains($0.value) }) {
                served.append(Token(kind: token.kind, value: token.value, exchange: entry.sequence))
            } else if let sha = entry.annotations["cm.sha256"] {
                served.append(Token(kind: "cm.sha256", value: sha, exchange: entry.sequence))
            }
        }
        return Truth(tokens: tokens, served: served)
    }

    /// The first token that appears in `text`.
    public func found(in text: String?) -> Token? {
        guard let text, !text.isEmpty else { return nil }
        return tokens.first { text.contains($0.value) }
    }

    static func isLoopback(_ url: String) -> Bool {
        ["http://127.0.0.1", "http://localhost", "http://[::1]"].contains { url.hasPrefix($0) }
    }

    static func firstMatch(in body: [UInt8], _ pattern: String) -> String? {
        guard body.count <= 4 << 20, let text = String(validating: body, as: UTF8.self),
              let expression = try? NSRegularExpression(pattern: pattern),
              let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }
}
