import Foundation

/// NTLM for the reference client (MS-NLMP): the NEGOTIATE and AUTHENTICATE messages a client
/// sends and the CHALLENGE it reads, NTLMv2 only, with SPNEGO (RFC 4178) for `Negotiate`
/// (RFC 4559). Foundation only, written to be read: an app team can follow each step against
/// the spec section named beside it.
///
/// What it refuses on purpose: a CHALLENGE without TargetInfo (an NTLMv1-era server, or a
/// downgrade by someone in the middle) — this client never computes an NTLMv1 or LM response,
/// which are DES over the password's hash and crackable offline.
enum NTLM {
    /// NEGOTIATE flags (§2.2.2.5): Unicode, request the target, NTLM, always sign, extended
    /// session security, 128-bit and 56-bit. No domain or workstation is supplied here.
    static let negotiateFlags: UInt32 = 0x0000_0001 | 0x0000_0004 | 0x0000_0200 | 0x0000_8000 | 0x0008_0000
        | 0x2000_0000 | 0x8000_0000
    static let signature: [UInt8] = Array("NTLMSSP".utf8) + [0]

    /// The CHALLENGE fields a client needs (§2.2.1.2).
    struct Challenge {
        var flags: UInt32
        var serverChallenge: [UInt8]
        /// The raw TargetInfo (AV pairs, MsvAvEOL included); nil when the server sent none.
        var targetInfo: [UInt8]?
        /// MsvAvTimestamp's 8 bytes, when present.
        var timestamp: [UInt8]?
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// NEGOTIATE_MESSAGE (§2.2.1.1): signature, type 1, flags, two empty fields.
    static func negotiateMessage() -> [UInt8] {
        signature + le32(1) + le32(negotiateFlags) + field(0, 32) + field(0, 32)
    }

    /// Reads a CHALLENGE_MESSAGE, checking every length against the bytes.
    static func parseChallenge(_ bytes: [UInt8]) throws -> Challenge {
        guard bytes.count >= 32, Array(bytes[0..<8]) == signature, u32(bytes, 8) == 2 else {
            throw Failure(description: "the server's NTLM token is not a CHALLENGE message")
        }
        let flags = u32(bytes, 20)
        var info: [UInt8]?
        var timestamp: [UInt8]?
        if flags & 0x0080_0000 != 0, bytes.count >= 48 {
            let length = Int(u16(bytes, 40)), offset = Int(u32(bytes, 44))
            guard offset + length <= bytes.count else { throw Failure(description: "the CHALLENGE's TargetInfo runs past its end") }
            let pairs = Array(bytes[offset..<(offset + length)])
            info = pairs
            // Walk the AV pairs for MsvAvTimestamp (7).
            var index = 0
            while index + 4 <= pairs.count {
                let id = u16(pairs, index), size = Int(u16(pairs, index + 2))
                guard id != 0, index + 4 + size <= pairs.count else { break }
                if id == 7, size == 8 { timestamp = Array(pairs[(index + 4)..<(index + 12)]) }
                index += 4 + size
            }
        }
        return Challenge(flags: flags, serverChallenge: Array(bytes[24..<32]), targetInfo: info, timestamp: timestamp)
    }

    /// AUTHENTICATE_MESSAGE (§2.2.1.3) with an NTLMv2 response (§3.3.2):
    /// `NTProofStr = HMAC_MD5(NTOWFv2, ServerChallenge ‖ temp)`, where `temp` carries the
    /// timestamp, a fresh client challenge and the server's TargetInfo unchanged. With a
    /// server timestamp the LM response is 24 zero bytes, as §3.3.2 says.
    static func authenticateMessage(challenge: Challenge, user: String, domain: String, password: String,
                                    workstation: String = "", clientChallenge: [UInt8]? = nil, now: Date = Date()) throws -> [UInt8] {
        guard let targetInfo = challenge.targetInfo else {
            throw Failure(description: "the server's NTLM CHALLENGE carries no TargetInfo: it wants an NTLMv1 or LM response, "
                + "which this client never sends (an NTLMv1 downgrade refused)")
        }
        let key = ntowfV2(password: password, user: user, domain: domain)
        let nonce = clientChallenge ?? (0..<8).map { _ in UInt8.random(in: 0...255) }
        let time = challenge.timestamp ?? fileTime(now)
        let temp: [UInt8] = [1, 1, 0, 0, 0, 0, 0, 0] + time + nonce + [0, 0, 0, 0] + targetInfo + [0, 0, 0, 0]
        let ntResponse = HMACMD5.authenticate(key: key, message: challenge.serverChallenge + temp) + temp
        let lmResponse = challenge.timestamp != nil ? [UInt8](repeating: 0, count: 24)
            : HMACMD5.authenticate(key: key, message: challenge.serverChallenge + nonce) + nonce
        return authenticate(lm: lmResponse, nt: ntResponse, domain: domain, user: user, workstation: workstation,
                            flags: negotiateFlags & challenge.flags | 0x0000_0001)
    }

    /// The message bytes: the fixed 64-byte header, then the payload fields in order.
    static func authenticate(lm: [UInt8], nt: [UInt8], domain: String, user: String, workstation: String,
                             flags: UInt32) -> [UInt8] {
        let parts = [lm, nt, utf16le(domain), utf16le(user), utf16le(workstation), []]
        var header = signature + le32(3)
        var payload: [UInt8] = []
        var offset = 64
        for part in parts {
            header += field(part.count, offset)
            payload += part
            offset += part.count
        }
        return header + le32(flags) + payload
    }

    /// `NTOWFv2` (§3.3.2): `HMAC_MD5(MD4(UNICODE(Passwd)), UNICODE(Uppercase(User) ‖ UserDom))`.
    static func ntowfV2(password: String, user: String, domain: String) -> [UInt8] {
        HMACMD5.authenticate(key: MD4.hash(utf16le(password)), message: utf16le(user.uppercased() + domain))
    }

    static func fileTime(_ date: Date) -> [UInt8] {
        let ticks = UInt64(max(0, (date.timeIntervalSince1970 + 11_644_473_600) * 10_000_000))
        return (0..<8).map { UInt8(truncatingIfNeeded: ticks >> UInt64(8 * $0)) }
    }

    static func utf16le(_ text: String) -> [UInt8] {
        text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> UInt32(8 * $0)) } }
    static func field(_ length: Int, _ offset: Int) -> [UInt8] {
        let l = UInt16(length)
        return [UInt8(truncatingIfNeeded: l), UInt8(truncatingIfNeeded: l >> 8), UInt8(truncatingIfNeeded: l),
                UInt8(truncatingIfNeeded: l >> 8)] + le32(UInt32(offset))
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }
}

/// SPNEGO as `Negotiate` carries NTLM (RFC 4178 §4.2, RFC 4559): the first token wraps the
/// NEGOTIATE in a GSS-API InitialContextToken with a NegTokenInit offering only NTLM; the
/// server answers a NegTokenResp holding the CHALLENGE; the client's next token is a
/// NegTokenResp holding the AUTHENTICATE. DER, definite lengths.
enum SPNEGOWrapper {
    static let spnegoOID: [UInt8] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x02]
    static let ntlmOID: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0A]

    static func initialToken(_ negotiate: [UInt8]) -> [UInt8] {
        let mechTypes = tlv(0xA0, tlv(0x30, tlv(0x06, ntlmOID)))
        let mechToken = tlv(0xA2, tlv(0x04, negotiate))
        return tlv(0x60, tlv(0x06, spnegoOID) + tlv(0xA0, tlv(0x30, mechTypes + mechToken)))
    }

    static func responseToken(_ authenticate: [UInt8]) -> [UInt8] {
        tlv(0xA1, tlv(0x30, tlv(0xA2, tlv(0x04, authenticate))))
    }

    /// The NTLM message inside a server's NegTokenResp (its `responseToken`), or the token
    /// itself when the server answered with bare NTLM.
    static func innerToken(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes.starts(with: NTLM.signature) { return bytes }
        guard let (tag, body) = element(bytes, at: 0)?.0, tag == 0xA1,
              let (seqTag, seq) = element(body, at: 0)?.0, seqTag == 0x30 else { return nil }
        var index = 0
        while let ((fieldTag, value), next) = element(seq, at: index) {
            if fieldTag == 0xA2, let ((octetTag, octets), _) = element(value, at: 0), octetTag == 0x04 { return octets }
            index = next
        }
        return nil
    }

    /// One DER element at `index`: its tag and value, and the index after it.
    static func element(_ bytes: [UInt8], at index: Int) -> ((UInt8, [UInt8]), Int)? {
        guard index + 2 <= bytes.count else { return nil }
        var length = Int(bytes[index + 1])
        var start = index + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), start + count <= bytes.count else { return nil }
            length = bytes[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
            start += count
        }
        guard length <= bytes.count - start else { return nil }
        return ((bytes[index], Array(bytes[start..<(start + length)])), start + length)
    }

    static func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        if value.count < 0x80 { return [tag, UInt8(value.count)] + value }
        var length: [UInt8] = []
        var rest = value.count
        while rest > 0 {
            length.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        }
        return [tag, 0x80 | UInt8(length.count)] + length + value
    }
}

/// HMAC-MD5 (RFC 2104) over ``MD5``.
enum HMACMD5 {
    static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? MD5.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = MD5.hash(block.map { $0 ^ 0x36 } + message)
        return MD5.hash(block.map { $0 ^ 0x5C } + inner)
    }
}

/// MD4 (RFC 1320): only for NTLM's NT hash, `MD4(UNICODE(password))`. Not for security.
enum MD4 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        var bytes = message + [0x80]
        while bytes.count % 64 != 56 { bytes.append(0) }
        let bits = UInt64(message.count) &* 8
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: bits >> UInt64(8 * $0)) }
        func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            let x: [UInt32] = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[chunk + 4 * i + $1]) << (8 * UInt32($1)) } }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            // Three rounds of 16 steps (RFC 1320 §3.4): F, G (+0x5A827999), H (+0x6ED9EBA1).
            let rounds: [(order: [Int], shifts: [UInt32], add: UInt32, f: (UInt32, UInt32, UInt32) -> UInt32)] = [
                (Array(0..<16), [3, 7, 11, 19], 0, { x, y, z in x & y | ~x & z }),
                ([0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15], [3, 5, 9, 13], 0x5A82_7999, { x, y, z in x & y | x & z | y & z }),
                ([0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15], [3, 9, 11, 15], 0x6ED9_EBA1, { x, y, z in x ^ y ^ z }),
            ]
            for round in rounds {
                for step in 0..<16 {
                    let value = rotate(a &+ round.f(b, c, d) &+ x[round.order[step]] &+ round.add, round.shifts[step % 4])
                    (a, b, c, d) = (d, value, b, c)
                }
            }
            state[0] = state[0] &+ a
            state[1] = state[1] &+ b
            state[2] = state[2] &+ c
            state[3] = state[3] &+ d
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }
}
