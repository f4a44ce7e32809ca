import Foundation
import SAMLCore

/// Rewrites recorded origins to the replay's loopback listeners in served text, in every form
/// a page or a message writes a URL: plain, with the scheme's default port spelled out,
/// percent-encoded (a `RelayState`, a `return=` parameter), HTML character references
/// (`https&#x3a;&#x2f;&#x2f;idp.example.edu`, as OWASP-encoding templates write form actions)
/// and JSON-escaped (`https:\/\/…`).
///
/// An origin only matches where the host ends (`https://sp.example.org` never rewrites
/// `https://sp.example.org.evil.test` or `https://sp.example.org:8443`).
struct OriginRewriter: Sendable {
    /// (recorded text, replacement), longest first.
    private let variants: [(String, String)]

    init(map: [String: String]) {
        var variants: [(String, String)] = []
        for (recorded, local) in map {
            guard let url = RecordedURL(recorded) else { continue }
            var spellings = [recorded]
            if url.port == nil { spellings.append(recorded + ":\(RecordedURL.defaultPort(url.scheme))") }
            for spelling in spellings {
                variants.append((spelling, local))
                variants.append((PercentEncoding.queryComponentEncode(spelling), PercentEncoding.queryComponentEncode(local)))
                variants.append((PercentEncoding.lowercasingEscapes(PercentEncoding.queryComponentEncode(spelling)),
                                 PercentEncoding.queryComponentEncode(local)))
                variants.append((spelling.replacingOccurrences(of: "/", with: "\\/"), local.replacingOccurrences(of: "/", with: "\\/")))
                for (colon, slash) in [("&#x3a;", "&#x2f;"), ("&#X3A;", "&#X2F;"), ("&#58;", "&#47;"), (":", "&#x2f;"), (":", "&#47;")] {
                    let encoded = spelling.replacingOccurrences(of: "/", with: slash).replacingOccurrences(of: ":", with: colon)
                    variants.append((encoded, local))
                }
            }
        }
        var seen = Set<String>()
        self.variants = variants.filter { seen.insert($0.0).inserted }.sorted { $0.0.count > $1.0.count }
    }

    /// `text` with every recorded origin replaced.
    func rewrite(_ text: String) -> String {
        var out = text
        for (recorded, local) in variants where out.contains(recorded) {
            out = Self.replace(recorded, with: local, in: out)
        }
        return out
    }

    /// A template rewritten in its literal parts only.
    func rewriteTemplate(_ template: String) -> String {
        ReplayTemplate.mapLiterals(template) { [.literal(rewrite($0))] }
    }

    private static func replace(_ needle: String, with replacement: String, in text: String) -> String {
        var out = ""
        var rest = text[...]
        while let range = rest.range(of: needle) {
            let next = range.upperBound < rest.endIndex ? rest[range.upperBound] : nil
            // RFC 3986 §3.2.2: the host ends at `/ ? # :` or the end; `:` followed by a digit
            // is another port.
            let continuesHost = next.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" } ?? false
            var otherPort = false
            if next == ":", rest.index(after: range.upperBound) < rest.endIndex {
                otherPort = rest[rest.index(after: range.upperBound)].isNumber
            }
            out += rest[..<range.lowerBound]
            out += continuesHost || otherPort ? String(rest[range]) : replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
