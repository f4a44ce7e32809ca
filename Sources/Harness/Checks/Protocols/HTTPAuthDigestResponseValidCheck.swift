import Foundation
import MockServers

/// `httpauth.digest-response-valid`: each Digest answer is recomputed from the request and the
/// user's password — offered algorithm, qop=auth, cnonce, nc increasing per nonce, uri, opaque
/// (RFC 7616 §3.4).
struct HTTPAuthDigestResponseValidCheck: Check {
    static let id = "httpauth.digest-response-valid"

    /// What the challenges of one realm offered so far.
    private struct Offer {
        var algorithms: Set<String> = []
        var nonces: Set<String> = []
        var opaque: String?
    }

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var offers: [String: Offer] = [:]  // origin + realm
        var counts: [String: UInt32] = [:]  // nonce → highest nc sent
        var problems: [Evidence] = []
        var valid: [Evidence] = []
        for entry in context.entries where entry.mock != "proxy" {
            defer { record(entry, into: &offers) }
            guard let field = entry.request.header("Authorization"), HTTPAuthTraffic.scheme(field).lowercased() == "digest" else {
                continue
            }
            let credentials: DigestCredentials
            do {
                credentials = try DigestCredentials.read(AuthParameters.parse(field, expectToken68: false))
            } catch {
                problems.append(ProtocolTraffic.evidence(entry, "the Digest credentials cannot be read: \(error)", excerpt: "Authorization: " + field))
                continue
            }
            var wrong: [String] = []
            let offer = offers[entry.request.origin + "\n" + credentials.realm]
            if let offer {
                if !offer.algorithms.contains(credentials.algorithm.rawValue.lowercased()) {
                    wrong.append("algorithm=\(credentials.algorithm.rawValue) was not offered (offered \(offer.algorithms.sorted().joined(separator: ", ")))")
                }
                if !offer.nonces.contains(credentials.nonce) {
                    wrong.append("nonce \"\(credentials.nonce)\" was never issued for realm \"\(credentials.realm)\"")
                }
                if let opaque = offer.opaque, credentials.opaque != opaque {
                    wrong.append("opaque \(credentials.opaque.map { "\"\($0)\"" } ?? "missing") is not the challenge's \"\(opaque)\"")
                }
            } else {
                wrong.append("no challenge of this origin offered realm \"\(credentials.realm)\"")
            }
            if credentials.uri != entry.request.target && credentials.uri != entry.request.url {
                wrong.append("uri=\"\(credentials.uri)\" is not the request-target \(entry.request.target)")
            }
            if let last = counts[credentials.nonce], credentials.nonceCount <= last {
                wrong.append("nc=\(credentials.nc) does not increase (nc \(String(format: "%08x", last)) was already sent with this nonce)")
            }
            counts[credentials.nonce] = max(counts[credentials.nonce] ?? 0, credentials.nonceCount)
            if let username = context.target.username, let password = context.target.password {
                let expectedUser = credentials.userhash
                    ? credentials.algorithm.userhash(username: username, realm: credentials.realm) : username
                if credentials.username != expectedUser {
                    wrong.append("username \"\(credentials.username)\" is not the user the client was given (\(username))")
                } else {
                    let expected = credentials.algorithm.response(
                        username: username, realm: credentials.realm, password: password, method: entry.request.method,
                        uri: credentials.uri, nonce: credentials.nonce, nc: credentials.nc, cnonce: credentials.cnonce,
                        qop: credentials.qop)
                    if credentials.response.lowercased() != expected {
                        wrong.append("response=\(credentials.response), but \(credentials.algorithm.rawValue) over this request and the password gives \(expected)")
                    }
                }
            }
            if wrong.isEmpty {
                valid.append(ProtocolTraffic.evidence(entry, "\(credentials.algorithm.rawValue) response right (nc \(credentials.nc))"))
            } else {
                problems.append(ProtocolTraffic.evidence(entry, wrong.joined(separator: "; "), excerpt: "Authorization: " + field))
            }
        }
        if !problems.isEmpty {
            return .fail("\(problems.count) Digest answer(s) computed wrong", problems)
        }
        guard !valid.isEmpty else { return .notApplicable("the client sent no Digest credentials") }
        let note = context.target.password == nil ? " (the password is unknown, so response values were not recomputed)" : ""
        return .pass("\(valid.count) Digest answer(s) computed right\(note)", valid)
    }

    /// Notes what the Digest challenges of an answer offered.
    private func record(_ entry: TrafficEntry, into offers: inout [String: Offer]) {
        for field in HTTPAuthTraffic.challenges(entry) {
            guard let challenge = HTTPAuthTraffic.digestChallenge(field), let realm = challenge["realm"] else { continue }
            var offer = offers[entry.request.origin + "\n" + realm] ?? Offer()
            // RFC 7616 §3.3: no algorithm means MD5.
            offer.algorithms.insert((challenge["algorithm"] ?? "MD5").lowercased())
            if let nonce = challenge["nonce"] { offer.nonces.insert(nonce) }
            if let opaque = challenge["opaque"] { offer.opaque = opaque }
            offers[entry.request.origin + "\n" + realm] = offer
        }
    }
}
