import Foundation
import Testing

@testable import SAMLCore

/// NTLM's primitives against the published vectors: RFC 1320 (MD4), FIPS 81/the classic DES
/// example, and MS-NLMP §4.2 (User / Domain / Password, server challenge 0123456789abcdef,
/// client challenge aaaaaaaaaaaaaaaa, time 0, AV pairs Domain and Server).
@Suite struct NTLMTests {
    static func hex(_ text: String) -> [UInt8] {
        let clean = text.filter { !$0.isWhitespace }
        return stride(from: 0, to: clean.count, by: 2).map {
            UInt8(clean[clean.index(clean.startIndex, offsetBy: $0)..<clean.index(clean.startIndex, offsetBy: $0 + 2)], radix: 16)!
        }
    }

    @Test(arguments: [
        ("", "31d6cfe0d16ae931b73c59d7e0c089c0"),
        ("a", "bde52cb31de33e46245e05fbdbd6fb24"),
        ("abc", "a448017aaf21d8525fc10ae87aa6729d"),
        ("message digest", "d9130a8164549fe818874806e1c7014b"),
        ("abcdefghijklmnopqrstuvwxyz", "d79e1c308aa5bbcdeea8ed63df412da9"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "e33b4ddc9c38f2199c3e7b164fcc0536"),
    ])
    func md4MatchesRFC1320(message: String, digest: String) {
        #expect(MD4.hash(Array(message.utf8)) == Self.hex(digest))
    }

    @Test func desMatchesTheClassicExample() {
        #expect(DES.encrypt(block: Self.hex("0123456789ABCDEF"), key: Self.hex("133457799BBCDFF1")) == Self.hex("85E813540F0AB405"))
    }

    static let serverChallenge = hex("0123456789abcdef")
    static let clientChallenge = hex("aaaaaaaaaaaaaaaa")

    @Test func ntlmV1ValuesMatchMSNLMP4_2_2() {
        #expect(NTLMCrypto.lmHash(password: "Password") == Self.hex("e52cac67419a9a224a3b108f3fa6cb6d"))
        #expect(NTLMCrypto.ntHash(password: "Password") == Self.hex("a4f49c406510bdcab6824ee7c30fd852"))
        #expect(NTLMCrypto.desl(key: NTLMCrypto.ntHash(password: "Password"), data: Self.serverChallenge)
                == Self.hex("67c43011f30298a2ad35ece64f16331c44bdbed927841f94"))
        #expect(NTLMCrypto.desl(key: NTLMCrypto.lmHash(password: "Password"), data: Self.serverChallenge)
                == Self.hex("98def7b87f88aa5dafe2df779688a172def11c7d5ccdef13"))
    }

    static let targetInfo: [UInt8] = AVPair.serialize([.text(AVPair.nbDomainName, "Domain"), .text(AVPair.nbComputerName, "Server")])

    @Test func ntlmV2ValuesMatchMSNLMP4_2_4() {
        let key = NTLMCrypto.ntowfV2(password: "Password", user: "User", domain: "Domain")
        #expect(key == Self.hex("0c868a403bfd7a93a3001ef22ef02e3f"))
        #expect(NTLMCrypto.lmV2Response(responseKeyLM: key, serverChallenge: Self.serverChallenge, clientChallenge: Self.clientChallenge)
                == Self.hex("86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa"))
        let response = NTLMCrypto.ntlmV2Response(responseKeyNT: key, serverChallenge: Self.serverChallenge,
                                                 clientChallenge: Self.clientChallenge, timestamp: [UInt8](repeating: 0, count: 8),
                                                 targetInfo: Self.targetInfo)
        #expect(Array(response.prefix(16)) == Self.hex("68cd0ab851e51c96aabc927bebef6a1c"))
    }

    @Test func anAuthenticateMessageRoundTripsAndVerifies() throws {
        let nt = NTLMCrypto.ntlmV2Response(responseKeyNT: NTLMCrypto.ntowfV2(password: "Password", user: "User", domain: "Domain"),
                                           serverChallenge: Self.serverChallenge, clientChallenge: Self.clientChallenge,
                                           timestamp: NTLMCrypto.fileTime(Date()), targetInfo: Self.targetInfo)
        let message = NTLMMessage.Authenticate(flags: [.unicode, .ntlm, .extendedSessionSecurity], lmResponse: [UInt8](repeating: 0, count: 24),
                                               ntResponse: nt, domain: "Domain", user: "User", workstation: "COMPUTER")
        guard case .authenticate(let parsed) = try NTLMMessage.parse(message.serialized()) else {
            Issue.record("not an AUTHENTICATE")
            return
        }
        #expect(parsed == message)
        #expect(parsed.responseKind == .ntlmV2)
        #expect(NTLMCrypto.verify(parsed, password: "Password", serverChallenge: Self.serverChallenge) == .valid(kind: .ntlmV2))
        guard case .invalid = NTLMCrypto.verify(parsed, password: "password", serverChallenge: Self.serverChallenge) else {
            Issue.record("a wrong password verified")
            return
        }
    }

    @Test func aChallengeRoundTripsThroughSPNEGO() throws {
        let challenge = NTLMMessage.Challenge(flags: [.unicode, .ntlm, .targetInfo], targetName: "EXAMPLE",
                                              serverChallenge: Self.serverChallenge,
                                              targetInfo: [.text(AVPair.nbDomainName, "EXAMPLE")])
        let wrapped = SPNEGO.negTokenResp(state: .acceptIncomplete, responseToken: challenge.serialized())
        let token = try SPNEGO.parse(wrapped)
        #expect(token.negState == .acceptIncomplete)
        guard case .challenge(let parsed) = try NTLMMessage.parse(try #require(token.mechToken)) else {
            Issue.record("not a CHALLENGE")
            return
        }
        #expect(parsed == challenge)
        let initial = try SPNEGO.parse(SPNEGO.initialToken(ntlm: NTLMMessage.Negotiate(flags: [.unicode, .ntlm]).serialized()))
        #expect(initial.offersNTLM && !initial.rawNTLM && initial.mechNames == ["NTLM"])
    }

    @Test(arguments: [
        [UInt8](), Array("NTLMSSP".utf8) + [0, 3, 0, 0, 0], Array("NTLMSSP".utf8) + [0, 9, 0, 0, 0, 0, 0, 0, 0],
        Array("NTLMSSP".utf8) + [0, 3, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 60),
    ])
    func brokenMessagesFailWithAReason(bytes: [UInt8]) {
        #expect(throws: NTLMMessage.Failure.self) { try NTLMMessage.parse(bytes) }
    }

    /// A Negotiate token curl 7.88.1 (GSS-API, MIT Kerberos 1.20.1) sent to the mock with a ticket
    /// of the throwaway realm scripts/setup-kerberos.sh makes: SPNEGO, Kerberos first, the AP-REQ
    /// as mechToken.
    static let curlKerberosToken = "YIIC9QYGKwYBBQUCoIIC6TCCAuWgDTALBgkqhkiG9xIBAgKiggLSBIICzmCCAsoGCSqGSIb3EgECAgEAboICuTCCArWgAwIBBaEDAgEOogcDBQAgAAAAo4IBzWGCAckwggHFoAMCAQWhDRsLRVhBTVBMRS5PUkeiHDAaoAMCAQGhEzARGwRIVFRQGwkxMjcuMC4wLjGjggGPMIIBi6ADAgESoQMCAQKiggF9BIIBeeOmF1CLtVRbceQWTpCs7rxzGzZ3HIQ6TbXygJmoJBzcThFXC+p5J5OcrJHOL02fuUF/fGPKve41gm9KpPYWcI+xzfhp6swMVuzPHA1nQba1iICuOu+v5rfuZdvRDSYsuApHjba6UwvElYD68+uRFPJHTXbMDvSGJ95NZ6Ffu9UIR0DpzNFuc4dXb9feOLTAi2HLPg1he36g+2AGmw/vFCFjkOn69aAkwGLZv3SqjipIknrkNSFsY2WpqzMYrfZek1XFwtfVERD9nwsJub6CANKVGQZ4IJ3SZU82gHa/GP55rLBzKJV3m9/nLj98xqshjGFtZzZ/yyMEhClhWK6bG0yS1LuTv+eEABtVmr/+gS46oHnYp+NkiBDPLedpIngxSXK+fAiHs0F7VEjeaRbz9Hk1MSlspG0CMVEqNA6yYF1G9DLErFqggNUqid5M9gWo1NQCJXMlKjPuQS9la04lASnmEewJtsYRkKqfid4JjEIFTlUeE1sNJjKvpIHOMIHLoAMCARKigcMEgcBEJlbo99aAtrdLst9D01OwseoRcqEEcScOc8RJh1U2xzMbkUnySS605Do1oLLGHa38mRG6hyWOuPiKxjQDmxXlSFK6IpWJk+lw3VdInbVwYZ2COIrsLbrEOVXSskmBwf/HmmELSFgDcRfM9KQZaEXTTxCRNwxO1PPt/L+pKBfB05kCXg5/dyEBczLefCsU6N7xgjWqoqNaIqMPuqu8VnCTd/Pe3DdII/l4CdJkT+LWtJ/m9Hqz+u6P1gPs+u4BwIs="

    @Test func aKerberosNegotiateTokenIsToldFromNTLMAndItsTicketsServiceRead() throws {
        let bytes = try #require(Data(base64Encoded: Self.curlKerberosToken).map(Array.init))
        #expect(SPNEGO.carried(bytes) == .kerberos)
        let ticket = try #require(SPNEGO.kerberosTicketService(bytes))
        #expect(ticket.service == ["HTTP", "127.0.0.1"] && ticket.realm == "EXAMPLE.ORG")
        // The bare Kerberos token inside (what a client sends without SPNEGO) reads the same.
        let inner = try #require(try SPNEGO.parse(bytes).mechToken)
        #expect(SPNEGO.carried(inner) == .kerberos)
        #expect(SPNEGO.kerberosTicketService(inner)?.service == ["HTTP", "127.0.0.1"])
        // NTLM, bare or in SPNEGO, is NTLM and carries no ticket.
        let ntlm = NTLMMessage.Negotiate(flags: [.unicode, .ntlm]).serialized()
        #expect(SPNEGO.carried(ntlm) == .ntlm && SPNEGO.carried(SPNEGO.initialToken(ntlm: ntlm)) == .ntlm)
        #expect(SPNEGO.kerberosTicketService(SPNEGO.initialToken(ntlm: ntlm)) == nil)
        // Every truncation of the token is read without a crash, and none names a service wrongly.
        for length in stride(from: 0, to: bytes.count, by: 7) {
            let cut = Array(bytes.prefix(length))
            if let read = SPNEGO.kerberosTicketService(cut) { #expect(read.service == ["HTTP", "127.0.0.1"]) }
            _ = SPNEGO.carried(cut)
        }
    }

    @Test func hostileSPNEGOLengthsAreRefused() {
        #expect(throws: SPNEGO.Failure.self) { try SPNEGO.parse([0x60, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: SPNEGO.Failure.self) { try SPNEGO.parse([0xA1, 0x05, 0x30]) }
        #expect(throws: SPNEGO.Failure.self) { try SPNEGO.parse([0x42]) }
    }
}
