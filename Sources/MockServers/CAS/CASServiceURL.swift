import Foundation
import SAMLCore

/// The `service` string of the CAS protocol: whether CAS may redirect to it, how it is
/// compared at validation (`cas-service-match`) and how a misconfigured deployment alters it
/// (`cas-service-rewrite`).
enum CASServiceURL {
    /// A service the server will issue tickets for and redirect to: an absolute `http(s)` URL
    /// with a host and no control characters. CR and LF in particular are refused, because the
    /// service is echoed into a `Location` header (RFC 9110 §5.5: field values carry no CR/LF).
    static func isAcceptable(_ service: String) -> Bool {
        guard !service.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        let lower = service.lowercased()
        let schemeLength: Int
        if lower.hasPrefix("http://") { schemeLength = 7 } else if lower.hasPrefix("https://") { schemeLength = 8 } else { return false }
        let authority = service.dropFirst(schemeLength).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !authority.isEmpty
    }

    /// `service` with `ticket=…` added as the CAS protocol 3.0 §2.2.4 says: a query parameter,
    /// `&` when the service already has a query, placed before any fragment.
    static func appending(_ name: String, _ value: String, to service: String) -> String {
        let fragmentStart = service.firstIndex(of: "#") ?? service.endIndex
        let head = service[..<fragmentStart]
        let fragment = service[fragmentStart...]
        let separator = head.contains("?") ? "&" : "?"
        return String(head) + separator + name + "=" + PercentEncoding.queryComponentEncode(value) + String(fragment)
    }

    // MARK: - Matching

    /// Whether `supplied` (the validation request's `service`) names the service `bound` (the
    /// ticket's).
    static func matches(bound: String, supplied: String, mode: CASKnob.ServiceMatch) -> Bool {
        switch mode {
        case .exact:
            return bound == supplied
        case .decoded:
            // Apereo CAS 6.1+ DefaultServiceMatchingStrategy: URLDecoder.decode both (`+` is a
            // space), remove a `#fragment`, String.equalsIgnoreCase.
            return decodedForm(bound).lowercased() == decodedForm(supplied).lowercased()
        case .lenient:
            return lenientForm(bound) == lenientForm(supplied)
        }
    }

    static func decodedForm(_ service: String) -> String {
        let decoded = PercentEncoding.formDecode(service)
        if let hash = decoded.firstIndex(of: "#"), decoded.index(after: hash) < decoded.endIndex {
            return String(decoded[..<hash])
        }
        return decoded
    }

    /// Scheme dropped, host lower-cased, default port dropped, path decoded without a trailing
    /// slash, query parameters decoded and sorted, fragment dropped.
    static func lenientForm(_ service: String) -> String {
        guard let components = URLComponents(string: service), let host = components.host else {
            return decodedForm(service).lowercased()
        }
        var text = host.lowercased()
        if let port = components.port, port != 80, port != 443 { text += ":\(port)" }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        text += path
        let query = (components.percentEncodedQuery ?? "").split(separator: "&").map { PercentEncoding.formDecode(String($0)) }.sorted()
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    // MARK: - Rewriting

    /// The service as a misconfigured server records it when it issues a ticket.
    static func rewrite(_ service: String, _ rewrite: CASKnob.ServiceRewrite) -> String {
        switch rewrite {
        case .trailingSlash:
            // Toggles the path's trailing slash: `/app/` ↔ `/app`.
            let (head, tail) = splitPath(service)
            return head.hasSuffix("/") && !head.hasSuffix("://") ? String(head.dropLast()) + tail : head + "/" + tail
        case .http:
            return service.lowercased().hasPrefix("https://") ? "http://" + service.dropFirst("https://".count) : service
        case .https:
            return service.lowercased().hasPrefix("http://") ? "https://" + service.dropFirst("http://".count) : service
        case .encoded:
            return transformQuery(service) { PercentEncoding.queryComponentEncode(decodePercent($0)) }
        case .decoded:
            return transformQuery(service) { decodePercent($0) }
        }
    }

    private static func decodePercent(_ text: String) -> String {
        String(decoding: PercentEncoding.percentDecode(text, plusAsSpace: false), as: UTF8.self)
    }

    /// (scheme://authority/path, ?query#fragment).
    private static func splitPath(_ service: String) -> (String, String) {
        let cut = service.firstIndex { $0 == "?" || $0 == "#" } ?? service.endIndex
        return (String(service[..<cut]), String(service[cut...]))
    }

    /// Applies `transform` to every query name and value.
    private static func transformQuery(_ service: String, _ transform: (String) -> String) -> String {
        guard let questionMark = service.firstIndex(of: "?") else { return service }
        let fragmentStart = service[questionMark...].firstIndex(of: "#") ?? service.endIndex
        let query = service[service.index(after: questionMark)..<fragmentStart]
        let rewritten = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return transform(String(pair)) }
            return transform(String(pair[..<eq])) + "=" + transform(String(pair[pair.index(after: eq)...]))
        }.joined(separator: "&")
        return service[...questionMark] + rewritten + service[fragmentStart...]
    }
}
