import Foundation
import Testing
@testable import SAMLCore

@Suite struct BindingsRawDeflateTests {
    let xml = Array(BindingsFixtures.authnRequest.utf8)

    @Test func rawRoundTripHasNoHeader() throws {
        let compressed = try RawDeflate.compress(xml)
        #expect(compressed.count < xml.count)
        #expect(!RawDeflate.hasZlibHeader(compressed))
        #expect(!RawDeflate.hasGzipHeader(compressed))
        #expect(try RawDeflate.decompress(compressed) == xml)
        // Raw DEFLATE is not a zlib stream.
        #expect(throws: BindingError.self) { try RawDeflate.decompress(compressed, framing: .zlib) }
    }

    @Test func zlibFramingIsDetected() throws {
        let zlib = try RawDeflate.compress(xml, framing: .zlib)
        #expect(zlib[0] == 0x78 && zlib[1] == 0xDA)  // level 9
        #expect(RawDeflate.hasZlibHeader(zlib))
        #expect(RawDeflate.detectFraming(zlib) == .zlib)
        #expect(try RawDeflate.decompress(zlib, framing: .zlib) == xml)
        let level1 = try RawDeflate.compress(xml, framing: .zlib, level: 1)
        #expect(Array(level1.prefix(2)) == [0x78, 0x01])
        let level6 = try RawDeflate.compress(xml, framing: .zlib, level: 6)
        #expect(Array(level6.prefix(2)) == [0x78, 0x9C])
        // FCHECK must make CMF*256+FLG a multiple of 31.
        #expect(!RawDeflate.hasZlibHeader([0x78, 0x9D]))
        #expect(!RawDeflate.hasZlibHeader([0x78]))
    }

    @Test func gzipFramingIsDetected() throws {
        let gzip = try RawDeflate.compress(xml, framing: .gzip)
        #expect(Array(gzip.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(RawDeflate.detectFraming(gzip) == .gzip)
        #expect(try RawDeflate.decompress(gzip, framing: .gzip) == xml)
    }

    @Test func deflateBombIsRefusedAtTheLimit() throws {
        let zeros = [UInt8](repeating: 0, count: 50 * 1024 * 1024)
        let bomb = try RawDeflate.compress(zeros)
        #expect(bomb.count < 100_000)
        let start = Date()
        let error = #expect(throws: BindingError.self) { try RawDeflate.decompress(bomb) }
        #expect(error?.reason == .inflateLimitExceeded)
        #expect(error?.code == "binding.inflate-limit-exceeded")
        #expect(error?.message.contains("1048576") == true)
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test func exactlyTheLimitIsAccepted() throws {
        let data = [UInt8](repeating: 0x41, count: 1000)
        let compressed = try RawDeflate.compress(data)
        #expect(try RawDeflate.decompress(compressed, limit: 1000) == data)
        #expect(throws: BindingError.self) { try RawDeflate.decompress(compressed, limit: 999) }
    }

    @Test func truncatedAndCorruptStreams() throws {
        let compressed = try RawDeflate.compress(xml)
        let truncated = #expect(throws: BindingError.self) {
            try RawDeflate.decompress(Array(compressed.prefix(compressed.count / 2)))
        }
        #expect(truncated?.reason == .inflateTruncated)
        let corrupt = #expect(throws: BindingError.self) { try RawDeflate.decompress([0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(corrupt?.reason == .inflateCorrupt)
        #expect((try? RawDeflate.decompress([])) == nil)
    }

    /// The first try inflates into a buffer of max(64 KiB, 16 × input); an output larger than
    /// that is inflated again with room for the whole limit, so what comes out never depends on
    /// the first guess (issue 25).
    @Test func outputLargerThanTheFirstBufferIsWhole() throws {
        let text = Array((0..<40_000).map { "line \($0 % 97)\n" }.joined().utf8)  // ≈ 300 KB, deflates to a few KB
        let compressed = try RawDeflate.compress(text)
        #expect(16 * compressed.count < text.count && text.count > 64 * 1024)
        let inflated = try RawDeflate.inflate(compressed + [9, 9])
        #expect(inflated.bytes == text)
        #expect(inflated.consumed == compressed.count)
        #expect(try RawDeflate.decompress(compressed, limit: text.count) == text)
        let over = #expect(throws: BindingError.self) { try RawDeflate.decompress(compressed, limit: text.count - 1) }
        #expect(over?.reason == .inflateLimitExceeded)
        let exactlyOneMiB = [UInt8](repeating: 0x42, count: RawDeflate.defaultLimit)
        #expect(try RawDeflate.decompress(RawDeflate.compress(exactlyOneMiB)) == exactlyOneMiB)
    }

    @Test func trailingDataIsCounted() throws {
        let compressed = try RawDeflate.compress(xml)
        let inflated = try RawDeflate.inflate(compressed + [1, 2, 3])
        #expect(inflated.bytes == xml)
        #expect(inflated.consumed == compressed.count)
    }
}
