import Foundation
import Testing

@testable import ReferenceClient

/// The reference client's own NTLM (Foundation only) against the published vectors: RFC 1320
/// for MD4, MS-NLMP §4.2.4 for NTOWFv2 and the NTLMv2 proof, and its refusal of a CHALLENGE
/// without TargetInfo (the NTLMv1 downgrade).
@Suite struct NTLMClientTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func md4AndNTOWFv2MatchTheVectors() {
        #expect(Self.hex(MD4.hash([])) == "31d6cfe0d16ae931b73c59d7e0c089c0")
        #expect(Self.hex(MD4.hash(Array("message digest".utf8))) == "d9130a8164549fe818874806e1c7014b")
        #expect(Self.hex(MD4.hash(Array(String(repeating: "1234567890", count: 8).utf8))) == "e33b4ddc9c38f2199c3e7b164fcc0536")
        #expect(Self.hex(NTLM.ntowfV2(password: "Password", user: "User", domain: "Domain")) == "0c868a403bfd7a93a3001ef22ef02e3f")
    }

    /// §4.2.4.2.2: with time 0, client challenge aa…aa and the AV pairs Domain/Server, the
    /// NTProofStr is 68cd0ab8…6a1c; the message carries it, the user and the domain.
    @Test func theAuthenticateMessageCarriesTheSpecsProof() throws {
        let pairs: [UInt8] = [2, 0, 12, 0] + NTLM.utf16le("Domain") + [1, 0, 12, 0] + NTLM.utf16le("Server") + [0, 0, 0, 0]
        let challenge = NTLM.Challenge(flags: 0x0080_0201, serverChallenge: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef],
                                       targetInfo: pairs, timestamp: [UInt8](repeating: 0, count: 8))
        let message = try NTLM.authenticateMessage(challenge: challenge, user: "User", domain: "Domain", password: "Password",
                                                   clientChallenge: [UInt8](repeating: 0xaa, count: 8))
        let ntLength = Int(NTLM.u16(message, 20)), ntOffset = Int(NTLM.u32(message, 24))
        #expect(Self.hex(Array(message[ntOffset..<(ntOffset + 16)])) == "68cd0ab851e51c96aabc927bebef6a1c")
        #expect(ntLength == 16 + 28 + pairs.count + 4)
        #expect(NTLM.u16(message, 12) == 24 && message[Int(NTLM.u32(message, 16))..<Int(NTLM.u32(message, 16)) + 24].allSatisfy { $0 == 0 })
    }

    @Test func aChallengeWithoutTargetInfoIsRefused() throws {
        let challenge = NTLM.Challenge(flags: 0x0000_0201, serverChallenge: [UInt8](repeating: 1, count: 8), targetInfo: nil, timestamp: nil)
        #expect(throws: NTLM.Failure.self) {
            try NTLM.authenticateMessage(challenge: challenge, user: "alice", domain: "EXAMPLE", password: "x")
        }
    }

    @Test func spnegoWrappingRoundTrips() {
        let negotiate = NTLM.negotiateMessage()
        let response = SPNEGOWrapper.responseToken(negotiate)
        #expect(SPNEGOWrapper.innerToken(response) == negotiate)
        #expect(SPNEGOWrapper.innerToken(negotiate) == negotiate)
        #expect(SPNEGOWrapper.innerToken([0xA1, 0x84, 0xFF]) == nil)
    }
}
