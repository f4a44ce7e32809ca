import Foundation

/// One NTLM handshake over HTTP (MS-NLMP §3.1.5; RFC 4559 for `Negotiate`), answering a 401
/// that offered `Negotiate` or `NTLM`:
///
/// 1. the challenged request again with `Authorization: NTLM <NEGOTIATE>` (inside SPNEGO for
///    `Negotiate`);
/// 2. the server's 401 carries the CHALLENGE;
/// 3. the request again with the AUTHENTICATE (NTLMv2, `DOMAIN\user`) — on the same
///    connection: the server binds the handshake to it, so the session's pooled keep-alive
///    connection must carry all three requests.
///
/// The domain is `SAMLH_DOMAIN`, or the part before `\` in the user name; a UPN
/// (`alice@example.org`) goes as the user with an empty domain.
struct NTLMHandshake {
    let http: HTTPSession
    let behaviour: ClientBehaviour
    let username: String
    let password: String
    let configuredDomain: String?

    /// The scheme to use from a 401's challenges: `Negotiate` (SPNEGO-wrapped NTLM) when
    /// offered, else `NTLM`; nil when neither is.
    static func scheme(in challenges: [Challenge]) -> String? {
        if challenges.contains(where: { $0.scheme == "negotiate" }) { return "Negotiate" }
        if challenges.contains(where: { $0.scheme == "ntlm" }) { return "NTLM" }
        return nil
    }

    /// The account as NTLM names it: (user, domain).
    var account: (user: String, domain: String) {
        if let slash = username.firstIndex(of: "\\") {
            return (String(username[username.index(after: slash)...]), String(username[..<slash]))
        }
        // A bare name or a UPN (`alice@example.org`, sent whole) with the configured domain.
        return (username, configuredDomain ?? "")
    }

    /// Runs the three legs for `request`; returns the last answer (200, or a 401 that refused).
    func run(_ request: HTTPRequest, scheme: String) async throws -> HTTPResponse {
        let negotiate = scheme == "Negotiate"
        var first = request
        let type1 = NTLM.negotiateMessage()
        first.authorization = "\(scheme) " + Data(negotiate ? SPNEGOWrapper.initialToken(type1) : type1).base64EncodedString()
        let challenged = try await http.send(first)
        guard challenged.status == 401 else { return challenged }
        guard let token = Self.token(in: challenged.header("WWW-Authenticate") ?? "", scheme: scheme),
              let inner = negotiate ? SPNEGOWrapper.innerToken(token) : token else {
            throw ClientFailure("NTLM: the server answered the NEGOTIATE without a CHALLENGE (\(challenged.summaryWithChallenge))")
        }
        let type3 = try authenticate(inner, v1Variant: behaviour.ntlmV1Response, words: "NTLM")
        var third = request
        third.authorization = "\(scheme) " + Data(negotiate ? SPNEGOWrapper.responseToken(type3) : type3).base64EncodedString()
        third.freshConnection = !behaviour.ntlmSameConnection
        return try await http.follow(third)
    }

    /// The handshake with a proxy's `407 Proxy-Authenticate: NTLM`: `send` sends the request
    /// with the given `Proxy-Authorization` value; the NEGOTIATE, then the AUTHENTICATE.
    func runAtProxy(_ request: HTTPRequest, send: (String) async throws -> HTTPResponse) async throws -> HTTPResponse {
        let challenged = try await send("NTLM " + Data(NTLM.negotiateMessage()).base64EncodedString())
        guard challenged.status == 407 else { return challenged }
        guard let token = Self.token(in: challenged.header("Proxy-Authenticate") ?? "", scheme: "NTLM") else {
            throw ClientFailure("NTLM proxy: the proxy answered the NEGOTIATE without a CHALLENGE (HTTP 407)")
        }
        let message = try authenticate(token, v1Variant: nil, words: "NTLM proxy")
        return try await send("NTLM " + Data(message).base64EncodedString())
    }

    /// The AUTHENTICATE for a CHALLENGE message: NTLMv2 for the account (no domain under the
    /// `ntlm-no-domain` bug), or the `ntlm-v1` bug's NTLMv1; a failure named with `words`.
    private func authenticate(_ challengeBytes: [UInt8], v1Variant: NTLMv1Computation?, words: String) throws -> [UInt8] {
        do {
            let challenge = try NTLM.parseChallenge(challengeBytes)
            var (user, domain) = account
            if !behaviour.ntlmSendDomain { domain = "" }
            if let v1 = v1Variant {
                // The bug: an NTLMv1 response (DES over the NT hash), crackable offline.
                let ntHash = MD4.hash(NTLM.utf16le(password))
                return NTLM.authenticate(lm: [UInt8](repeating: 0, count: 24), nt: v1.compute(ntHash, challenge.serverChallenge),
                                         domain: domain, user: user, workstation: "", flags: NTLM.negotiateFlags & ~0x0008_0000)
            }
            return try NTLM.authenticateMessage(challenge: challenge, user: user, domain: domain, password: password)
        } catch let failure as NTLM.Failure {
            throw ClientFailure("\(words): \(failure.description)")
        }
    }

    /// The base64 token after `scheme` in a challenge field (fields joined with ", ").
    static func token(in field: String, scheme: String) -> [UInt8]? {
        for part in field.split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix(scheme.lowercased() + " ") else { continue }
            let value = trimmed.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
            if let data = Data(base64Encoded: value), !data.isEmpty { return Array(data) }
        }
        return nil
    }
}
