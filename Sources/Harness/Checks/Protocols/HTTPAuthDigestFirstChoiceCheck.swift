import Foundation
import MockServers

/// `httpauth.digest-first-choice`: of several Digest challenges in one 401 (one per
/// algorithm, in the server's order of preference, RFC 7616 §3.7), the client answers the first
/// one it supports. A recommendation, as the RFC words it ("should use the first challenge it
/// supports, unless a local policy dictates otherwise"): a client answering a later one either
/// lacks the earlier algorithm or merges the challenges (python-requests reads them as one
/// header, the last `algorithm=` winning).
struct HTTPAuthDigestFirstChoiceCheck: Check {
    static let id = "httpauth.digest-first-choice"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var offered: [String: [(realm: String, algorithm: String, nonce: String?)]] = [:]  // origin → the last 401's Digest challenges, in order
        var judged: [Evidence] = []
        for entry in context.entries where entry.mock != "proxy" {
            let origin = MessageTraffic.destinationOrigin(entry)
            if let field = entry.request.header("Authorization"), HTTPAuthTraffic.scheme(field).lowercased() == "digest",
               let challenges = offered[origin], challenges.count > 1,
               let answer = HTTPAuthTraffic.digestChallenge(field) {
                let algorithm = (answer["algorithm"] ?? "MD5").uppercased()
                let nonce = answer["nonce"]
                // By algorithm and realm first: a server may give both challenges one nonce.
                let index = challenges.firstIndex { $0.algorithm == algorithm && $0.realm == (answer["realm"] ?? "") }
                    ?? challenges.firstIndex { $0.nonce != nil && $0.nonce == nonce }
                if let index, index > 0 {
                    let first = challenges[0]
                    return .fail("#\(entry.sequence) answered the Digest challenge offered \(Self.ordinal(index + 1)) (\(algorithm)), not the first (\(first.algorithm)); RFC 7616 §3.7: use the first challenge supported",
                                 [ProtocolTraffic.evidence(entry, "answered \(algorithm), offered: \(challenges.map(\.algorithm).joined(separator: ", "))",
                                                           excerpt: "Authorization: " + field)])
                }
                judged.append(ProtocolTraffic.evidence(entry, "answered the first Digest challenge (\(algorithm))"))
            }
            let digest = HTTPAuthTraffic.challenges(entry).compactMap { field -> (realm: String, algorithm: String, nonce: String?)? in
                guard let challenge = HTTPAuthTraffic.digestChallenge(field) else { return nil }
                return (challenge["realm"] ?? "", (challenge["algorithm"] ?? "MD5").uppercased(), challenge["nonce"])
            }
            if !digest.isEmpty { offered[origin] = digest }
        }
        guard !judged.isEmpty else { return .notApplicable("no Digest answer followed a 401 offering several Digest challenges") }
        return .pass("the client answered the first Digest challenge it was offered (\(judged.count) answer(s))", judged)
    }

    static func ordinal(_ n: Int) -> String { n == 2 ? "second" : n == 3 ? "third" : "\(n)th" }
}
