import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The WS-Trust and AD FS checks over real exchanges with the mock AD FS.
@Suite struct ProtocolCheckTestsADFS {
    /// A WS-Trust 1.3 RST as MSAL writes it, the password written into the XML as given.
    func envelope(endpoint: String, username: String, passwordXML: String, appliesTo: String, messageID: Bool = true) -> String {
        let e = XMLWriter.escapeText
        let now = Date()
        return """
        <s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing" \
        xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"><s:Header>\
        <wsa:Action s:mustUnderstand="1">http://docs.oasis-open.org/ws-sx/ws-trust/200512/RST/Issue</wsa:Action>\
        \(messageID ? "<wsa:MessageID>urn:uuid:7f3e0d8c-5a4b-4c1d-9e2f-0a1b2c3d4e5f</wsa:MessageID>" : "")\
        <wsa:To s:mustUnderstand="1">\(e(endpoint))</wsa:To>\
        <wsse:Security s:mustUnderstand="1" xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">\
        <wsu:Timestamp wsu:Id="_0"><wsu:Created>\(SAMLDateTime.string(from: now))</wsu:Created>\
        <wsu:Expires>\(SAMLDateTime.string(from: now.addingTimeInterval(600)))</wsu:Expires></wsu:Timestamp>\
        <wsse:UsernameToken wsu:Id="u1"><wsse:Username>\(e(username))</wsse:Username>\
        <wsse:Password>\(passwordXML)</wsse:Password></wsse:UsernameToken></wsse:Security></s:Header>\
        <s:Body><wst:RequestSecurityToken xmlns:wst="http://docs.oasis-open.org/ws-sx/ws-trust/200512">\
        <wsp:AppliesTo xmlns:wsp="http://schemas.xmlsoap.org/ws/2004/09/policy"><wsa:EndpointReference>\
        <wsa:Address>\(e(appliesTo))</wsa:Address></wsa:EndpointReference></wsp:AppliesTo>\
        <wst:KeyType>http://docs.oasis-open.org/ws-sx/ws-trust/200512/Bearer</wst:KeyType>\
        <wst:RequestType>http://docs.oasis-open.org/ws-sx/ws-trust/200512/Issue</wst:RequestType>\
        </wst:RequestSecurityToken></s:Body></s:Envelope>
        """
    }

    /// Posts an RST for alice; `escape: false` writes her password (`&`, `%`, non-ASCII) raw.
    @discardableResult
    func requestToken(_ suite: MockSuite, _ browser: TestBrowser, escape: Bool = true, password: String? = nil,
                      appliesTo: String? = nil, contentType: String = "application/soap+xml; charset=utf-8",
                      messageID: Bool = true) async throws -> TestBrowser.Page {
        let info = suite.readyInfo()
        let secret = password ?? SuiteFixture.user(suite).password
        let body = envelope(endpoint: info.adfs.usernameMixed13, username: "alice",
                            passwordXML: escape ? XMLWriter.escapeText(secret) : secret,
                            appliesTo: appliesTo ?? info.sp.entityID, messageID: messageID)
        return try await browser.send("POST", info.adfs.usernameMixed13, headers: [("Content-Type", contentType)], body: Array(body.utf8))
    }

    func evaluate(_ check: String, _ suite: MockSuite, report: ClientReport = ClientReport(), status: Int32 = 0) throws -> CheckOutcome {
        try ProtocolCheckRun.evaluate(check, .adfsWSTrust, suite, report: report, status: status)
    }

    @Test func correctRSTPassesTheWSTrustChecks() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            #expect(try await requestToken(suite, browser).status == 200)
            for check in ["wstrust.credentials-xml-escaped", "wstrust.envelope-well-formed", "wstrust.applies-to-set"] {
                let outcome = try evaluate(check, suite)
                #expect(outcome.passed, "\(check): \(outcome)")
                #expect(outcome.citedExchanges == [0])
            }
            #expect(try evaluate("wstrust.fault-reported", suite).isNotApplicable)
        }
    }

    @Test func noRSTIsNotApplicable() async throws {
        try await SuiteFixture.with("adfs") { suite, _ in
            for check in ["wstrust.credentials-xml-escaped", "wstrust.envelope-well-formed", "wstrust.applies-to-set",
                          "wstrust.fault-reported"] {
                let outcome = try evaluate(check, suite)
                #expect(outcome.isNotApplicable, "\(check)")
            }
        }
    }

    // MARK: - wstrust.credentials-xml-escaped

    @Test func unescapedAmpersandInThePasswordFails() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            #expect(try await requestToken(suite, browser, escape: false).status == 400)
            let outcome = try evaluate("wstrust.credentials-xml-escaped", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [0])
            #expect(outcome.evidenceText.contains("not well-formed") && outcome.evidenceText.contains("InvalidRequest"))
        }
    }

    @Test func doubleEscapedPasswordFails() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            let password = SuiteFixture.user(suite).password
            _ = try await requestToken(suite, browser, escape: true, password: XMLWriter.escapeText(password))
            let outcome = try evaluate("wstrust.credentials-xml-escaped", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.evidenceText.contains("&amp;100%"))
        }
    }

    // MARK: - wstrust.envelope-well-formed

    @Test func soap11ContentTypeAndNoMessageIDFail() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            #expect(try await requestToken(suite, browser, contentType: "text/xml; charset=utf-8", messageID: false).status == 415)
            let outcome = try evaluate("wstrust.envelope-well-formed", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [0])
            #expect(outcome.evidenceText.contains("not application/soap+xml") && outcome.evidenceText.contains("no wsa:MessageID"))
        }
    }

    // MARK: - wstrust.applies-to-set

    @Test func anotherRelyingPartyFails() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            _ = try await requestToken(suite, browser, appliesTo: "urn:federation:MicrosoftOnline")
            let outcome = try evaluate("wstrust.applies-to-set", suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.evidenceText.contains("urn:federation:MicrosoftOnline"))
        }
    }

    // MARK: - wstrust.fault-reported

    @Test func faultReportedWithItsCodePasses() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            _ = try await requestToken(suite, browser, password: "wrong")
            let report = ClientReport(outcome: "failure", error: "WsTrust server returned error in RSTR: {'reason': 'ID3242: …', 'code': 'a:FailedAuthentication'}")
            let outcome = try evaluate("wstrust.fault-reported", suite, report: report, status: 1)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [0])
        }
    }

    @Test func faultWithoutItsCodeFails() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            _ = try await requestToken(suite, browser, password: "wrong")
            let outcome = try evaluate("wstrust.fault-reported", suite, report: ClientReport(outcome: "failure", error: "sign-in failed"), status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("FailedAuthentication"))
        }
    }

    @Test func faultRetriedInALoopFails() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            for _ in 0..<4 { _ = try await requestToken(suite, browser, password: "wrong") }
            let report = ClientReport(outcome: "failure", error: "FailedAuthentication")
            let outcome = try evaluate("wstrust.fault-reported", suite, report: report, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [0, 1, 2, 3])
        }
    }

    // MARK: - adfs.form-login-posted

    /// The forms sign-in for the mock SP's trust; `values` replaces what the form posts.
    func passiveLogin(_ suite: MockSuite, _ browser: TestBrowser, dropAuthMethod: Bool = false,
                      forgetCookies: Bool = false) async throws {
        let info = suite.readyInfo()
        let form = try await browser.get(info.adfs.idpInitiatedSignOn + "?loginToRp=" + PercentEncoding.queryComponentEncode(info.sp.entityID))
        let user = SuiteFixture.user(suite)
        let answer: TestBrowser.Page
        if dropAuthMethod {
            let action = browser.resolve(form.forms.first?.action ?? form.url, against: form.url)
            answer = try await browser.post(action, form: QueryParameter.formEncoded([("UserName", user.username), ("Password", user.password)]))
        } else {
            answer = try await browser.submit(form, values: ["UserName": user.username, "Password": user.password])
        }
        #expect(answer.status == 302)
        if forgetCookies { browser.forgetCookies() }
        _ = try await browser.follow(answer)
    }

    @Test func formPostedWholeWithCookiesKeptPasses() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            try await passiveLogin(suite, browser)
            let outcome = try ProtocolCheckRun.evaluate("adfs.form-login-posted", .adfsPassive, suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [1, 2])
        }
    }

    @Test func postWithoutAuthMethodFails() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            try await passiveLogin(suite, browser, dropAuthMethod: true)
            let outcome = try ProtocolCheckRun.evaluate("adfs.form-login-posted", .adfsPassive, suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
            #expect(outcome.evidenceText.contains("lacks AuthMethod"))
        }
    }

    @Test func sessionCookiesDroppedFail() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            try await passiveLogin(suite, browser, forgetCookies: true)
            let outcome = try ProtocolCheckRun.evaluate("adfs.form-login-posted", .adfsPassive, suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges.contains(2))
            #expect(outcome.evidenceText.contains("lacks MSISAuth, MSISAuthenticated"))
        }
    }

    @Test func noFormPostIsNotApplicable() async throws {
        try await SuiteFixture.with("adfs") { suite, browser in
            _ = try await browser.get(suite.readyInfo().adfs.idpInitiatedSignOn)
            #expect(try ProtocolCheckRun.evaluate("adfs.form-login-posted", .adfsPassive, suite).isNotApplicable)
        }
    }
}
