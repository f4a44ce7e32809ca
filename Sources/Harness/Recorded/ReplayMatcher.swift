import Foundation
import MockServers
import SAMLCore

/// Which recorded entry answers a request: same origin, method and path (percent-escapes
/// decoded), and the same set of query keys and — for form posts — form keys; never the
/// values. Among several, the first not yet answered in recorded order, else the last one.
enum ReplayMatcher {
    static func match(_ request: MockRequest, origin: String, in chain: RecordedChain,
                      consumed: Set<Int>) -> RecordedChain.Entry? {
        let candidates = chain.entries.filter { matches(request, origin: origin, $0) }
        return candidates.first { !consumed.contains($0.number) } ?? candidates.last
    }

    static func matches(_ request: MockRequest, origin: String, _ entry: RecordedChain.Entry) -> Bool {
        guard entry.origin == origin, entry.request.method == request.method.uppercased(),
              normalizedPath(entry.request.path) == normalizedPath(request.path),
              Set(entry.request.query) == Set(request.query.map(\.name)) else { return false }
        if let form = entry.request.form, isForm(request) {
            return Set(form) == Set(request.formFields.map(\.name))
        }
        return true
    }

    static func isForm(_ request: MockRequest) -> Bool {
        request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
    }

    /// RFC 3986 §6.2.2.2: percent-encoding normalization (`%7E` and `~` are the same path).
    static func normalizedPath(_ path: String) -> String {
        String(decoding: PercentEncoding.percentDecode(path, plusAsSpace: false), as: UTF8.self)
    }

    /// A 404 naming the closest recorded requests, annotated `replay.unmatched`.
    static func unmatched(_ request: MockRequest, origin: String, in chain: RecordedChain) -> MockResponse {
        let keys = Set(request.query.map(\.name)).union(isForm(request) ? Set(request.formFields.map(\.name)) : [])
        func score(_ entry: RecordedChain.Entry) -> Int {
            var score = 0
            if entry.origin == origin { score += 8 }
            if normalizedPath(entry.request.path) == normalizedPath(request.path) { score += 4 }
            if entry.request.method == request.method.uppercased() { score += 2 }
            let recorded = Set(entry.request.query).union(entry.request.form ?? [])
            score -= recorded.symmetricDifference(keys).count
            return score
        }
        let closest = chain.entries.sorted { score($0) > score($1) }.prefix(3)
        let lines = closest.map(describe)
        let sent = "\(request.method) \(request.path) query [\(request.query.map(\.name).joined(separator: ", "))]"
            + (isForm(request) ? " form [\(request.formFields.map(\.name).joined(separator: ", "))]" : "")
        let message = "The recording has no answer for \(sent) on \(origin). Closest recorded requests: "
            + lines.joined(separator: "; ")
        var response = MockResponse.errorPage(status: 404, title: "Not in the recording", message: message)
        response.annotations["replay.unmatched"] = "\(request.method) \(request.path)"
        response.annotations["replay.closest"] = closest.map { String($0.number) }.joined(separator: ",")
        response.annotations["replay.origin"] = origin
        return response
    }

    static func describe(_ entry: RecordedChain.Entry) -> String {
        var text = "entry \(entry.number): \(entry.request.method) \(entry.request.path)"
        if !entry.request.query.isEmpty { text += " query [\(entry.request.query.joined(separator: ", "))]" }
        if let form = entry.request.form { text += " form [\(form.joined(separator: ", "))]" }
        return text + " on \(entry.origin)"
    }
}
