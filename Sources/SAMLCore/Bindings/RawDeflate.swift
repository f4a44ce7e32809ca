internal import CXMLSec

/// DEFLATE as the HTTP-Redirect binding uses it, plus the framings that are sent by mistake.
///
/// saml-bindings-2.0-os §3.4.4.1: the message is compressed with DEFLATE (RFC 1951) *without*
/// the zlib header and checksum (RFC 1950). A zlib-framed stream is a classic
/// misconfiguration (Java `Deflater()` without `nowrap`), so it can be produced on purpose
/// and detected.
///
/// ```swift
/// let compressed = try RawDeflate.compress(Array(xml.utf8))
/// let xmlBytes = try RawDeflate.decompress(compressed)   // at most 1 MiB
/// ```
public enum RawDeflate {
    /// How the DEFLATE stream is wrapped.
    public enum Framing: Sendable, Equatable {
        /// RFC 1951 only (windowBits -15): what the Redirect binding requires.
        case raw
        /// RFC 1950 zlib header + Adler-32 trailer (windowBits 15): a misconfiguration.
        case zlib
        /// RFC 1952 gzip header + CRC-32 trailer (windowBits 31): a misconfiguration.
        case gzip

        var windowBits: Int32 {
            switch self {
            case .raw: return -15
            case .zlib: return 15
            case .gzip: return 31
            }
        }
    }

    /// The default output limit for ``decompress(_:framing:limit:)``: 1 MiB.
    public static let defaultLimit = 1 << 20

    /// Compresses `bytes` (level 9 unless told otherwise).
    public static func compress(_ bytes: [UInt8], framing: Framing = .raw, level: Int = 9) throws -> [UInt8] {
        let bound = cxmlsec_deflate_bound(bytes.count) + 32
        var out = [UInt8](repeating: 0, count: bound)
        let produced: Int = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                cxmlsec_deflate(input.baseAddress, input.count, output.baseAddress, output.count,
                                framing.windowBits, Int32(level))
            }
        }
        guard produced >= 0 else {
            throw BindingError(.deflateFailed, "zlib could not compress \(bytes.count) bytes")
        }
        return Array(out.prefix(produced))
    }

    /// The result of inflating: the bytes and how many input bytes the stream used.
    public struct Inflated: Sendable, Equatable {
        public let bytes: [UInt8]
        /// Input bytes consumed by the stream; fewer than the input means trailing data.
        public let consumed: Int
    }

    /// Inflates at most `limit` bytes; a stream that would produce more is refused with
    /// ``BindingError/Reason/inflateLimitExceeded`` after at most `limit` bytes of work.
    public static func decompress(_ bytes: [UInt8], framing: Framing = .raw,
                                  limit: Int = defaultLimit) throws -> [UInt8] {
        try inflate(bytes, framing: framing, limit: limit).bytes
    }

    /// Like ``decompress(_:framing:limit:)`` but also says how much input was used.
    public static func inflate(_ bytes: [UInt8], framing: Framing = .raw,
                               limit: Int = defaultLimit) throws -> Inflated {
        if bytes.isEmpty { throw BindingError(.inflateTruncated, "no compressed bytes", offset: 0) }
        // One byte more than the limit, so "exactly the limit" is distinguishable from "more".
        let full = max(limit, 0) + 1
        // A first try in a buffer sized to what SAML messages inflate to (≈ 3–10× their deflated
        // size), uninitialised: a zeroed buffer of the whole limit (a megabyte) per AuthnRequest
        // was a memset and a large allocation per login in issue 25's profile. Only an output
        // that fills it is inflated again with room for the whole limit.
        var consumed = 0
        var out: [UInt8] = []
        var produced = 0
        for capacity in [min(full, max(64 * 1024, 16 * bytes.count)), full] {
            out = [UInt8](unsafeUninitializedCapacity: capacity) { output, initialized in
                produced = bytes.withUnsafeBufferPointer { input in
                    cxmlsec_inflate(input.baseAddress, input.count, output.baseAddress, output.count,
                                    framing.windowBits, &consumed)
                }
                initialized = max(produced, 0)
            }
            if produced != -2 || capacity == full { break }
        }
        switch produced {
        case -2:
            throw BindingError(.inflateLimitExceeded,
                               "inflating would produce more than \(limit) bytes (deflate bomb refused after \(consumed) of \(bytes.count) input bytes)",
                               offset: consumed)
        case -3:
            throw BindingError(.inflateTruncated,
                               "the \(framing) stream ends before its final block (\(bytes.count) bytes read)",
                               offset: bytes.count)
        case ..<0:
            throw BindingError(.inflateCorrupt, "not a valid \(framing) DEFLATE stream", offset: consumed)
        default:
            if produced > limit {
                throw BindingError(.inflateLimitExceeded,
                                   "inflating produces more than \(limit) bytes", offset: consumed)
            }
            // A message of a few kilobytes does not keep a 64 KiB (or 1 MiB) buffer alive.
            guard out.capacity > 2 * produced + 4096 else { return Inflated(bytes: out, consumed: consumed) }
            let tight = [UInt8](unsafeUninitializedCapacity: produced) { buffer, initialized in
                _ = buffer.initialize(from: out)
                initialized = produced
            }
            return Inflated(bytes: tight, consumed: consumed)
        }
    }

    /// True when `bytes` start with an RFC 1950 zlib header: CMF `0x78` (deflate, 32 KiB
    /// window), FLG one of `0x01 0x5E 0x9C 0xDA` (the four FLEVEL values without FDICT), and
    /// FCHECK making `CMF*256 + FLG` a multiple of 31 (RFC 1950 §2.2).
    public static func hasZlibHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2, bytes[0] == 0x78 else { return false }
        let flg = bytes[1]
        guard [0x01, 0x5E, 0x9C, 0xDA].contains(flg) else { return false }
        return (UInt16(bytes[0]) << 8 | UInt16(flg)) % 31 == 0
    }

    /// True when `bytes` start with an RFC 1952 gzip header: ID1 `0x1F`, ID2 `0x8B`,
    /// CM `8` (deflate).
    public static func hasGzipHeader(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0x1F && bytes[1] == 0x8B && bytes[2] == 0x08
    }

    /// The framing the header says, `.raw` when there is no zlib or gzip header.
    public static func detectFraming(_ bytes: [UInt8]) -> Framing {
        if hasZlibHeader(bytes) { return .zlib }
        if hasGzipHeader(bytes) { return .gzip }
        return .raw
    }
}
