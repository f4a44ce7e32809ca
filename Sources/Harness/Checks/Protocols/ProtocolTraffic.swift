import Foundation
import MockServers
import SAMLCore

/// Small readers over the traffic log shared by the protocol checks: how to name an exchange
/// in evidence, and excerpts of the bytes that matter.
enum ProtocolTraffic {
    /// `#12 POST /cas/v1/tickets → 201` — how evidence names an exchange.
    static func describe(_ entry: TrafficEntry) -> String {
        let status = entry.response.map { String($0.status) } ?? "no answer"
        return "#\(entry.sequence) \(entry.request.method) \(entry.request.target) → \(status)"
    }

    /// Evidence pointing at one exchange.
    static func evidence(_ entry: TrafficEntry, _ detail: String, excerpt: String? = nil) -> Evidence {
        Evidence(exchange: entry.sequence, mock: entry.mock, detail: detail + MessageTraffic.replayContext(entry),
                 excerpt: excerpt.map { self.excerpt($0) })
    }

    /// At most `limit` characters of `text`.
    static func excerpt(_ text: String, limit: Int = 600) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// The client's error, as evidence.
    static func clientError(_ execution: ClientExecution) -> Evidence {
        let text = execution.report?.error ?? (execution.stderr.isEmpty ? execution.stdout : execution.stderr)
        return Evidence(detail: "the client's error", excerpt: excerpt(text.isEmpty ? "(nothing)" : text))
    }

    /// The time the answer of `entry` was ready (head arrival + body + wait).
    static func answered(_ entry: TrafficEntry) -> Date {
        entry.started.addingTimeInterval(entry.receiveDuration + entry.waitDuration)
    }

    /// The request's body parsed as XML, or the parser's complaint.
    static func parseXML(_ body: [UInt8]) -> Result<XMLDocument, Error> {
        Result { try XMLDocument(parsing: body) }
    }

    /// The first media type of a Content-Type value, lowercased, without parameters.
    static func mediaType(_ value: String?) -> String? {
        guard let value else { return nil }
        return value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// Whether `text` (the client's error and output) names `code`, ignoring case.
    static func names(_ text: String, _ code: String) -> Bool {
        text.range(of: code, options: .caseInsensitive) != nil
    }
}
