import Foundation
import MockServers
import SAMLCore

/// How the NTLM checks read the traffic: every NTLM or Negotiate message a client sent
/// (`Authorization` to an origin, `Proxy-Authorization` to the proxy), decoded from the bytes
/// it sent — the checks do not take the mocks' word for what a message was.
enum NTLMTraffic {
    struct Sent {
        var entry: TrafficEntry
        var field: String
        var scheme: String
        /// The token, base64-decoded (empty when it is not base64).
        var bytes: [UInt8]
        var message: NTLMMessage?
        /// Where it went: `proxy` or the origin the client asked for.
        var destination: String
    }

    static func fieldName(_ entry: TrafficEntry) -> String { entry.mock == "proxy" ? "Proxy-Authorization" : "Authorization" }

    static func destination(_ entry: TrafficEntry) -> String {
        entry.mock == "proxy" ? "the proxy \(entry.request.origin)" : MessageTraffic.destinationOrigin(entry)
    }

    /// The NTLM/Negotiate messages the client sent, in order.
    static func sent(_ entries: [TrafficEntry]) -> [Sent] {
        entries.compactMap { entry in
            guard let field = entry.request.header(fieldName(entry)) else { return nil }
            let scheme = HTTPAuthTraffic.scheme(field)
            guard ["ntlm", "negotiate"].contains(scheme.lowercased()) else { return nil }
            let token = field.drop { $0 == " " }.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
            let bytes = Data(base64Encoded: token).map(Array.init) ?? []
            return Sent(entry: entry, field: field, scheme: scheme, bytes: bytes,
                        message: decode(bytes, negotiate: scheme.lowercased() == "negotiate"), destination: destination(entry))
        }
    }

    static func decode(_ token: String, negotiate: Bool) -> NTLMMessage? {
        Data(base64Encoded: token).flatMap { decode(Array($0), negotiate: negotiate) }
    }

    static func decode(_ token: [UInt8], negotiate: Bool) -> NTLMMessage? {
        var bytes = token
        if negotiate {
            guard let inner = try? SPNEGO.parse(bytes).mechToken else { return nil }
            bytes = inner
        }
        return try? NTLMMessage.parse(bytes)
    }

    /// Whether an answer offers NTLM or Negotiate (`WWW-Authenticate` on a 401 from an origin,
    /// `Proxy-Authenticate` on a 407 from the proxy).
    static func offersWindowsAuth(_ entry: TrafficEntry) -> Bool {
        HTTPAuthTraffic.challenges(entry).contains { ["ntlm", "negotiate"].contains(HTTPAuthTraffic.scheme($0).lowercased()) }
    }

    /// The CHALLENGE message an answer carries, if any.
    static func challenge(_ entry: TrafficEntry) -> NTLMMessage.Challenge? {
        for value in HTTPAuthTraffic.challenges(entry) {
            let scheme = HTTPAuthTraffic.scheme(value)
            let token = value.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
            guard !token.isEmpty, case .challenge(let challenge)? = decode(token, negotiate: scheme.lowercased() == "negotiate")
            else { continue }
            return challenge
        }
        return nil
    }

    static func authenticates(_ entries: [TrafficEntry]) -> [(Sent, NTLMMessage.Authenticate)] {
        sent(entries).compactMap { sent in
            guard case .authenticate(let message)? = sent.message else { return nil }
            return (sent, message)
        }
    }

    static func line(_ sent: Sent) -> String { "\(fieldName(sent.entry)): \(sent.field)" }
}

/// `ntlm.v2-only`: every NTLM AUTHENTICATE carries an NTLMv2 response — never NTLMv1 (with or
/// without extended session security) or LM, which are DES over the password hash and
/// crackable offline from one captured exchange (MS-NLMP §3.3.1; Microsoft's LmCompatibilityLevel 5).
struct NTLMV2OnlyCheck: Check {
    static let id = "ntlm.v2-only"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let messages = NTLMTraffic.authenticates(context.entries)
        guard !messages.isEmpty else { return .notApplicable("the client sent no NTLM AUTHENTICATE message") }
        var problems: [Evidence] = []
        var good: [Evidence] = []
        for (sent, message) in messages {
            let kind = message.responseKind
            let sizes = "NtChallengeResponse \(message.ntResponse.count) bytes, LmChallengeResponse \(message.lmResponse.count) bytes"
            switch kind {
            case .ntlmV2:
                good.append(ProtocolTraffic.evidence(sent.entry, "NTLMv2 response to \(sent.destination) (\(sizes))"))
            case .ntlmV1, .ntlm2Session, .lmOnly:
                problems.append(ProtocolTraffic.evidence(sent.entry,
                    "an \(kind.rawValue) response to \(sent.destination) (\(sizes)): DES over the password's hash, crackable offline from this one message",
                    excerpt: NTLMTraffic.line(sent)))
            case .anonymous, .unknown:
                problems.append(ProtocolTraffic.evidence(sent.entry, "an AUTHENTICATE with no NTLMv2 response (\(kind.rawValue); \(sizes))",
                                                         excerpt: NTLMTraffic.line(sent)))
            }
        }
        if !problems.isEmpty { return .fail("\(problems.count) AUTHENTICATE message(s) without an NTLMv2 response", problems) }
        return .pass("\(good.count) AUTHENTICATE message(s), each NTLMv2", good)
    }
}

/// `ntlm.handshake-correct`: each AUTHENTICATE answers the CHALLENGE of its own connection (the
/// handshake is connection-bound, MS-NLMP §3.1.5; RFC 4559 §4), names a domain (or a UPN), and
/// its NTLMv2 blob carries the CHALLENGE's TargetInfo unchanged (§3.3.2: the proof covers it).
struct NTLMHandshakeCorrectCheck: Check {
    static let id = "ntlm.handshake-correct"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = context.entries
        let messages = NTLMTraffic.authenticates(entries)
        guard !messages.isEmpty else { return .notApplicable("the client sent no NTLM AUTHENTICATE message") }
        var problems: [Evidence] = []
        var good: [Evidence] = []
        // Every answer that carries a CHALLENGE, decoded once.
        let challenges = entries.compactMap { entry in NTLMTraffic.challenge(entry).map { (entry: entry, challenge: $0) } }
        for (sent, message) in messages {
            // The CHALLENGE it answers: the last answer carrying one from the same destination.
            guard let (challengeEntry, challenge) = challenges.last(where: {
                $0.entry.sequence < sent.entry.sequence && NTLMTraffic.destination($0.entry) == sent.destination
            }) else {
                problems.append(ProtocolTraffic.evidence(sent.entry, "an AUTHENTICATE to \(sent.destination) that answers no CHALLENGE from it",
                                                         excerpt: NTLMTraffic.line(sent)))
                continue
            }
            var wrong: [String] = []
            let closed = challengeEntry.response?.header("Connection")?.lowercased() == "close"
            if challengeEntry.request.connectionID != sent.entry.request.connectionID, !closed {
                wrong.append("sent on connection \(sent.entry.request.connectionID), not on \(challengeEntry.request.connectionID) where the CHALLENGE of #\(challengeEntry.sequence) came (and which the server kept open)")
            }
            if message.domain.isEmpty, !message.user.contains("@") {
                wrong.append("no domain (user `\(message.user)`, DomainName empty; give `DOMAIN\\user` or a UPN)")
            }
            if message.responseKind == .ntlmV2, let info = challenge.targetInfo, message.ntResponse.count > 44 {
                let echoed = message.blobTargetInfo ?? []
                let missing = info.filter { !echoed.contains($0) }
                if !missing.isEmpty {
                    wrong.append("its NTLMv2 blob lacks \(missing.count) of the CHALLENGE's \(info.count) TargetInfo AV pairs (ids \(missing.map { String($0.id) }.joined(separator: ", ")))")
                }
            }
            if wrong.isEmpty {
                good.append(ProtocolTraffic.evidence(sent.entry,
                    "answers the CHALLENGE of #\(challengeEntry.sequence) on its connection as \(message.domain.isEmpty ? "" : message.domain + "\\")\(message.user)"))
            } else {
                problems.append(ProtocolTraffic.evidence(sent.entry, "AUTHENTICATE to \(sent.destination): " + wrong.joined(separator: "; "),
                                                         excerpt: NTLMTraffic.line(sent)))
            }
        }
        if !problems.isEmpty { return .fail("\(problems.count) NTLM handshake(s) done wrong", problems) }
        return .pass("\(good.count) AUTHENTICATE message(s) on the CHALLENGE's connection, with a domain, TargetInfo echoed", good)
    }
}

/// `ntlm.credentials-scoped`: NTLM credentials go only where Windows authentication was asked
/// for. An AUTHENTICATE (the user name and a proof crackable offline) only to an origin (or the
/// proxy) that answered 401 (407) offering NTLM or Negotiate earlier in the run; any NTLM or
/// Negotiate message only to a destination that asks for it at all (a NEGOTIATE sent ahead of
/// that destination's own challenge carries no credentials, as `curl --ntlm` sends it).
struct NTLMCredentialsScopedCheck: Check {
    static let id = "ntlm.credentials-scoped"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = context.entries
        let sent = NTLMTraffic.sent(entries)
        guard !sent.isEmpty else { return .notApplicable("the client sent no NTLM or Negotiate message") }
        let asking = entries.filter(NTLMTraffic.offersWindowsAuth)
        var problems: [Evidence] = []
        var notes: [Evidence] = []
        var good = 0
        for message in sent {
            let askedBefore = asking.contains { $0.sequence < message.entry.sequence && NTLMTraffic.destination($0) == message.destination }
            if askedBefore {
                good += 1
                continue
            }
            if case .authenticate? = message.message {
                problems.append(ProtocolTraffic.evidence(message.entry,
                    "an AUTHENTICATE (user name and password proof) sent to \(message.destination), which had not asked for Windows authentication",
                    excerpt: NTLMTraffic.line(message)))
                continue
            }
            if asking.contains(where: { $0.sequence >= message.entry.sequence && NTLMTraffic.destination($0) == message.destination }) {
                good += 1
                notes.append(ProtocolTraffic.evidence(message.entry, "a \(message.scheme) message sent to \(message.destination) ahead of its challenge (no credentials in it)"))
                continue
            }
            problems.append(ProtocolTraffic.evidence(message.entry,
                "a \(message.scheme) message sent to \(message.destination), which never asks for Windows authentication",
                excerpt: NTLMTraffic.line(message)))
        }
        if !problems.isEmpty { return .fail("\(problems.count) NTLM message(s) offered where none was asked for", problems) }
        return .pass("\(good) NTLM message(s), each to a destination that asks for NTLM or Negotiate", notes)
    }
}

/// `ntlm.bad-credentials-bounded`: AUTHENTICATE messages the server refused (401/407 again) are
/// few: a client stops and reports instead of trying again and again (each try is a failed
/// logon that counts toward the account's lockout threshold).
struct NTLMBadCredentialsBoundedCheck: Check {
    static let id = "ntlm.bad-credentials-bounded"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let limit = context.integer("max_attempts", check: Self.id) ?? 3
        let messages = NTLMTraffic.authenticates(context.entries)
        guard !messages.isEmpty else { return .notApplicable("the client sent no NTLM AUTHENTICATE message") }
        let refused = messages.filter { sent, _ in
            guard let status = sent.entry.response?.status else { return false }
            return status == 401 || status == 407
        }
        let evidence = refused.map { sent, message in
            ProtocolTraffic.evidence(sent.entry, "AUTHENTICATE as \(message.domain.isEmpty ? "" : message.domain + "\\")\(message.user) refused (\(sent.entry.response?.status ?? 0))")
        }
        if refused.count > limit {
            return .fail("\(refused.count) refused AUTHENTICATE messages; at most \(limit) allowed", Array(evidence.prefix(20)))
        }
        return .pass("\(refused.count) refused AUTHENTICATE message(s) (at most \(limit))", evidence)
    }
}

/// `ntlm.kerberos-preferred`: a client that holds a Kerberos ticket (the scenario gives it one,
/// `options.kerberos`) answers `Negotiate` with Kerberos — an AP-REQ whose ticket names the
/// service of the host it asked (`HTTP/<host>`) — and never with NTLM, bare or inside SPNEGO.
/// NTLM is the fallback a domain blocks ("Restrict NTLM"); a client that picks it while a
/// ticket is at hand downgrades to the weaker protocol (RFC 4559 §4; MS-SPNG §3.3.5.2).
struct NTLMKerberosPreferredCheck: Check {
    static let id = "ntlm.kerberos-preferred"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let sent = NTLMTraffic.sent(context.entries).filter { $0.entry.mock != "proxy" }
        guard !sent.isEmpty else { return .notApplicable("the client sent no Negotiate or NTLM token to an origin") }
        var problems: [Evidence] = []
        var good: [Evidence] = []
        for message in sent {
            let bytes = message.bytes
            let negotiate = message.scheme.lowercased() == "negotiate"
            if negotiate, let (service, realm) = SPNEGO.kerberosTicketService(bytes) {
                let principal = service.joined(separator: "/") + "@" + realm
                let host = URLComponents(string: message.destination)?.host ?? ""
                if service.count == 2, service[0].uppercased() == "HTTP", service[1].lowercased() == host.lowercased() {
                    good.append(ProtocolTraffic.evidence(message.entry, "Kerberos AP-REQ to \(message.destination), its ticket for \(principal)"))
                } else {
                    problems.append(ProtocolTraffic.evidence(message.entry,
                        "a Kerberos ticket for \(principal) sent to \(message.destination), whose service is HTTP/\(host)",
                        excerpt: NTLMTraffic.line(message)))
                }
                continue
            }
            if message.message != nil {
                let wrapped = negotiate ? "NTLM inside Negotiate" : "the NTLM scheme"
                problems.append(ProtocolTraffic.evidence(message.entry,
                    "\(wrapped) to \(message.destination) while the client held a Kerberos ticket: a downgrade to NTLM",
                    excerpt: NTLMTraffic.line(message)))
            } else if negotiate, SPNEGO.carried(bytes) == .kerberos {
                problems.append(ProtocolTraffic.evidence(message.entry,
                    "a Negotiate token to \(message.destination) that claims Kerberos but holds no readable AP-REQ ticket",
                    excerpt: NTLMTraffic.line(message)))
            }
            // Anything else (a NegTokenResp continuing a context) carries neither a ticket nor NTLM.
        }
        if !problems.isEmpty { return .fail("\(problems.count) token(s) that are not Kerberos for the host asked", problems) }
        guard !good.isEmpty else { return .notApplicable("no Negotiate token carried a Kerberos ticket or an NTLM message") }
        return .pass("\(good.count) Negotiate token(s), each a Kerberos AP-REQ for the host's HTTP service", good)
    }
}
