import Foundation
import SAMLCore

/// The server side of NTLM (MS-NLMP) over HTTP, bare (`NTLM`) or inside SPNEGO (`Negotiate`,
/// RFC 4559), as IIS does it: NEGOTIATE → 401 with a CHALLENGE (server challenge, timestamp,
/// TargetInfo naming the domain and the server) → AUTHENTICATE, verified (NTLMv2 recomputed
/// from the user's password, the user and domain as the message names them).
///
/// The handshake is bound to the TCP connection, as IIS binds it: the CHALLENGE is remembered
/// for the connection it went out on, an AUTHENTICATE on any other connection finds none and
/// is challenged afresh; after a success the connection stays authenticated (a later request on
/// it without credentials is served, as IIS's connection-based authentication does).
///
/// Users log in as `EXAMPLE\alice`, `example.org\alice` or `alice@example.org` (a UPN, domain
/// empty); an empty domain with a bare name is taken as the server's own domain, as Windows
/// does. NTLMv1 and LM responses are refused (LmCompatibilityLevel 5) unless ``NTLMKnob/v1Only``.
public final class NTLMAuthenticator: Sendable {
    /// The Windows domain and server the mocks pose as.
    public enum Names {
        public static let netbiosDomain = "EXAMPLE"
        public static let dnsDomain = "example.org"
        public static let netbiosComputer = "SAMLH-WEB"
        public static let dnsComputer = "samlh-web.example.org"
    }

    /// The annotation keys written on NTLM exchanges (beside ``HTTPAuthResult/Key``).
    public enum Key {
        /// `negotiate`, `challenge` (a 401 carrying the server's CHALLENGE), `authenticate`.
        public static let message = "ntlm.message"
        /// The AUTHENTICATE's response kind: `NTLMv2`, `NTLMv1`, `NTLMv1-ESS`, `LM`, `anonymous`.
        public static let response = "ntlm.response"
        public static let user = "ntlm.user"
        public static let domain = "ntlm.domain"
        public static let workstation = "ntlm.workstation"
        /// `same` (the AUTHENTICATE came on the CHALLENGE's connection) or `new`.
        public static let connection = "ntlm.connection"
        /// The sequence-independent id of the connection the CHALLENGE went out on.
        public static let challengeConnection = "ntlm.challenge-connection"
        /// `spnego`, `raw` (NTLM under the Negotiate scheme), or absent for the NTLM scheme.
        public static let wrapping = "ntlm.wrapping"
        /// `echoed` (the NTLMv2 blob carries the CHALLENGE's TargetInfo unchanged), `changed`,
        /// `none` (the CHALLENGE had none).
        public static let targetInfo = "ntlm.target-info"
        /// `yes` when a request without credentials was served on a connection an NTLM login
        /// had authenticated.
        public static let connectionAuthenticated = "ntlm.connection-authenticated"
        /// The mechanisms a Negotiate client offered.
        public static let mechanisms = "ntlm.mechanisms"
        /// `Kerberos` when a Negotiate token carried a Kerberos AP-REQ.
        public static let negotiateMechanism = "negotiate.mechanism"
        /// The client principal of an accepted Kerberos ticket (`alice@EXAMPLE.ORG`).
        public static let kerberosClient = "kerberos.client"
        /// The service principal the ticket was for (`HTTP/127.0.0.1@EXAMPLE.ORG`).
        public static let kerberosService = "kerberos.service"
        /// Why GSS-API refused a Kerberos token, in MIT Kerberos's words.
        public static let kerberosError = "kerberos.error"
    }

    /// What to answer.
    public enum Outcome: Sendable {
        /// 401 (or 407): these challenge values, one field each.
        case challenge(values: [String], result: HTTPAuthResult, detail: String, annotations: [String: String],
                       closeConnection: Bool)
        /// Authenticated: serve the resource; `finalValue` is the `WWW-Authenticate` a
        /// Negotiate success carries (the server's accept-completed token), if any.
        case granted(user: TestUser, scheme: String, finalValue: String?, annotations: [String: String])
        /// 400: the token could not be read.
        case malformed(detail: String, annotations: [String: String])
    }

    /// Which schemes a resource offers.
    public struct Offer: Sendable, Equatable {
        public var negotiate: Bool
        public var ntlm: Bool
        public static let ntlmOnly = Offer(negotiate: false, ntlm: true)
        /// IIS's default: `Negotiate` then `NTLM`.
        public static let negotiateAndNTLM = Offer(negotiate: true, ntlm: true)

        public var values: [String] { (negotiate ? ["Negotiate"] : []) + (ntlm ? ["NTLM"] : []) }
        public var names: String { values.joined(separator: ", ") }
    }

    private struct Pending {
        var challenge: NTLMMessage.Challenge
        var serialized: [UInt8]
        var scheme: String
        /// The challenge counter when it was remembered (eviction order).
        var remembered: UInt64 = 0
    }

    private struct State {
        var pending: [Int: Pending] = [:]
        /// The user each authenticated connection logged in as, and the scheme it used.
        var authenticated: [Int: (user: String, scheme: String)] = [:]
        var counter: UInt64 = 0
    }

    let users: [TestUser]
    let seed: String
    let now: @Sendable () -> Date
    let knobs: @Sendable () -> [NTLMKnob]
    /// The realm's keys, when Negotiate may carry Kerberos (``KerberosAcceptor``).
    let kerberos: KerberosAcceptor?
    private let state = LockedValue(State())
    static let capacity = 4096

    /// `kerberos`: by default the realm `SAMLH_KERBEROS` names, if any.
    public init(users: [TestUser], seed: String, now: @escaping @Sendable () -> Date = { Date() },
                knobs: @escaping @Sendable () -> [NTLMKnob] = { [] },
                kerberos: KerberosAcceptor? = KerberosAcceptor.fromEnvironment()) {
        self.users = users
        self.seed = seed
        self.now = now
        self.knobs = knobs
        self.kerberos = kerberos
    }

    /// Judges one request's credentials field (`Authorization` or `Proxy-Authorization`).
    public func judge(_ field: String?, offer: Offer, connectionID: Int) -> Outcome {
        let active = Set(knobs())
        // A domain that blocks NTLM offers Negotiate alone and takes only Kerberos in it.
        let kerberosOnly = active.contains(.kerberosOnly) && offer.negotiate
        let offer = kerberosOnly ? Offer(negotiate: true, ntlm: false) : offer
        guard let field, !field.trimmingCharacters(in: .whitespaces).isEmpty else {
            if let known = state.withLock({ $0.authenticated[connectionID] }), let user = user(named: known.user) {
                return .granted(user: user, scheme: known.scheme, finalValue: nil,
                                annotations: [Key.connectionAuthenticated: "yes", Key.user: known.user])
            }
            return .challenge(values: offer.values, result: .missing, detail: "the request carried no credentials",
                              annotations: [:], closeConnection: false)
        }
        let scheme = String(field.drop { $0 == " " }.prefix { $0 != " " })
        let token = field.drop { $0 == " " }.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
        let isNegotiate = scheme.caseInsensitiveCompare("Negotiate") == .orderedSame
        let isNTLM = scheme.caseInsensitiveCompare("NTLM") == .orderedSame
        guard (isNegotiate && offer.negotiate) || (isNTLM && offer.ntlm) else {
            return .challenge(values: offer.values, result: .wrongCredentials,
                              detail: "the \(scheme) scheme is not offered here; the challenge offered \(offer.names)",
                              annotations: [:], closeConnection: false)
        }
        let schemeName = isNegotiate ? "Negotiate" : "NTLM"
        guard let data = Data(base64Encoded: token), !token.isEmpty else {
            return .malformed(detail: "`\(schemeName)` must be followed by one base64 token (RFC 4559 §4)", annotations: [:])
        }
        var notes: [String: String] = [:]
        var ntlmBytes = Array(data)
        var spnego = false
        if isNegotiate {
            // One parse serves both the mechanism's choice and the NTLM path below.
            let parsing = Result { try SPNEGO.parse(ntlmBytes) }
            let carried = SPNEGO.isBareKerberos(ntlmBytes) ? .kerberos : (try? parsing.get())?.carried ?? .other
            switch carried {
            case .kerberos:
                return acceptKerberos(ntlmBytes, offer: offer, connectionID: connectionID)
            case _ where kerberosOnly:
                // Whatever is not Kerberos — NTLM in any wrapping, a NegTokenResp continuing an
                // NTLM handshake, an empty or unknown mechanism list — is refused here.
                return .challenge(values: offer.values, result: .wrongCredentials,
                                  detail: "a Negotiate token without a Kerberos ticket (\(carried == .ntlm ? "NTLM" : "no Kerberos mechanism")); this domain refuses incoming NTLM (negotiate-kerberos-only) and takes Kerberos only",
                                  annotations: [Key.negotiateMechanism: carried == .ntlm ? "NTLM" : "other"], closeConnection: false)
            default:
                break
            }
            let parsed: SPNEGO.Token
            do {
                parsed = try parsing.get()
            } catch {
                return .malformed(detail: "the Negotiate token is neither SPNEGO nor NTLMSSP: \(error)", annotations: [:])
            }
            spnego = !parsed.rawNTLM
            notes[Key.wrapping] = parsed.rawNTLM ? "raw" : "spnego"
            if !parsed.mechTypes.isEmpty { notes[Key.mechanisms] = parsed.mechNames.joined(separator: ", ") }
            guard let inner = parsed.mechToken else {
                return .challenge(values: offer.values, result: .wrongCredentials,
                                  detail: parsed.offersNTLM ? "the SPNEGO token carries no NTLM message"
                                      : "the SPNEGO token offers only \(parsed.mechNames.joined(separator: ", ")); this server accepts NTLM inside Negotiate (no Kerberos realm here)",
                                  annotations: notes, closeConnection: false)
            }
            ntlmBytes = inner
        }
        let message: NTLMMessage
        do {
            message = try NTLMMessage.parse(ntlmBytes)
        } catch {
            return .malformed(detail: "the NTLM message cannot be read: \(error)", annotations: notes)
        }
        switch message {
        case .negotiate(let negotiate):
            notes[Key.message] = "challenge"
            let challenge = makeChallenge(negotiate: negotiate, knobs: active)
            let bytes = challenge.serialized()
            remember(Pending(challenge: challenge, serialized: bytes, scheme: schemeName), connectionID: connectionID)
            notes[Key.challengeConnection] = String(connectionID)
            let token = spnego ? SPNEGO.negTokenResp(state: .acceptIncomplete, responseToken: bytes) : bytes
            return .challenge(values: ["\(schemeName) \(Data(token).base64EncodedString())"], result: .missing,
                              detail: "NEGOTIATE received; CHALLENGE sent on connection \(connectionID)", annotations: notes,
                              closeConnection: active.contains(.newConnection))
        case .challenge:
            return .malformed(detail: "a client sent a CHALLENGE_MESSAGE (type 2), which only servers send", annotations: notes)
        case .authenticate(let authenticate):
            notes[Key.message] = "authenticate"
            notes[Key.response] = authenticate.responseKind.rawValue
            notes[Key.user] = authenticate.user
            notes[Key.domain] = authenticate.domain
            notes[Key.workstation] = authenticate.workstation
            let pending = state.withLock { state in state.pending.removeValue(forKey: connectionID) }
            guard let pending else {
                notes[Key.connection] = "new"
                return .challenge(values: offer.values, result: .wrongCredentials,
                                  detail: "AUTHENTICATE on connection \(connectionID), which was sent no CHALLENGE: the NTLM handshake is bound to the connection its CHALLENGE went out on",
                                  annotations: notes, closeConnection: active.contains(.newConnection))
            }
            notes[Key.connection] = "same"
            notes[Key.challengeConnection] = String(connectionID)
            notes[Key.targetInfo] = Self.targetInfoEcho(authenticate, challenge: pending.challenge)
            return verify(authenticate, pending: pending, offer: offer, knobs: active, connectionID: connectionID,
                          schemeName: schemeName, spnego: spnego, notes: notes)
        }
    }

    private func verify(_ message: NTLMMessage.Authenticate, pending: Pending, offer: Offer, knobs: Set<NTLMKnob>,
                        connectionID: Int, schemeName: String, spnego: Bool, notes: [String: String]) -> Outcome {
        let refuse = { (detail: String) -> Outcome in
            .challenge(values: offer.values, result: .wrongCredentials, detail: detail, annotations: notes,
                       closeConnection: knobs.contains(.newConnection))
        }
        let kind = message.responseKind
        guard let (user, problem) = account(user: message.user, domain: message.domain) else {
            return refuse("no user \(message.domain.isEmpty ? "" : message.domain + "\\")\(message.user) in domain \(Names.netbiosDomain)")
        }
        if let problem { return refuse(problem) }
        switch (kind, knobs.contains(.v1Only)) {
        case (.ntlmV2, true):
            return refuse("an NTLMv2 response; this server accepts NTLMv1/LM only (ntlm-v1-only)")
        case (.ntlmV1, false), (.ntlm2Session, false), (.lmOnly, false):
            return refuse("an \(kind.rawValue) response; this server accepts NTLMv2 only (LmCompatibilityLevel 5)")
        default:
            break
        }
        switch NTLMCrypto.verify(message, password: user.password, serverChallenge: pending.challenge.serverChallenge) {
        case .invalid(_, let reason):
            return refuse("wrong password for \(user.username): \(reason)")
        case .valid:
            if knobs.contains(.alwaysRechallenge) {
                return refuse("the credentials are right, but the server refuses the handshake (ntlm-always-rechallenge: IIS's loopback check)")
            }
            markAuthenticated(connectionID, user: user.username, scheme: schemeName)
            let final = spnego ? "\(schemeName) " + Data(SPNEGO.negTokenResp(state: .acceptCompleted, responseToken: nil)).base64EncodedString()
                : nil
            return .granted(user: user, scheme: schemeName, finalValue: final, annotations: notes)
        }
    }

    /// A Kerberos AP-REQ (bare or in SPNEGO) through GSS-API with the realm's keytab; the
    /// ticket's client principal must be a user of the profile in ``KerberosAcceptor/realm``.
    private func acceptKerberos(_ token: [UInt8], offer: Offer, connectionID: Int) -> Outcome {
        var notes = [Key.negotiateMechanism: "Kerberos"]
        let refuse = { (detail: String, notes: [String: String]) -> Outcome in
            .challenge(values: offer.values, result: .wrongCredentials, detail: detail, annotations: notes, closeConnection: false)
        }
        guard let kerberos else {
            return refuse("a Kerberos ticket, but this server holds no Kerberos keys (no realm: SAMLH_KERBEROS is not set), so it cannot read it", notes)
        }
        switch kerberos.accept(token) {
        case .refused(let reason):
            notes[Key.kerberosError] = reason
            return refuse("the Kerberos ticket was refused: \(reason)", notes)
        case .continueNeeded:
            return refuse("the Kerberos context needs another leg (a client asking for more than one AP-REQ), which this server does not keep across requests", notes)
        case .accepted(let client, let service, let reply):
            notes[Key.kerberosClient] = client
            notes[Key.kerberosService] = service
            let (name, realm) = client.lastIndex(of: "@").map { (String(client[..<$0]), String(client[client.index(after: $0)...])) }
                ?? (client, "")
            guard realm == KerberosAcceptor.realm, let user = user(named: name) else {
                return refuse("the ticket's client \(client) is not a user of \(KerberosAcceptor.realm) here", notes)
            }
            notes[Key.user] = user.username
            markAuthenticated(connectionID, user: user.username, scheme: "Negotiate")
            // Mutual authentication: the server's AP-REP in SPNEGO's accept-completed.
            let final = reply.isEmpty ? nil : "Negotiate " + Data(reply).base64EncodedString()
            return .granted(user: user, scheme: "Negotiate", finalValue: final, annotations: notes)
        }
    }

    /// Leaves the connection authenticated as `user` (IIS's connection-based authentication),
    /// within ``capacity``.
    private func markAuthenticated(_ connectionID: Int, user: String, scheme: String) {
        state.withLock { state in
            state.authenticated[connectionID] = (user, scheme)
            if state.authenticated.count > Self.capacity { state.authenticated.remove(at: state.authenticated.startIndex) }
        }
    }

    /// The user an AUTHENTICATE names, with a problem when its domain is not this one.
    private func account(user name: String, domain: String) -> (TestUser, String?)? {
        var accountName = name
        var realm = domain
        if let at = name.lastIndex(of: "@") {
            accountName = String(name[..<at])
            let suffix = String(name[name.index(after: at)...])
            if !realm.isEmpty, !isOurs(realm) { return user(named: accountName).map { ($0, "domain \(realm) is not \(Names.netbiosDomain)") } }
            realm = suffix
        }
        guard let user = user(named: accountName) else { return nil }
        if !realm.isEmpty, !isOurs(realm) {
            return (user, "domain \(realm) is not this server's (\(Names.netbiosDomain), \(Names.dnsDomain))")
        }
        return (user, nil)
    }

    private func isOurs(_ domain: String) -> Bool {
        [Names.netbiosDomain, Names.dnsDomain].contains { $0.caseInsensitiveCompare(domain) == .orderedSame }
    }

    private func user(named name: String) -> TestUser? {
        users.first { $0.username.caseInsensitiveCompare(name) == .orderedSame }
    }

    private func makeChallenge(negotiate: NTLMMessage.Negotiate, knobs: Set<NTLMKnob>) -> NTLMMessage.Challenge {
        let counter = state.withLock { state -> UInt64 in
            state.counter += 1
            return state.counter
        }
        let serverChallenge = Array(MessageDigest.sha256.hash(seed + ":ntlm:" + String(counter)).prefix(8))
        var flags: NTLMFlags = [.unicode, .requestTarget, .ntlm, .alwaysSign, .targetTypeDomain, .version, .key128, .key56]
        if negotiate.flags.contains(.keyExchange) { flags.insert(.keyExchange) }
        if negotiate.flags.contains(.sign) { flags.insert(.sign) }
        if negotiate.flags.contains(.seal) { flags.insert(.seal) }
        if knobs.contains(.v1Only) {
            return NTLMMessage.Challenge(flags: flags, targetName: Names.netbiosDomain, serverChallenge: serverChallenge,
                                         targetInfo: nil)
        }
        if negotiate.flags.contains(.extendedSessionSecurity) { flags.insert(.extendedSessionSecurity) }
        flags.insert(.targetInfo)
        var info: [AVPair] = []
        if !knobs.contains(.noDomain) { info.append(.text(AVPair.nbDomainName, Names.netbiosDomain)) }
        info.append(.text(AVPair.nbComputerName, Names.netbiosComputer))
        if !knobs.contains(.noDomain) { info.append(.text(AVPair.dnsDomainName, Names.dnsDomain)) }
        info.append(.text(AVPair.dnsComputerName, Names.dnsComputer))
        if !knobs.contains(.noDomain) { info.append(.text(AVPair.dnsTreeName, Names.dnsDomain)) }
        info.append(AVPair(id: AVPair.timestamp, value: NTLMCrypto.fileTime(now())))
        return NTLMMessage.Challenge(flags: flags, targetName: knobs.contains(.noDomain) ? "" : Names.netbiosDomain,
                                     serverChallenge: serverChallenge, targetInfo: info)
    }

    private func remember(_ pending: Pending, connectionID: Int) {
        state.withLock { state in
            // Past the capacity the connection remembered longest ago is forgotten (a scan only
            // then: a connection's number says when it was accepted, not when it was challenged).
            var entry = pending
            entry.remembered = state.counter
            state.pending[connectionID] = entry
            if state.pending.count > Self.capacity,
               let oldest = state.pending.min(by: { $0.value.remembered < $1.value.remembered })?.key {
                state.pending.removeValue(forKey: oldest)
            }
        }
    }

    /// Whether an NTLMv2 blob carries the CHALLENGE's AV pairs unchanged (a client may add its
    /// own: flags, a channel binding, a target name).
    static func targetInfoEcho(_ message: NTLMMessage.Authenticate, challenge: NTLMMessage.Challenge) -> String {
        guard let sent = challenge.targetInfo else { return "none" }
        guard let echoed = message.blobTargetInfo else { return "changed" }
        return sent.allSatisfy { pair in echoed.contains(pair) } ? "echoed" : "changed"
    }
}
