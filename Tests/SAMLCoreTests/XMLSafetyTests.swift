import Foundation
import Testing
@testable import SAMLCore

@Suite struct XMLSafetyTests {
    static let hostileDoctypes: [(String, String)] = [
        ("xxe-file", #"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>"#),
        ("xxe-http", #"<!DOCTYPE r [<!ENTITY x SYSTEM "http://127.0.0.1:9/x">]><r>&x;</r>"#),
        ("xxe-parameter", #"<!DOCTYPE r [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><r/>"#),
        ("external-dtd", #"<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>"#),
        ("billion-laughs", """
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\
        <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">\
        <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">\
        <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">\
        <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">\
        <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">\
        <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]><lolz>&lol9;</lolz>
        """),
        ("quadratic-blowup", "<!DOCTYPE r [<!ENTITY a \"" + String(repeating: "A", count: 50_000) + "\">]><r>"
            + String(repeating: "&a;", count: 50_000) + "</r>"),
        ("doctype-smuggled-assertion", """
        <!DOCTYPE Response [<!ENTITY a "<saml:Assertion xmlns:saml='urn:oasis:names:tc:SAML:2.0:assertion' ID='_evil'/>">]>\
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r">&a;</samlp:Response>
        """),
    ]

    @Test(arguments: hostileDoctypes.map(\.0))
    func doctypeIsRefused(name: String) throws {
        let xml = Self.hostileDoctypes.first { $0.0 == name }!.1
        let error = #expect(throws: XMLError.self) { try XMLDocument(parsing: xml) }
        #expect(error?.reason == .doctypeRefused)
        #expect(error?.description.contains("DOCTYPE") == true)
    }

    @Test func deepNestingIsRefused() throws {
        let xml = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        let error = #expect(throws: XMLError.self) { try XMLDocument(parsing: xml) }
        #expect(error?.reason == .tooDeep)
    }

    @Test func depthLimitIsConfigurable() throws {
        let xml = String(repeating: "<a>", count: 20) + String(repeating: "</a>", count: 20)
        _ = try XMLDocument(parsing: xml)
        let error = #expect(throws: XMLError.self) {
            try XMLDocument(parsing: xml, limits: XMLParsingLimits(maxDepth: 10))
        }
        #expect(error?.reason == .tooDeep)
    }

    @Test func oversizedDocumentIsRefusedBeforeParsing() throws {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: 1025)
        let error = #expect(throws: XMLError.self) {
            try XMLDocument(parsing: bytes, limits: XMLParsingLimits(maxBytes: 1024))
        }
        #expect(error?.reason == .tooLarge)
    }

    @Test func fiftyMegabyteFileIsRefusedWithoutReadingIt() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-50mb-\(UUID().uuidString).xml")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 50 * 1024 * 1024)  // sparse: 50 MB on paper
        try handle.close()
        defer { try? FileManager.default.removeItem(at: url) }
        let error = #expect(throws: BoundedInput.Failure.self) {
            try BoundedInput.read(path: url.path, limit: 4 * 1024 * 1024)
        }
        #expect(error?.reason == .tooLarge)
        #expect(error?.message.contains(url.path) == true)
    }

    @Test func notWellFormedNamesLineAndColumn() throws {
        let error = #expect(throws: XMLError.self) { try XMLDocument(parsing: "<a>\n<b></a>") }
        #expect(error?.reason == .notWellFormed)
        #expect(error?.line == 2)
    }

    @Test func emptyInputIsRefused() {
        let error = #expect(throws: XMLError.self) { try XMLDocument(parsing: "") }
        #expect(error?.reason == .empty)
    }

    @Test func nameIDWithCommentIsReadWhole() throws {
        let doc = try XMLDocument(parsing: "<n>admin@evil.com<!---->.example.org</n>")
        #expect(doc.root.text == "admin@evil.com.example.org")
        #expect(doc.root.firstTextNode == "admin@evil.com")
        #expect(doc.root.containsComment)
    }

    @Test func serializationKeepsBytes() throws {
        let xml = #"<a xmlns="urn:x" b="1"><c>t &amp; &lt;</c><!--k--></a>"#
        #expect(try XMLDocument(parsing: xml).serializedString() == xml)
    }
}

@Suite struct CanonicalizationTests {
    let xml = #"<r:root xmlns:r="urn:r" xmlns:u="urn:unused" xmlns:k="urn:k"><r:child b="2" a="1"><!--c--><k:x/></r:child></r:root>"#

    @Test func exclusiveDropsUnusedNamespacesAndComments() throws {
        let doc = try XMLDocument(parsing: xml)
        let child = doc.root.children[0]
        let out = String(decoding: try child.canonicalized(.exclusive), as: UTF8.self)
        #expect(out == #"<r:child xmlns:r="urn:r" a="1" b="2"><k:x xmlns:k="urn:k"></k:x></r:child>"#)
    }

    @Test func exclusiveWithCommentsKeepsComments() throws {
        let doc = try XMLDocument(parsing: xml)
        let out = String(decoding: try doc.root.children[0].canonicalized(.exclusiveWithComments), as: UTF8.self)
        #expect(out == #"<r:child xmlns:r="urn:r" a="1" b="2"><!--c--><k:x xmlns:k="urn:k"></k:x></r:child>"#)
    }

    @Test func inclusiveNamespacesPrefixListIsHonoured() throws {
        let doc = try XMLDocument(parsing: xml)
        let out = String(decoding: try doc.root.children[0].canonicalized(.exclusive, inclusiveNamespaces: ["u"]), as: UTF8.self)
        #expect(out == #"<r:child xmlns:r="urn:r" xmlns:u="urn:unused" a="1" b="2"><k:x xmlns:k="urn:k"></k:x></r:child>"#)
    }

    @Test func inclusiveKeepsAncestorNamespaces() throws {
        let doc = try XMLDocument(parsing: xml)
        let out = String(decoding: try doc.root.children[0].canonicalized(.inclusive), as: UTF8.self)
        #expect(out == #"<r:child xmlns:k="urn:k" xmlns:r="urn:r" xmlns:u="urn:unused" a="1" b="2"><k:x></k:x></r:child>"#)
    }

    @Test func wholeDocument() throws {
        let doc = try XMLDocument(parsing: #"<a   z="1"  b='2'/>"#)
        #expect(String(decoding: try doc.canonicalized(), as: UTF8.self) == #"<a b="2" z="1"></a>"#)
    }
}
