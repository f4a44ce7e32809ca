/// SPNEGO (RFC 4178) as HTTP `Negotiate` carries it (RFC 4559), for NTLM inside it: the
/// client's first token (`GSS-API InitialContextToken` wrapping `NegTokenInit`, mechTypes and
/// the NTLM NEGOTIATE as mechToken), the server's `NegTokenResp` (accept-incomplete with the
/// NTLM CHALLENGE, then accept-completed), the client's `NegTokenResp` with the AUTHENTICATE.
/// A minimal DER reader and writer, bounded: lengths are checked against the bytes, nesting is
/// what the grammar allows.
public enum SPNEGO {
    public static let spnegoOID: [UInt8] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x02]  // 1.3.6.1.5.5.2
    public static let ntlmOID: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0A]  // 1.3.6.1.4.1.311.2.2.10
    public static let kerberosOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x12, 0x01, 0x02, 0x02]  // 1.2.840.113554.1.2.2
    public static let msKerberosOID: [UInt8] = [0x2A, 0x86, 0x48, 0x82, 0xF7, 0x12, 0x01, 0x02, 0x02]  // 1.2.840.48018.1.2.2

    public enum NegState: UInt8, Sendable {
        case acceptCompleted = 0
        case acceptIncomplete = 1
        case reject = 2
        case requestMIC = 3
    }

    /// What a `Negotiate` token held.
    public struct Token: Sendable, Equatable {
        /// The mechanisms offered (NegTokenInit), as DER OID contents; empty in a NegTokenResp.
        public var mechTypes: [[UInt8]]
        /// The inner mechanism token (the NTLM message), if any.
        public var mechToken: [UInt8]?
        public var negState: NegState?
        /// True when the token was a bare NTLM message, not SPNEGO (Windows and pyspnego send
        /// that under `Negotiate` too).
        public var rawNTLM: Bool

        public var offersNTLM: Bool { rawNTLM || mechTypes.contains(SPNEGO.ntlmOID) }
        /// What the token's mechToken is for: the preferred (first) mechanism's, as RFC 4178
        /// §4.2.1 sends the optimistic token; `.other` without a mechToken or a mechanism list.
        public var carried: Carried {
            if rawNTLM { return .ntlm }
            guard mechToken != nil, let preferred = mechTypes.first else { return .other }
            if preferred == SPNEGO.kerberosOID || preferred == SPNEGO.msKerberosOID { return .kerberos }
            return preferred == SPNEGO.ntlmOID ? .ntlm : .other
        }
        public var mechNames: [String] {
            mechTypes.map { oid in
                switch oid {
                case SPNEGO.ntlmOID: "NTLM"
                case SPNEGO.kerberosOID: "Kerberos"
                case SPNEGO.msKerberosOID: "Kerberos (MS)"
                default: "OID " + oid.map { String(format: "%02x", $0) }.joined()
                }
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// What mechanism a client's `Negotiate` token carries a token for.
    public enum Carried: Sendable, Equatable {
        /// An NTLM message, bare or in SPNEGO.
        case ntlm
        /// A Kerberos AP-REQ: a bare Kerberos InitialContextToken (RFC 4121 §4.1), or SPNEGO
        /// whose preferred mechanism — the one its optimistic mechToken is for — is Kerberos.
        case kerberos
        /// Anything else (SPNEGO without a mechToken, another mechanism, unreadable).
        case other
    }

    /// Which mechanism `bytes` (a decoded `Negotiate` token) carries.
    public static func carried(_ bytes: [UInt8]) -> Carried {
        if bytes.starts(with: NTLMMessage.signature) { return .ntlm }
        if isBareKerberos(bytes) { return .kerberos }
        return (try? parse(bytes))?.carried ?? .other
    }

    /// Whether `bytes` are a bare Kerberos InitialContextToken (RFC 4121 §4.1: [APPLICATION 0]
    /// with the Kerberos mechanism's OID), not wrapped in SPNEGO.
    public static func isBareKerberos(_ bytes: [UInt8]) -> Bool {
        var reader = DERReader(bytes)
        guard let (tag, body) = try? reader.element(), tag == 0x60 else { return false }
        var inner = DERReader(body)
        guard let (oidTag, oid) = try? inner.element(), oidTag == 0x06 else { return false }
        return oid == kerberosOID || oid == msKerberosOID
    }

    /// The service principal and realm a Kerberos AP-REQ's ticket names (`HTTP/127.0.0.1`,
    /// `EXAMPLE.ORG`) — in the clear in every ticket (RFC 4120 §5.3) — read from a `Negotiate`
    /// token that carries Kerberos (bare, or as SPNEGO's mechToken); nil when it carries none.
    public static func kerberosTicketService(_ bytes: [UInt8]) -> (service: [String], realm: String)? {
        var kerberos = bytes
        if let token = try? parse(bytes), let inner = token.mechToken { kerberos = inner }
        // InitialContextToken: [APPLICATION 0] { OID 1.2.840.113554.1.2.2, TOK_ID 01 00, AP-REQ }.
        var outer = DERReader(kerberos)
        guard let (tag, body) = try? outer.element(), tag == 0x60 else { return nil }
        var inner = DERReader(body)
        guard let (oidTag, oid) = try? inner.element(), oidTag == 0x06, oid == kerberosOID || oid == msKerberosOID,
              inner.index + 2 <= body.count, body[inner.index] == 0x01, body[inner.index + 1] == 0x00 else { return nil }
        var request = DERReader(Array(body[(inner.index + 2)...]))
        // AP-REQ ::= [APPLICATION 14] SEQUENCE { pvno [0], msg-type [1], ap-options [2], ticket [3], … }
        guard let (apTag, ap) = try? request.element(), apTag == 0x6E,
              let ticketField = field(3, inSequence: ap) else { return nil }
        // Ticket ::= [APPLICATION 1] SEQUENCE { tkt-vno [0], realm [1], sname [2], enc-part [3] }
        var ticketReader = DERReader(ticketField)
        guard let (ticketTag, ticket) = try? ticketReader.element(), ticketTag == 0x61,
              let realmField = field(1, inSequence: ticket), let snameField = field(2, inSequence: ticket) else { return nil }
        var realmReader = DERReader(realmField)
        guard let (realmTag, realm) = try? realmReader.element(), realmTag == 0x1B,
              let namesField = field(1, inSequence: snameField) else { return nil }
        // PrincipalName ::= SEQUENCE { name-type [0], name-string [1] SEQUENCE OF KerberosString }
        var namesReader = DERReader(namesField)
        guard let (namesTag, names) = try? namesReader.element(), namesTag == 0x30 else { return nil }
        var strings = DERReader(names)
        var service: [String] = []
        while !strings.atEnd {
            guard let (stringTag, value) = try? strings.element(), stringTag == 0x1B else { return nil }
            service.append(String(decoding: value, as: UTF8.self))
        }
        return (service, String(decoding: realm, as: UTF8.self))
    }

    /// The contents of context-tag [`number`] in the DER SEQUENCE `element` (tag 0x30 and body).
    private static func field(_ number: UInt8, inSequence element: [UInt8]) -> [UInt8]? {
        var outer = DERReader(element)
        guard let (tag, body) = try? outer.element(), tag == 0x30 else { return nil }
        var fields = DERReader(body)
        while !fields.atEnd {
            guard let (fieldTag, value) = try? fields.element() else { return nil }
            if fieldTag == 0xA0 | number { return value }
        }
        return nil
    }

    /// Reads a `Negotiate` token: InitialContextToken(NegTokenInit), NegTokenResp, or raw NTLMSSP.
    public static func parse(_ bytes: [UInt8]) throws -> Token {
        if bytes.starts(with: NTLMMessage.signature) {
            return Token(mechTypes: [ntlmOID], mechToken: bytes, negState: nil, rawNTLM: true)
        }
        var reader = DERReader(bytes)
        let (tag, body) = try reader.element()
        switch tag {
        case 0x60:  // [APPLICATION 0] InitialContextToken
            var inner = DERReader(body)
            let (oidTag, oid) = try inner.element()
            guard oidTag == 0x06, oid == spnegoOID else { throw Failure("the initial token is not SPNEGO (mech OID \(oid))") }
            let (initTag, initBody) = try inner.element()
            guard initTag == 0xA0 else { throw Failure("the SPNEGO initial token holds tag \(initTag), not negTokenInit [0]") }
            return try negTokenInit(initBody)
        case 0xA0:
            return try negTokenInit(body)
        case 0xA1:
            return try negTokenResp(body)
        default:
            throw Failure(String(format: "a Negotiate token starting with tag 0x%02x (0x60, 0xa0, 0xa1 or NTLMSSP expected)", tag))
        }
    }

    private static func negTokenInit(_ body: [UInt8]) throws -> Token {
        var outer = DERReader(body)
        let (seqTag, seq) = try outer.element()
        guard seqTag == 0x30 else { throw Failure("negTokenInit is not a SEQUENCE") }
        var fields = DERReader(seq)
        var token = Token(mechTypes: [], mechToken: nil, negState: nil, rawNTLM: false)
        while !fields.atEnd {
            let (tag, value) = try fields.element()
            switch tag {
            case 0xA0:
                var list = DERReader(value)
                let (listTag, oids) = try list.element()
                guard listTag == 0x30 else { throw Failure("mechTypes is not a SEQUENCE OF") }
                var each = DERReader(oids)
                while !each.atEnd {
                    let (oidTag, oid) = try each.element()
                    guard oidTag == 0x06 else { throw Failure("a mechType is not an OID") }
                    token.mechTypes.append(oid)
                }
            case 0xA2:
                var octets = DERReader(value)
                let (octetTag, inner) = try octets.element()
                guard octetTag == 0x04 else { throw Failure("mechToken is not an OCTET STRING") }
                token.mechToken = inner
            default:
                break  // reqFlags [1], mechListMIC [3]
            }
        }
        return token
    }

    private static func negTokenResp(_ body: [UInt8]) throws -> Token {
        var outer = DERReader(body)
        let (seqTag, seq) = try outer.element()
        guard seqTag == 0x30 else { throw Failure("negTokenResp is not a SEQUENCE") }
        var fields = DERReader(seq)
        var token = Token(mechTypes: [], mechToken: nil, negState: nil, rawNTLM: false)
        while !fields.atEnd {
            let (tag, value) = try fields.element()
            var inner = DERReader(value)
            switch tag {
            case 0xA0:
                let (enumTag, state) = try inner.element()
                guard enumTag == 0x0A, state.count == 1 else { throw Failure("negState is not a one-byte ENUMERATED") }
                token.negState = NegState(rawValue: state[0])
            case 0xA1:
                let (_, oid) = try inner.element()
                token.mechTypes = [oid]
            case 0xA2:
                let (octetTag, octets) = try inner.element()
                guard octetTag == 0x04 else { throw Failure("responseToken is not an OCTET STRING") }
                token.mechToken = octets
            default:
                break
            }
        }
        return token
    }

    /// A server's `NegTokenResp`: the state, NTLM as the supported mech, the NTLM message.
    public static func negTokenResp(state: NegState, supportedMech: [UInt8]? = ntlmOID, responseToken: [UInt8]?) -> [UInt8] {
        var fields = tlv(0xA0, tlv(0x0A, [state.rawValue]))
        if let supportedMech { fields += tlv(0xA1, tlv(0x06, supportedMech)) }
        if let responseToken { fields += tlv(0xA2, tlv(0x04, responseToken)) }
        return tlv(0xA1, tlv(0x30, fields))
    }

    /// A client's first token: InitialContextToken(NegTokenInit { mechTypes: [NTLM], mechToken }).
    public static func initialToken(ntlm negotiate: [UInt8]) -> [UInt8] {
        let mechTypes = tlv(0xA0, tlv(0x30, tlv(0x06, ntlmOID)))
        let mechToken = tlv(0xA2, tlv(0x04, negotiate))
        return tlv(0x60, tlv(0x06, spnegoOID) + tlv(0xA0, tlv(0x30, mechTypes + mechToken)))
    }

    /// A client's later token: NegTokenResp { responseToken }.
    public static func responseToken(ntlm message: [UInt8]) -> [UInt8] {
        tlv(0xA1, tlv(0x30, tlv(0xA2, tlv(0x04, message))))
    }

    static func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        var out = [tag]
        let count = value.count
        if count < 0x80 {
            out.append(UInt8(count))
        } else {
            var length: [UInt8] = []
            var rest = count
            while rest > 0 {
                length.insert(UInt8(truncatingIfNeeded: rest), at: 0)
                rest >>= 8
            }
            out.append(0x80 | UInt8(length.count))
            out += length
        }
        return out + value
    }

    /// Reads DER elements (single-byte tags, definite lengths up to 4 length bytes).
    struct DERReader {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { index >= bytes.count }

        mutating func element() throws -> (tag: UInt8, value: [UInt8]) {
            guard index + 2 <= bytes.count else { throw Failure("a DER element runs past the token's end") }
            let tag = bytes[index]
            var length = Int(bytes[index + 1])
            index += 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...4).contains(count), index + count <= bytes.count else { throw Failure("a DER length of \(count) bytes") }
                length = 0
                for byte in bytes[index..<(index + count)] { length = length << 8 | Int(byte) }
                index += count
            }
            guard length <= bytes.count - index else {
                throw Failure("a DER element of \(length) bytes runs past the token's \(bytes.count)")
            }
            defer { index += length }
            return (tag, Array(bytes[index..<(index + length)]))
        }
    }
}

import Foundation
