import Foundation

/// NTLM's one-way functions and responses (MS-NLMP §3.3.1, §3.3.2, §6), checked against the
/// spec's §4.2 test vectors: what a server needs to verify an AUTHENTICATE message, and what a
/// client computes.
public enum NTLMCrypto {
    /// `NTOWFv1(Passwd) = MD4(UNICODE(Passwd))`: the NT hash.
    public static func ntHash(password: String) -> [UInt8] { MD4.hash(NTLMMessage.utf16le(password)) }

    /// `NTOWFv2 = HMAC_MD5(MD4(UNICODE(Passwd)), UNICODE(ConcatenationOf(Uppercase(User), UserDom)))`.
    public static func ntowfV2(password: String, user: String, domain: String) -> [UInt8] {
        hmacMD5(key: ntHash(password: password), NTLMMessage.utf16le(user.uppercased() + domain))
    }

    /// `LMOWFv1`: DES of "KGS!@#$%" under the upper-cased OEM password, padded or cut to 14 bytes.
    public static func lmHash(password: String) -> [UInt8] {
        var oem = Array(password.uppercased().utf8.prefix(14))
        oem += [UInt8](repeating: 0, count: 14 - oem.count)
        let magic = Array("KGS!@#$%".utf8)
        return DES.encrypt(block: magic, key: DES.expandKey(Array(oem[0..<7])))
            + DES.encrypt(block: magic, key: DES.expandKey(Array(oem[7..<14])))
    }

    /// `DESL(K, D)`: the 24-byte response of NTLMv1 and LM (§6).
    public static func desl(key: [UInt8], data: [UInt8]) -> [UInt8] {
        let k = key + [UInt8](repeating: 0, count: 21 - key.count)
        return DES.encrypt(block: data, key: DES.expandKey(Array(k[0..<7])))
            + DES.encrypt(block: data, key: DES.expandKey(Array(k[7..<14])))
            + DES.encrypt(block: data, key: DES.expandKey(Array(k[14..<21])))
    }

    public static func hmacMD5(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? MessageDigest.md5.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = MessageDigest.md5.hash(block.map { $0 ^ 0x36 } + message)
        return MessageDigest.md5.hash(block.map { $0 ^ 0x5C } + inner)
    }

    /// The NTLMv2 response: `NTProofStr ‖ temp`, where `temp` is the client's blob (§3.3.2).
    public static func ntlmV2Response(responseKeyNT: [UInt8], serverChallenge: [UInt8], clientChallenge: [UInt8],
                                      timestamp: [UInt8], targetInfo: [UInt8]) -> [UInt8] {
        let temp: [UInt8] = [1, 1, 0, 0, 0, 0, 0, 0] + timestamp + clientChallenge + [0, 0, 0, 0] + targetInfo + [0, 0, 0, 0]
        return hmacMD5(key: responseKeyNT, serverChallenge + temp) + temp
    }

    /// `LMv2`: `HMAC_MD5(ResponseKeyLM, ServerChallenge ‖ ClientChallenge) ‖ ClientChallenge`.
    public static func lmV2Response(responseKeyLM: [UInt8], serverChallenge: [UInt8], clientChallenge: [UInt8]) -> [UInt8] {
        hmacMD5(key: responseKeyLM, serverChallenge + clientChallenge) + clientChallenge
    }

    /// What a server concluded from an AUTHENTICATE message.
    public enum Verdict: Sendable, Equatable {
        /// The response proves the password. `domainUsed` is the domain the proof was made
        /// with (the message's, or the other accepted form).
        case valid(kind: NTLMMessage.ResponseKind)
        /// A well-formed response that does not prove this password.
        case invalid(kind: NTLMMessage.ResponseKind, reason: String)
    }

    /// Verifies an AUTHENTICATE's NT (or LM) response for `password` against the challenge
    /// the server sent: NTLMv2 (`NTProofStr` recomputed over the client's blob with the user and
    /// domain as the message names them), NTLMv1, NTLMv1 with extended session security, LM.
    public static func verify(_ message: NTLMMessage.Authenticate, password: String, serverChallenge: [UInt8]) -> Verdict {
        let kind = message.responseKind
        switch kind {
        case .ntlmV2:
            let proof = Array(message.ntResponse.prefix(16))
            let blob = Array(message.ntResponse.dropFirst(16))
            let key = ntowfV2(password: password, user: message.user, domain: message.domain)
            return hmacMD5(key: key, serverChallenge + blob) == proof
                ? .valid(kind: kind) : .invalid(kind: kind, reason: "the NTProofStr does not match this password")
        case .ntlmV1:
            return desl(key: ntHash(password: password), data: serverChallenge) == message.ntResponse
                ? .valid(kind: kind) : .invalid(kind: kind, reason: "the NTLMv1 response does not match this password")
        case .ntlm2Session:
            let clientChallenge = Array(message.lmResponse.prefix(8))
            let data = Array(MessageDigest.md5.hash(serverChallenge + clientChallenge).prefix(8))
            return desl(key: ntHash(password: password), data: data) == message.ntResponse
                ? .valid(kind: kind) : .invalid(kind: kind, reason: "the NTLMv1 (ESS) response does not match this password")
        case .lmOnly:
            return desl(key: lmHash(password: password), data: serverChallenge) == message.lmResponse
                ? .valid(kind: kind) : .invalid(kind: kind, reason: "the LM response does not match this password")
        case .anonymous:
            return .invalid(kind: kind, reason: "an anonymous AUTHENTICATE (no responses)")
        case .unknown:
            return .invalid(kind: kind, reason: "an NT response of \(message.ntResponse.count) bytes is no known kind")
        }
    }

    /// The 8-byte little-endian FILETIME (100 ns since 1601-01-01) of `date`.
    public static func fileTime(_ date: Date) -> [UInt8] {
        let ticks = UInt64(max(0, (date.timeIntervalSince1970 + 11_644_473_600) * 10_000_000))
        return (0..<8).map { UInt8(truncatingIfNeeded: ticks >> UInt64(8 * $0)) }
    }
}
