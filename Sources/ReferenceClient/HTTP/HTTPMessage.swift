import Foundation

/// One request as the client means to send it.
struct HTTPRequest: Sendable {
    var method: String = "GET"
    var url: URL
    var headers: [(name: String, value: String)] = []
    var body: Data?
    /// `Authorization`, bound to the origin that challenged (``origin``): dropped by
    /// `HTTPSession.follow` when a redirect leaves it.
    var authorization: String?
    /// Send on a connection of its own, not a pooled one (only the `ntlm-new-connection` bug).
    var freshConnection = false

    init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A form POST (`application/x-www-form-urlencoded; charset=UTF-8`).
    static func form(_ url: URL, _ pairs: [(String, String)], behaviour: ClientBehaviour) -> HTTPRequest {
        HTTPRequest(method: "POST", url: url,
                    headers: [("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")],
                    body: FormEncoding.body(pairs, percentEncode: behaviour.percentEncodeFormBodies))
    }
}

/// One answer, with the request that produced it.
struct HTTPResponse: Sendable {
    var request: HTTPRequest
    var status: Int
    /// Header fields, names lower-cased.
    var headers: [String: String]
    var body: Data

    var url: URL { request.url }
    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The media type without parameters, lower-cased.
    var mediaType: String {
        (header("Content-Type") ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// `Location` resolved against the request URL (RFC 9110 §10.2.2), for 3xx answers.
    var redirectTarget: URL? {
        guard [301, 302, 303, 307, 308].contains(status), let location = header("Location") else { return nil }
        return URL(string: location, relativeTo: url)?.absoluteURL
    }

    /// "HTTP 403 audience.mismatch: <explanation>" — the server's own words from an error page.
    var errorSummary: String {
        var summary = "HTTP \(status)"
        let words = HTMLText.errorWords(in: text)
        if !words.isEmpty { summary += " " + words }
        return summary
    }
}

/// Scheme, host and port: the unit credentials and redirects are judged by.
struct Origin: Equatable, CustomStringConvertible {
    var scheme: String
    var host: String
    var port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    var description: String { "\(scheme)://\(host):\(port)" }
}
