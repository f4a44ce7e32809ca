/// MD4 (RFC 1320), for NTLM's NT hash (`NTOWFv1 = MD4(UNICODE(Passwd))`, MS-NLMP §3.3.1).
/// OpenSSL 3 keeps MD4 in its legacy provider, which is not loaded by default, so it is
/// written here; tested against RFC 1320 §A.5's suite.
public enum MD4 {
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        var a: UInt32 = 0x6745_2301, b: UInt32 = 0xEFCD_AB89, c: UInt32 = 0x98BA_DCFE, d: UInt32 = 0x1032_5476
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 0, to: 64, by: 8) { padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }

        func f(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { (x & y) | (~x & z) }
        func g(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { (x & y) | (x & z) | (y & z) }
        func h(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { x ^ y ^ z }
        func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }

        var x = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for i in 0..<16 {
                let o = block + i * 4
                x[i] = UInt32(padded[o]) | UInt32(padded[o + 1]) << 8 | UInt32(padded[o + 2]) << 16 | UInt32(padded[o + 3]) << 24
            }
            let (aa, bb, cc, dd) = (a, b, c, d)
            // Round 1.
            for i in stride(from: 0, to: 16, by: 4) {
                a = rotl(a &+ f(b, c, d) &+ x[i], 3)
                d = rotl(d &+ f(a, b, c) &+ x[i + 1], 7)
                c = rotl(c &+ f(d, a, b) &+ x[i + 2], 11)
                b = rotl(b &+ f(c, d, a) &+ x[i + 3], 19)
            }
            // Round 2.
            for i in 0..<4 {
                a = rotl(a &+ g(b, c, d) &+ x[i] &+ 0x5A82_7999, 3)
                d = rotl(d &+ g(a, b, c) &+ x[i + 4] &+ 0x5A82_7999, 5)
                c = rotl(c &+ g(d, a, b) &+ x[i + 8] &+ 0x5A82_7999, 9)
                b = rotl(b &+ g(c, d, a) &+ x[i + 12] &+ 0x5A82_7999, 13)
            }
            // Round 3.
            for i in [0, 2, 1, 3] {
                a = rotl(a &+ h(b, c, d) &+ x[i] &+ 0x6ED9_EBA1, 3)
                d = rotl(d &+ h(a, b, c) &+ x[i + 8] &+ 0x6ED9_EBA1, 9)
                c = rotl(c &+ h(d, a, b) &+ x[i + 4] &+ 0x6ED9_EBA1, 11)
                b = rotl(b &+ h(c, d, a) &+ x[i + 12] &+ 0x6ED9_EBA1, 15)
            }
            a = a &+ aa
            b = b &+ bb
            c = c &+ cc
            d = d &+ dd
        }
        var out: [UInt8] = []
        for word in [a, b, c, d] {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return out
    }
}
