import Foundation
import MockServers
import SAMLCore
import Testing

/// `MockRequest`'s readers work on the UTF-8 view and decode only what is asked (issue 25); they
/// must answer what the full parsers answer.
@Suite struct MockRequestTests {
    static let targets = [
        "/idp/profile/SAML2/Redirect/SSO?SAMLRequest=fZ%2Bx&RelayState=a+b%26c&Signature=x%3D%3D",
        "/p??SAMLRequest=1&SAMLRequest=2",
        "/p?a=1&&b=&c&%53AMLRequest=encoded-name&RelayState=%E2%9C%93#fragment?SAMLRequest=no",
        "/p?Rel%61yState=first&RelayState=second",
        "/p",
        "/p#only?a=1",
        "/cas/login?service=http://sp.example.org/app?x=1",
        "http://idp.example.org:8443/idp/SSO?execution=e1s1",
        "http://idp.example.org",
        "/π/ünïcødé?q=✓&e\u{301}=1",
    ]

    @Test(arguments: targets)
    func queryValueIsTheFirstParsedValue(_ target: String) {
        let request = MockRequest(method: "GET", target: target)
        // Names are matched by their bytes: "é" (U+00E9) does not find "e\u{301}", which
        // Swift's String == (canonical equivalence) would; a query is octets (RFC 3986).
        #expect(request.queryValue("é") == nil)
        for name in ["SAMLRequest", "RelayState", "Signature", "a", "b", "c", "execution", "service", "q", "e\u{301}", "missing"] {
            #expect(request.queryValue(name) == request.query.first(named: name)?.value, "\(target) \(name)")
        }
    }

    @Test func pathAndQueryOfEachForm() {
        let cases: [(String, String, String?, Bool)] = [
            ("/idp/SSO?SAMLRequest=x#f", "/idp/SSO", "SAMLRequest=x", false),
            ("/cas/login?service=http://sp/app", "/cas/login", "service=http://sp/app", false),
            ("http://idp.example.org:8443/idp/SSO?execution=e1s1", "/idp/SSO", "execution=e1s1", true),
            ("http://idp.example.org", "/", nil, true),
            ("https://idp.example.org?x=1", "/", "x=1", true),
            ("http://idp.example.org?x=/a/b", "/", "x=/a/b", true),
            ("http://idp.example.org#f/a", "/", nil, true),
            ("/π/ünï?q=✓#frag", "/π/ünï", "q=✓", false),
            ("/p#only?a=1", "/p", "a=1", false),
        ]
        for (target, path, rawQuery, absolute) in cases {
            let request = MockRequest(method: "GET", target: target)
            #expect(request.path == path, "\(target)")
            #expect(request.rawQuery == rawQuery, "\(target)")
            #expect(request.url == (absolute ? target : "http://127.0.0.1" + target), "\(target)")
        }
    }

    @Test func headersMatchCaseInsensitivelyAndCookiesAreSplit() {
        let request = MockRequest(method: "GET", target: "/", headers: [
            ("cOOkie", " shib_idp_session=abc; \tJSESSIONID=x=y ;empty=; novalue ; ü=✓"),
            ("Content-Type", "text/plain"),
            ("COOKIE", "second=2"),
            ("X-Cookie", "not=this"),
        ])
        #expect(request.header("content-type") == "text/plain")
        #expect(request.header("CONTENT-TYPE") == "text/plain")
        #expect(request.header("Content-Typ") == nil && request.header("Content-Type2") == nil)
        #expect(request.headers(named: "cookie").count == 2)
        let cookies = request.cookies.map { "\($0.name)=\($0.value)" }
        #expect(cookies == ["shib_idp_session=abc", "JSESSIONID=x=y", "empty=", "ü=✓", "second=2"])
        #expect(request.cookie("JSESSIONID") == "x=y")
        #expect(request.cookie("novalue") == nil)
        // Letters fold, other bytes do not: `[` (0x5B) is not `{` (0x7B), `@` is not `` ` ``.
        let odd = MockRequest(method: "GET", target: "/", headers: [("X-[a]", "1"), ("@", "2")])
        #expect(odd.header("X-{A}") == nil && odd.header("x-[A]") == "1" && odd.header("`") == nil)
    }

    @Test func formValueIsTheFirstParsedField() {
        let body = Array("a=1&SAMLResponse=PHNhbWw%2B%2B&%52elayState=r+s&SAMLResponse=second&flag".utf8)
        let request = MockRequest(method: "POST", target: "/acs",
                                  headers: [("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")], body: body)
        for name in ["a", "SAMLResponse", "RelayState", "flag", "missing"] {
            #expect(request.formValue(name) == request.formFields.first(named: name)?.value, "\(name)")
        }
        #expect(request.formValue("RelayState") == "r s")
    }
}
