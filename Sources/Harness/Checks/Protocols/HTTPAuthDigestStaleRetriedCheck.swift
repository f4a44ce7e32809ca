import Foundation
import MockServers

/// `httpauth.digest-stale-retried`: a `stale=true` challenge is answered with its fresh nonce,
/// not taken as a wrong password (RFC 7616 §3.3).
struct HTTPAuthDigestStaleRetriedCheck: Check {
    static let id = "httpauth.digest-stale-retried"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = context.entries
        var problems: [Evidence] = []
        var retried: [Evidence] = []
        for (index, stale) in entries.enumerated() where stale.mock != "proxy" && isStale(stale) {
            let fresh = Set(HTTPAuthTraffic.challenges(stale).compactMap { HTTPAuthTraffic.digestChallenge($0)?["nonce"] })
            let space = HTTPAuthTraffic.space(of: stale)
            guard let next = entries[(index + 1)...].first(where: { HTTPAuthTraffic.space(of: $0) == space }) else {
                var evidence = [ProtocolTraffic.evidence(stale, "stale=true with a fresh nonce; the client never retried",
                                                         excerpt: HTTPAuthTraffic.challenges(stale).joined(separator: "\n"))]
                if !context.execution.claimsSuccess { evidence.append(ProtocolTraffic.clientError(context.execution)) }
                problems += evidence
                continue
            }
            guard let field = next.request.header("Authorization"), HTTPAuthTraffic.scheme(field).lowercased() == "digest",
                  let parsed = try? AuthParameters.parse(field, expectToken68: false) else {
                problems.append(ProtocolTraffic.evidence(next, "after stale=true at #\(stale.sequence) the client did not answer with Digest credentials",
                                                         excerpt: next.request.header("Authorization").map { "Authorization: " + $0 } ?? "(no Authorization)"))
                continue
            }
            guard let nonce = parsed["nonce"], fresh.contains(nonce) else {
                problems.append(ProtocolTraffic.evidence(next, "after stale=true at #\(stale.sequence) the client answered with nonce \(parsed["nonce"] ?? "(none)"), not the fresh one (\(fresh.sorted().joined(separator: ", ")))",
                                                         excerpt: "Authorization: " + field))
                continue
            }
            retried.append(ProtocolTraffic.evidence(next, "retried with the fresh nonce from #\(stale.sequence)"))
        }
        if !problems.isEmpty {
            return .fail("a stale nonce was not answered with the fresh one", problems)
        }
        guard !retried.isEmpty else { return .notApplicable("no answer of the run carried stale=true") }
        return .pass("every stale=true challenge was answered with its fresh nonce", retried)
    }

    private func isStale(_ entry: TrafficEntry) -> Bool {
        if entry.annotations[HTTPAuthResult.Key.result] == HTTPAuthResult.staleNonce.rawValue { return true }
        return HTTPAuthTraffic.challenges(entry).contains { HTTPAuthTraffic.digestChallenge($0)?["stale"]?.lowercased() == "true" }
    }
}
