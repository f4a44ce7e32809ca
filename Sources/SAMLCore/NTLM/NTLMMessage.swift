import Foundation

/// The three NTLM messages (MS-NLMP §2.2.1), read and written byte for byte: NEGOTIATE (type 1),
/// CHALLENGE (type 2), AUTHENTICATE (type 3). Every length and offset is checked; a message
/// that does not parse gives an ``NTLMMessage/Failure`` naming the field.
public enum NTLMMessage: Sendable {
    case negotiate(Negotiate)
    case challenge(Challenge)
    case authenticate(Authenticate)

    public static let signature: [UInt8] = Array("NTLMSSP".utf8) + [0]

    public struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// `NEGOTIATE_MESSAGE` (§2.2.1.1).
    public struct Negotiate: Sendable, Equatable {
        public var flags: NTLMFlags
        public var domain: String?
        public var workstation: String?

        public init(flags: NTLMFlags, domain: String? = nil, workstation: String? = nil) {
            self.flags = flags
            self.domain = domain
            self.workstation = workstation
        }
    }

    /// `CHALLENGE_MESSAGE` (§2.2.1.2).
    public struct Challenge: Sendable, Equatable {
        public var flags: NTLMFlags
        public var targetName: String
        public var serverChallenge: [UInt8]
        /// Raw `TargetInfo` (AV pairs), nil when the server sends none.
        public var targetInfo: [AVPair]?

        public init(flags: NTLMFlags, targetName: String, serverChallenge: [UInt8], targetInfo: [AVPair]?) {
            self.flags = flags
            self.targetName = targetName
            self.serverChallenge = serverChallenge
            self.targetInfo = targetInfo
        }
    }

    /// `AUTHENTICATE_MESSAGE` (§2.2.1.3).
    public struct Authenticate: Sendable, Equatable {
        public var flags: NTLMFlags
        public var lmResponse: [UInt8]
        public var ntResponse: [UInt8]
        public var domain: String
        public var user: String
        public var workstation: String
        public var encryptedRandomSessionKey: [UInt8]
        /// The MIC (16 bytes) when the message is long enough to carry one; the server only
        /// reports it.
        public var mic: [UInt8]?

        public init(flags: NTLMFlags, lmResponse: [UInt8], ntResponse: [UInt8], domain: String, user: String,
                    workstation: String, encryptedRandomSessionKey: [UInt8] = [], mic: [UInt8]? = nil) {
            self.flags = flags
            self.lmResponse = lmResponse
            self.ntResponse = ntResponse
            self.domain = domain
            self.user = user
            self.workstation = workstation
            self.encryptedRandomSessionKey = encryptedRandomSessionKey
            self.mic = mic
        }

        /// What kind of response this is, from its lengths (§3.3): NTLMv2 responses are longer
        /// than 24 bytes; 24 bytes is NTLMv1 (or NTLM2 session response, ESS with an LM field
        /// holding the client challenge); an empty NT response with a 24-byte LM one is LM only;
        /// both empty is anonymous.
        /// The AV pairs an NTLMv2 response's blob carries (the CHALLENGE's TargetInfo as the
        /// client echoed it, §2.2.2.7: after NTProofStr, version, reserved, timestamp and client
        /// challenge, 44 bytes in); nil for another kind or an unreadable list.
        public var blobTargetInfo: [AVPair]? {
            guard responseKind == .ntlmV2, ntResponse.count > 44 else { return nil }
            return try? AVPair.parseList(Array(ntResponse.dropFirst(44)))
        }

        public var responseKind: ResponseKind {
            if ntResponse.count > 24 { return .ntlmV2 }
            if ntResponse.count == 24 {
                return flags.contains(.extendedSessionSecurity) ? .ntlm2Session : .ntlmV1
            }
            if ntResponse.isEmpty, lmResponse.count == 24, lmResponse.contains(where: { $0 != 0 }) { return .lmOnly }
            if ntResponse.isEmpty, lmResponse.count <= 1 { return .anonymous }
            return .unknown
        }
    }

    public enum ResponseKind: String, Sendable {
        case ntlmV2 = "NTLMv2"
        case ntlmV1 = "NTLMv1"
        /// NTLMv1 with extended session security ("NTLM2 session response"): still DES over
        /// the NT hash, crackable like NTLMv1.
        case ntlm2Session = "NTLMv1-ESS"
        case lmOnly = "LM"
        case anonymous
        case unknown
    }

    /// Reads a message (the bytes after base64).
    public static func parse(_ bytes: [UInt8]) throws -> NTLMMessage {
        guard bytes.count >= 12 else { throw Failure("\(bytes.count) bytes: shorter than an NTLM message header (12)") }
        guard Array(bytes[0..<8]) == signature else { throw Failure("no NTLMSSP signature") }
        let reader = Reader(bytes)
        switch reader.u32(8) {
        case 1:
            let flags = NTLMFlags(rawValue: try reader.checkedU32(12, "NegotiateFlags"))
            var domain: String?
            var workstation: String?
            if bytes.count >= 32 {
                // Supplied domain and workstation are OEM (ASCII) per §2.2.1.1.
                let d = try reader.field(16, "DomainNameFields")
                let w = try reader.field(24, "WorkstationFields")
                if !d.isEmpty { domain = String(decoding: d, as: UTF8.self) }
                if !w.isEmpty { workstation = String(decoding: w, as: UTF8.self) }
            }
            return .negotiate(Negotiate(flags: flags, domain: domain, workstation: workstation))
        case 2:
            guard bytes.count >= 32 else { throw Failure("CHALLENGE_MESSAGE of \(bytes.count) bytes (at least 32)") }
            let flags = NTLMFlags(rawValue: reader.u32(20))
            let target = try reader.field(12, "TargetNameFields")
            let challenge = Array(bytes[24..<32])
            var info: [AVPair]?
            if bytes.count >= 48, flags.contains(.targetInfo) {
                info = try AVPair.parseList(try reader.field(40, "TargetInfoFields"))
            }
            return .challenge(Challenge(flags: flags, targetName: decodeString(target, unicode: flags.contains(.unicode)),
                                        serverChallenge: challenge, targetInfo: info))
        case 3:
            guard bytes.count >= 64 else { throw Failure("AUTHENTICATE_MESSAGE of \(bytes.count) bytes (at least 64)") }
            let flags = NTLMFlags(rawValue: reader.u32(60))
            let unicode = flags.contains(.unicode)
            let lm = try reader.field(12, "LmChallengeResponseFields")
            let nt = try reader.field(20, "NtChallengeResponseFields")
            let domain = try reader.field(28, "DomainNameFields")
            let user = try reader.field(36, "UserNameFields")
            let workstation = try reader.field(44, "WorkstationFields")
            let key = try reader.field(52, "EncryptedRandomSessionKeyFields")
            // The payload starts after the fixed part; with a Version (8) and a MIC (16), at 88.
            let offsets = [12, 20, 28, 36, 44, 52].map { Int(reader.u32($0 + 4)) }.filter { $0 > 0 }
            let payloadStart = offsets.min() ?? bytes.count
            let mic = payloadStart >= 88 && bytes.count >= 88 ? Array(bytes[72..<88]) : nil
            return .authenticate(Authenticate(
                flags: flags, lmResponse: lm, ntResponse: nt, domain: decodeString(domain, unicode: unicode),
                user: decodeString(user, unicode: unicode), workstation: decodeString(workstation, unicode: unicode),
                encryptedRandomSessionKey: key, mic: mic))
        case let other:
            throw Failure("MessageType \(other) (1, 2 or 3 expected)")
        }
    }

    /// Reads a base64 token (`Authorization: NTLM <token>`).
    public static func parse(base64 token: String) throws -> NTLMMessage {
        guard let data = Data(base64Encoded: token.trimmingCharacters(in: .whitespaces)) else {
            throw Failure("the token is not base64")
        }
        return try parse(Array(data))
    }

    /// `UNICODE` strings are UTF-16LE, else OEM (taken as UTF-8/ASCII).
    static func decodeString(_ bytes: [UInt8], unicode: Bool) -> String {
        guard unicode else { return String(decoding: bytes, as: UTF8.self) }
        var units: [UInt16] = []
        var index = 0
        while index + 1 < bytes.count {
            units.append(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    static func utf16le(_ text: String) -> [UInt8] {
        text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    /// Bounds-checked little-endian reads of a message.
    struct Reader {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func u16(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
        func u32(_ offset: Int) -> UInt32 {
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        }

        func checkedU32(_ offset: Int, _ name: String) throws -> UInt32 {
            guard offset + 4 <= bytes.count else { throw Failure("\(name) runs past the message's end") }
            return u32(offset)
        }

        /// A `Len, MaxLen, BufferOffset` field's bytes (§2.2.1).
        func field(_ offset: Int, _ name: String) throws -> [UInt8] {
            guard offset + 8 <= bytes.count else { throw Failure("\(name) runs past the message's end") }
            let length = Int(u16(offset))
            let start = Int(u32(offset + 4))
            if length == 0 { return [] }
            guard start <= bytes.count, start + length <= bytes.count else {
                throw Failure("\(name): \(length) bytes at offset \(start) run past the message's \(bytes.count) bytes")
            }
            return Array(bytes[start..<(start + length)])
        }
    }
}

extension NTLMMessage.Challenge {
    /// The message's bytes: the fixed part with a Version, then TargetName and TargetInfo.
    public func serialized() -> [UInt8] {
        let unicode = flags.contains(.unicode)
        let target = unicode ? NTLMMessage.utf16le(targetName) : Array(targetName.utf8)
        let info = targetInfo.map(AVPair.serialize) ?? []
        let fixed = 56
        var out = NTLMMessage.signature
        out += le32(2)
        out += fieldHeader(length: target.count, offset: fixed)
        out += le32(flags.rawValue)
        out += serverChallenge
        out += [UInt8](repeating: 0, count: 8)  // Reserved
        out += fieldHeader(length: info.count, offset: fixed + target.count)
        out += [10, 0, 0x61, 0x4A, 0, 0, 0, 15]  // Version: 10.0 build 19041, NTLMSSP revision 15
        out += target
        out += info
        return out
    }
}

extension NTLMMessage.Negotiate {
    /// A NEGOTIATE message with no domain or workstation supplied.
    public func serialized() -> [UInt8] {
        NTLMMessage.signature + le32(1) + le32(flags.rawValue) + fieldHeader(length: 0, offset: 32) + fieldHeader(length: 0, offset: 32)
    }
}

extension NTLMMessage.Authenticate {
    /// An AUTHENTICATE message (no Version, no MIC) with the strings UTF-16LE.
    public func serialized() -> [UInt8] {
        let domainBytes = NTLMMessage.utf16le(domain)
        let userBytes = NTLMMessage.utf16le(user)
        let workstationBytes = NTLMMessage.utf16le(workstation)
        var offset = 64
        var header = NTLMMessage.signature + le32(3)
        var payload: [UInt8] = []
        for part in [lmResponse, ntResponse, domainBytes, userBytes, workstationBytes, encryptedRandomSessionKey] {
            header += fieldHeader(length: part.count, offset: offset)
            payload += part
            offset += part.count
        }
        return header + le32(flags.rawValue) + payload
    }
}

func le32(_ value: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16),
     UInt8(truncatingIfNeeded: value >> 24)]
}

func fieldHeader(length: Int, offset: Int) -> [UInt8] {
    let len = UInt16(length)
    return [UInt8(truncatingIfNeeded: len), UInt8(truncatingIfNeeded: len >> 8)] + [UInt8(truncatingIfNeeded: len),
                                                                                   UInt8(truncatingIfNeeded: len >> 8)]
        + le32(UInt32(offset))
}

/// `NegotiateFlags` (MS-NLMP §2.2.2.5), the ones the harness reads or sets.
public struct NTLMFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let unicode = NTLMFlags(rawValue: 0x0000_0001)
    public static let oem = NTLMFlags(rawValue: 0x0000_0002)
    public static let requestTarget = NTLMFlags(rawValue: 0x0000_0004)
    public static let sign = NTLMFlags(rawValue: 0x0000_0010)
    public static let seal = NTLMFlags(rawValue: 0x0000_0020)
    public static let lmKey = NTLMFlags(rawValue: 0x0000_0080)
    public static let ntlm = NTLMFlags(rawValue: 0x0000_0200)
    public static let anonymous = NTLMFlags(rawValue: 0x0000_0800)
    public static let oemDomainSupplied = NTLMFlags(rawValue: 0x0000_1000)
    public static let oemWorkstationSupplied = NTLMFlags(rawValue: 0x0000_2000)
    public static let alwaysSign = NTLMFlags(rawValue: 0x0000_8000)
    public static let targetTypeDomain = NTLMFlags(rawValue: 0x0001_0000)
    public static let targetTypeServer = NTLMFlags(rawValue: 0x0002_0000)
    public static let extendedSessionSecurity = NTLMFlags(rawValue: 0x0008_0000)
    public static let identify = NTLMFlags(rawValue: 0x0010_0000)
    public static let targetInfo = NTLMFlags(rawValue: 0x0080_0000)
    public static let version = NTLMFlags(rawValue: 0x0200_0000)
    public static let key128 = NTLMFlags(rawValue: 0x2000_0000)
    public static let keyExchange = NTLMFlags(rawValue: 0x4000_0000)
    public static let key56 = NTLMFlags(rawValue: 0x8000_0000)
}

/// One `AV_PAIR` of a CHALLENGE's TargetInfo (MS-NLMP §2.2.2.1).
public struct AVPair: Sendable, Equatable {
    public var id: UInt16
    public var value: [UInt8]

    public init(id: UInt16, value: [UInt8]) {
        self.id = id
        self.value = value
    }

    public static let eol: UInt16 = 0
    public static let nbComputerName: UInt16 = 1
    public static let nbDomainName: UInt16 = 2
    public static let dnsComputerName: UInt16 = 3
    public static let dnsDomainName: UInt16 = 4
    public static let dnsTreeName: UInt16 = 5
    public static let flags: UInt16 = 6
    public static let timestamp: UInt16 = 7
    public static let targetName: UInt16 = 9

    public static func text(_ id: UInt16, _ value: String) -> AVPair { AVPair(id: id, value: NTLMMessage.utf16le(value)) }

    /// The value as UTF-16LE text.
    public var text: String { NTLMMessage.decodeString(value, unicode: true) }

    /// Reads AV pairs up to `MsvAvEOL`; a list that runs past its bytes fails.
    public static func parseList(_ bytes: [UInt8]) throws -> [AVPair] {
        var pairs: [AVPair] = []
        var index = 0
        while index + 4 <= bytes.count {
            let id = UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
            let length = Int(UInt16(bytes[index + 2]) | UInt16(bytes[index + 3]) << 8)
            index += 4
            if id == eol { return pairs }
            guard index + length <= bytes.count else {
                throw NTLMMessage.Failure("AV pair \(id) of \(length) bytes runs past the TargetInfo's \(bytes.count)")
            }
            pairs.append(AVPair(id: id, value: Array(bytes[index..<(index + length)])))
            index += length
        }
        throw NTLMMessage.Failure("TargetInfo has no MsvAvEOL")
    }

    public static func serialize(_ pairs: [AVPair]) -> [UInt8] {
        var out: [UInt8] = []
        for pair in pairs where pair.id != eol {
            out += [UInt8(truncatingIfNeeded: pair.id), UInt8(truncatingIfNeeded: pair.id >> 8),
                    UInt8(truncatingIfNeeded: pair.value.count), UInt8(truncatingIfNeeded: pair.value.count >> 8)]
            out += pair.value
        }
        return out + [0, 0, 0, 0]
    }
}
