import Foundation
import MockServers
@testable import ReferenceClient
import TestSupport
import Testing

@Suite struct EncodingTests {
    @Test func formValuesArePercentEncoded() {
        let body = String(decoding: FormEncoding.body([("password", "correct horse+battery=staple&100% Ünï/")]), as: UTF8.self)
        #expect(body == "password=correct+horse%2Bbattery%3Dstaple%26100%25+%C3%9Cn%C3%AF%2F")
    }

    @Test func queryAppendingKeepsTheExistingQueryAndEncodesPlus() throws {
        let base = try #require(URL(string: "http://cm.example/SAML/saml_authenticate?idp_entity_id=x&provider=SAML+2.0+Web+SSO"))
        let url = try #require(FormEncoding.appendingQuery(base, [("redirect_uri", "app://cb?a=1+2")]))
        #expect(url.absoluteString == "http://cm.example/SAML/saml_authenticate?idp_entity_id=x&provider=SAML+2.0+Web+SSO&redirect_uri=app%3A%2F%2Fcb%3Fa%3D1%2B2")
        #expect(FormEncoding.queryValue("redirect_uri", in: url) == "app://cb?a=1+2")
    }

    @Test func digestsMatchKnownVectors() {
        #expect(MD5.hex(Array("".utf8)) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex(Array("The quick brown fox jumps over the lazy dog".utf8)) == "9e107d9d372bb6826bd81d3542a419d6")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array(repeating: UInt8(ascii: "a"), count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func rfc7616DigestExample() throws {
        // RFC 7616 §3.9.1 (SHA-256, cnonce fixed there; here only the parts independent of it).
        let challenges = Challenge.parse(#"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", Digest realm="http-auth@example.org", qop="auth", algorithm=MD5, nonce="n2""#)
        #expect(challenges.count == 2)
        #expect(DigestAuthenticator.best(of: challenges)?.parameters["algorithm"] == "SHA-256")
        var digest = DigestAuthenticator(challenge: challenges[0])
        let url = try #require(URL(string: "http://www.example.org/dir/index.html"))
        let header = digest.authorization(method: "GET", url: url,
                                          username: "Mufasa", password: "Circle of Life")
        #expect(header.contains(#"uri="/dir/index.html""#))
        #expect(header.contains("nc=00000001"))
        #expect(header.contains("qop=auth,") || header.contains("qop=auth"))
    }

    @Test func joinedSetCookieFieldsAreSplit() throws {
        let parts = CookieJar.splitSetCookie("a=1; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2; Path=/app/")
        #expect(parts == ["a=1; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2; Path=/app/"])
        let jar = CookieJar(enabled: true)
        let app = try #require(URL(string: "http://h/app/"))
        let cas = try #require(URL(string: "http://h/cas/"))
        jar.store(setCookie: "b=2; Path=/app/", from: try #require(URL(string: "http://h/app/?ticket=1")))
        #expect(jar.header(for: app) == "b=2")
        #expect(jar.header(for: cas) == nil)
    }

    @Test func wsTrustCredentialsAreEscaped() throws {
        let endpoint = try #require(URL(string: "http://a/adfs/services/trust/13/usernamemixed"))
        let xml = WSTrustFlow.envelope(endpoint: endpoint, username: "dana",
                                       password: "d<na&co]]>x", appliesTo: "urn:x", tokenType: nil, escape: true)
        #expect(xml.contains("<wsse:Password>d&lt;na&amp;co]]&gt;x</wsse:Password>"))
        #expect(XMLScan(Data(xml.utf8))?.first("Password")?.text == "d<na&co]]>x")
    }
}

@Suite(.serialized) struct MoreFlowTests {
    @Test func secondFactorPage() async throws {
        try await SuiteFixture.with("shibboleth-mfa") { suite, _ in
            let result = await ReferenceClient(configuration: try ClientFixture.configuration(suite, flow: .webSSO)).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "sp.secret"))
            #expect(result.resource.contains(secret))
        }
    }

    @Test func opdsThroughADFS() async throws {
        try await SuiteFixture.with("circulation-manager") { suite, _ in
            let configuration = try ClientFixture.configuration(suite, flow: .opdsSAML,
                                                                parameters: ["OPDS_IDP_ENTITY_ID": suite.readyInfo().adfs.entityID, "OPDS_BOOK": "2"])
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .success, "\(result.error)")
            let sha = try #require(ClientFixture.annotation(suite, "cm.sha256"))
            #expect(result.resource.contains(sha))
            #expect(result.details["content_type"] == "application/pdf")
        }
    }

    @Test func casBrowserFromTheLoginURL() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            var configuration = try ClientFixture.configuration(suite, flow: .casBrowser, user: "carol")
            let info = suite.readyInfo()
            let login = try #require(URL(string: info.cas.login))
            configuration.startURL = try #require(FormEncoding.appendingQuery(login, [("service", info.cas.service)]))
            let result = await ReferenceClient(configuration: configuration).run()
            #expect(result.outcome == .success, "\(result.error)")
            let secret = try #require(ClientFixture.annotation(suite, "cas.app.secret"))
            #expect(result.resource.contains(secret))
        }
    }
}
