import TestSupport
import Foundation
import SAMLCore
import Testing
@testable import MockServers

/// The passive pages carry real AD FS's markup, as screen-scrapers read it (sources in
/// docs/adfs.md, "The pages"): the error inside `form#loginForm` (a `label` on 2016, a `span`
/// on 2019), the field order, the `options` form after it, AD FS's "Working..." auto-post
/// page, and the AWS Role values in the order AWS's AD FS guide writes them.
@Suite struct ADFSPagesTests {
    typealias S = ADFSTestSupport
    static let message = "Incorrect user ID or password. Type the correct user ID and password, and try again."

    /// The markup of the element `<tag ... id="id" ...>…</tag>` (start tag to end tag).
    static func element(_ tag: String, id: String, in html: String) -> String? {
        var searchFrom = html.startIndex
        while let open = html.range(of: "<\(tag) ", range: searchFrom..<html.endIndex) {
            guard let close = html.range(of: ">", range: open.upperBound..<html.endIndex) else { return nil }
            if html[open.upperBound..<close.lowerBound].contains("id=\"\(id)\"") {
                guard let end = html.range(of: "</\(tag)>", range: close.upperBound..<html.endIndex) else { return nil }
                return String(html[open.lowerBound..<end.upperBound])
            }
            searchFrom = close.upperBound
        }
        return nil
    }

    static func badPasswordPage(knobs: [Knob] = []) async throws -> String {
        var body = ""
        try await SuiteFixture.with("adfs", knobs: knobs) { suite, browser in
            let form = try await browser.get(suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + S.aws)
            #expect(try #require(form.forms.first).value("AuthMethod") == "FormsAuthentication")
            let bad = try await browser.submit(form, values: ["UserName": "alice", "Password": "nope"])
            #expect(bad.status == 200)
            #expect(suite.log.entries.last { $0.mock == "adfs" }?.annotations["adfs.login"] == "bad-password")
            body = bad.body
        }
        return body
    }

    @Test func theBadPasswordPageHasTheLabelErrorTextInsideTheLoginForm() async throws {
        let page = try await Self.badPasswordPage()
        let loginForm = try #require(Self.element("form", id: "loginForm", in: page))
        // aws-adfs: .//form[@id="loginForm"]//label[@id="errorText"]
        #expect(loginForm.contains("<div id=\"error\" class=\"fieldMargin error smallText\">\n<label id=\"errorText\" for=\"\">\(Self.message)</label>\n</div>"))
        #expect(!page.contains("<span id=\"errorText\""))
        #expect(!page.contains("aria-live"))
        let forms = HTMLFormParser.forms(in: page)
        #expect(forms.map(\.id) == ["loginForm", "options"])
        // AD FS's order: user name (the one typed, kept), password, Kmsi, then AuthMethod last.
        #expect(forms[0].fields.map(\.name) == ["UserName", "Password", "Kmsi", "AuthMethod"])
        #expect(forms[0].value("UserName") == "alice")
        #expect(forms[0].fields.map(\.type) == ["email", "password", "checkbox", "hidden"])
        #expect(forms[1].fields.map(\.name) == ["AuthMethod"])
        // No submit button: "Sign in" is a script-driven span.
        #expect(page.contains("<span id=\"submitButton\" class=\"submit\" tabindex=\"4\" onKeyPress="))
        #expect(page.contains("&#169; 2013 Microsoft"))
    }

    @Test func onWindowsServer2019TheErrorIsAnAriaLiveSpan() async throws {
        let page = try await Self.badPasswordPage(knobs: [.adfs(.pages(.ws2019))])
        let loginForm = try #require(Self.element("form", id: "loginForm", in: page))
        #expect(loginForm.contains("<span id=\"errorText\" for=\"\" aria-live=\"assertive\" role=\"alert\">\(Self.message)</span>"))
        #expect(!page.contains("<label id=\"errorText\""), "a label-only scraper must miss it, as on real 2019 pages")
        #expect(loginForm.contains("<label id=\"userNameInputLabel\" for=\"userNameInput\" class=\"hidden\">User Account</label>"))
        #expect(page.contains("<main>\n<div id=\"workArea\">"))
        let forms = HTMLFormParser.forms(in: page)
        #expect(forms.map(\.id) == ["loginForm", "options"])
        #expect(forms[1].fields.map(\.name) == ["AuthMethod", "UserName"], "2019 keeps the user name in form#options")
    }

    @Test func theOptionsFormWithoutAPasswordIsNoFailedSignIn() async throws {
        try await SuiteFixture.with("adfs", knobs: [.adfs(.pages(.ws2019))]) { suite, browser in
            let page = try await browser.get(suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + S.aws)
            let options = try #require(page.forms.last)
            #expect(options.id == "options")
            let again = try await browser.post(browser.resolve(try #require(options.action), against: page.url),
                                               form: "AuthMethod=&UserName=alice")
            #expect(again.status == 200)
            #expect(again.forms.first?.id == "loginForm")
            #expect(suite.log.entries.last?.annotations["adfs.login"] == nil)
            #expect(suite.log.entries.last?.annotations["adfs.failures"] == nil)
        }
    }

    @Test func theAutoPostIsADFSsWorkingPage() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let alice = SuiteFixture.user(suite)
            let inner = "RPID=" + PercentEncoding.queryComponentEncode(S.aws) + "&RelayState=" + PercentEncoding.queryComponentEncode("https://console.aws.amazon.com/")
            let start = suite.readyInfo().adfs.idpInitiatedSignOn + "?RelayState=" + PercentEncoding.queryComponentEncode(inner)
            let signedIn = try await browser.submit(try await browser.get(start), values: ["UserName": alice.username, "Password": alice.password])
            let page = try await browser.follow(signedIn)
            #expect(page.body.hasPrefix("<html><head><title>Working...</title></head><body><form method=\"POST\" name=\"hiddenform\" action=\"https://signin.aws.amazon.com:443/saml\"><input type=\"hidden\" name=\"SAMLResponse\" value=\""))
            #expect(page.body.hasSuffix("<noscript><p>Script is disabled. Click Submit to continue.</p><input type=\"submit\" value=\"Submit\" /></noscript></form><script language=\"javascript\">window.setTimeout('document.forms[0].submit()', 0);</script></body></html>"))
            let form = try #require(page.forms.first)
            #expect(form.method == "post")
            #expect(form.fields.map(\.name) == ["SAMLResponse", "RelayState"], "the message first, RelayState after it; the noscript Submit has no name")
            #expect(form.value("RelayState") == "https://console.aws.amazon.com/")
        }
    }

    @Test func actionsGetTheirDefaultPortWrittenOut() {
        #expect(ADFSPages.withPort("https://signin.aws.amazon.com/saml") == "https://signin.aws.amazon.com:443/saml")
        #expect(ADFSPages.withPort("http://sp.example.org/acs?a=%2F") == "http://sp.example.org:80/acs?a=%2F")
        #expect(ADFSPages.withPort("http://127.0.0.1:8443/Shibboleth.sso/SAML2/POST") == "http://127.0.0.1:8443/Shibboleth.sso/SAML2/POST")
    }

    static func awsRoles(knobs: [Knob]) async throws -> [String] {
        var roles: [String] = []
        try await SuiteFixture.with("adfs", knobs: knobs) { suite, browser in
            let alice = SuiteFixture.user(suite)
            let form = try await browser.get(suite.readyInfo().adfs.idpInitiatedSignOn + "?loginToRp=" + S.aws)
            let post = try await ADFSPassiveTests.signIn(browser, form, username: alice.username, password: alice.password)
            let assertion = try ADFSPassiveTests.validate(post, suite: suite, sp: S.aws, acs: ADFSPassiveTests.awsACS)
            roles = assertion.attributes.first { $0.name == ADFSClaims.awsRole }?.stringValues ?? []
        }
        return roles
    }

    @Test func awsRolesAreProviderFirstAndTheKnobTurnsThemRound() async throws {
        #expect(try await Self.awsRoles(knobs: []) == [
            "arn:aws:iam::123456789012:saml-provider/ADFS,arn:aws:iam::123456789012:role/ADFS-Admins",
            "arn:aws:iam::210987654321:saml-provider/ADFS,arn:aws:iam::210987654321:role/ADFS-ReadOnly",
        ])
        #expect(try await Self.awsRoles(knobs: [.adfs(.roleOrder(.roleFirst))]) == [
            "arn:aws:iam::123456789012:role/ADFS-Admins,arn:aws:iam::123456789012:saml-provider/ADFS",
            "arn:aws:iam::210987654321:role/ADFS-ReadOnly,arn:aws:iam::210987654321:saml-provider/ADFS",
        ])
    }

    @Test func roleValuesAreOrderedWhicheverOrderTheProfileWrote() throws {
        let provider = "arn:aws:iam::1:saml-provider/P", role = "arn:aws:iam::1:role/R"
        for written in ["\(provider),\(role)", "\(role),\(provider)", "\(role), \(provider)"] {
            #expect(ADFSClaims.ordered(written, .providerFirst) == "\(provider),\(role)")
            #expect(ADFSClaims.ordered(written, .roleFirst) == "\(role),\(provider)")
        }
        for odd in [role, "\(role),\(role)", "a,b,c", ""] {
            #expect(ADFSClaims.ordered(odd, .roleFirst) == odd, "left as written: \(odd)")
        }
        #expect(try Knob(parsing: "adfs-role-order=role-first") == .adfs(.roleOrder(.roleFirst)))
        #expect(try Knob(parsing: "adfs-pages=2019") == .adfs(.pages(.ws2019)))
        #expect(throws: (any Error).self) { try Knob(parsing: "adfs-role-order=sideways") }
    }
}
