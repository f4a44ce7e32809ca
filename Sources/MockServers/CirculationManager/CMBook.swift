import Foundation
import SAMLCore

/// A book of the mock collection. Its file is built from its fields alone — a small valid
/// EPUB 3 (a ZIP, `mimetype` first and stored) or a one-page PDF 1.4 — so the bytes and their
/// SHA-256 are the same on every run, and a test can check what a client downloaded.
struct CMBook: Sendable {
    enum Format: String, Sendable {
        case epub, pdf

        var mediaType: String { self == .epub ? "application/epub+zip" : "application/pdf" }
        /// The delivery mechanism id in `/works/{id}/fulfill/{mechanism}`.
        var mechanism: String { self == .epub ? "1" : "2" }
    }

    let id: String
    let title: String
    let author: String
    let format: Format
    let summary: String

    /// The collection every profile gets (public-domain titles).
    static let collection: [CMBook] = [
        CMBook(id: "1", title: "Moby-Dick", author: "Herman Melville", format: .epub,
               summary: "Call me Ishmael."),
        CMBook(id: "2", title: "Alice's Adventures in Wonderland", author: "Lewis Carroll", format: .pdf,
               summary: "Alice was beginning to get very tired of sitting by her sister on the bank."),
        CMBook(id: "3", title: "Frankenstein", author: "Mary Shelley", format: .epub,
               summary: "You will rejoice to hear that no disaster has accompanied the commencement of an enterprise."),
    ]

    static func find(_ id: String) -> CMBook? { collection.first { $0.id == id } }

    var bytes: [UInt8] { format == .epub ? epub() : pdf() }

    /// Lowercase hex SHA-256 of ``bytes``.
    var sha256: String { MessageDigest.sha256.hex(bytes) }

    // MARK: - EPUB (EPUB OCF 3.2 §4.3: a ZIP whose first entry is `mimetype`, stored)

    func epub() -> [UInt8] {
        let text = HTMLText.self
        let container = """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
        </container>

        """
        let opf = """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:identifier id="id">urn:samlharness:cm:work:\(id)</dc:identifier>
            <dc:title>\(text.escape(title))</dc:title>
            <dc:creator>\(text.escape(author))</dc:creator>
            <dc:language>en</dc:language>
            <meta property="dcterms:modified">2000-01-01T00:00:00Z</meta>
          </metadata>
          <manifest>
            <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
            <item id="c1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>
          </manifest>
          <spine><itemref idref="c1"/></spine>
        </package>

        """
        let nav = """
        <?xml version="1.0" encoding="UTF-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>\(text.escape(title))</title></head>
        <body><nav epub:type="toc"><ol><li><a href="chapter1.xhtml">Chapter 1</a></li></ol></nav></body></html>

        """
        let chapter = """
        <?xml version="1.0" encoding="UTF-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml"><head><title>\(text.escape(title))</title></head>
        <body><h1>\(text.escape(title))</h1><p>\(text.escape(summary))</p></body></html>

        """
        return ZipStore.archive([
            ("mimetype", Array("application/epub+zip".utf8)),
            ("META-INF/container.xml", Array(container.utf8)),
            ("OEBPS/content.opf", Array(opf.utf8)),
            ("OEBPS/nav.xhtml", Array(nav.utf8)),
            ("OEBPS/chapter1.xhtml", Array(chapter.utf8)),
        ])
    }

    // MARK: - PDF (ISO 32000-1 §7.5: header, objects, xref table of 20-byte lines, trailer)

    func pdf() -> [UInt8] {
        func literal(_ s: String) -> String {
            s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(")
                .replacingOccurrences(of: ")", with: "\\)")
        }
        let content = "BT /F1 18 Tf 72 720 Td (\(literal(title))) Tj 0 -28 Td /F1 12 Tf (\(literal(author))) Tj "
            + "0 -28 Td (\(literal(summary))) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Title (\(literal(title))) /Author (\(literal(author))) >>",
        ]
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            out += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 6 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }
}

/// A ZIP archive with every entry stored (APPNOTE.TXT 6.3: method 0), dated 1980-01-01 00:00
/// so the bytes never depend on the time they were made.
enum ZipStore {
    static func archive(_ entries: [(name: String, data: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let crc = crc32(entry.data)
            let size = UInt32(entry.data.count)
            let offset = UInt32(out.count)
            // §4.3.7 local file header: version 1.0, no flags, stored, 1980-01-01 00:00
            let local: [[UInt8]] = [le32(0x0403_4b50), le16(10), le16(0), le16(0), le16(0), le16(0x0021),
                                    le32(crc), le32(size), le32(size), le16(UInt16(name.count)), le16(0), name, entry.data]
            out.append(contentsOf: local.joined())
            // §4.3.12 central directory header
            let header: [[UInt8]] = [le32(0x0201_4b50), le16(20), le16(10), le16(0), le16(0), le16(0), le16(0x0021),
                                     le32(crc), le32(size), le32(size), le16(UInt16(name.count)), le16(0), le16(0),
                                     le16(0), le16(0), le32(0), le32(offset), name]
            central.append(contentsOf: header.joined())
        }
        let centralOffset = UInt32(out.count)
        out.append(contentsOf: central)
        // §4.3.16 end of central directory record
        let end: [[UInt8]] = [le32(0x0605_4b50), le16(0), le16(0), le16(UInt16(entries.count)), le16(UInt16(entries.count)),
                              le32(UInt32(central.count)), le32(centralOffset), le16(0)]
        out.append(contentsOf: end.joined())
        return out
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }

    /// CRC-32 (ISO 3309, reflected polynomial 0xEDB88320), as ZIP uses it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
