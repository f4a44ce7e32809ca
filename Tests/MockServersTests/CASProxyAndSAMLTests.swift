import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// CAS proxying (pgtUrl callback, `/proxy`, `/proxyValidate`) and `/samlValidate`.
@Suite struct CASProxyAndSAMLTests {
    /// A loopback callback that answers 200 to any GET: the mock IdP's metadata URL.
    static func callback(_ suite: MockSuite) -> String { suite.readyInfo().idp.metadata + "?cb=1" }

    @Test func aPgtUrlGetsAProxyGrantingTicketThatVendsProxyTickets() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let pgtUrl = Self.callback(suite)
            let ticket = try await CASFixture.restTicket(suite, browser)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(
                browser, info.serviceValidate, ticket: ticket, service: info.service, extra: "&pgtUrl=" + CASFixture.enc(pgtUrl)))
            #expect(answer.user == "alice")
            let iou = try #require(answer.proxyGrantingTicket)
            #expect(iou.hasPrefix("PGTIOU-"))
            // CAS called the callback twice: once bare, once with pgtIou and pgtId.
            let calls = suite.log.entries.filter { $0.mock == "idp" && $0.request.queryValue("cb") == "1" }
            #expect(calls.count == 2)
            let delivery = try #require(calls.last)
            #expect(delivery.request.queryValue("pgtIou") == iou)
            let pgt = try #require(delivery.request.queryValue("pgtId"))
            #expect(pgt.hasPrefix("PGT-"))
            // /proxy vends a PT for another service; /proxyValidate accepts it with the chain.
            let target = info.base + "/backend/"
            let proxied = try CASFixture.ServiceResponse(try await browser.get(info.proxy + "?pgt=" + CASFixture.enc(pgt) + "&targetService=" + CASFixture.enc(target)))
            let pt = try #require(proxied.text("proxyTicket").first)
            #expect(pt.hasPrefix("PT-"))
            let validated = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.proxyValidate, ticket: pt, service: target))
            #expect(validated.user == "alice")
            #expect(validated.text("proxy") == [pgtUrl])
            // /serviceValidate refuses proxy tickets.
            let pt2 = try #require(try CASFixture.ServiceResponse(try await browser.get(info.proxy + "?pgt=" + CASFixture.enc(pgt) + "&targetService=" + CASFixture.enc(target))).text("proxyTicket").first)
            let refused = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: pt2, service: target))
            #expect(refused.failureCode == "INVALID_TICKET")
            #expect(refused.failureText == "Ticket '\(pt2)' not recognized")
        }
    }

    @Test func aPgtUrlOffLoopbackIsInvalidProxyCallbackAndLeavesTheTicket() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            for pgtUrl in ["http://example.org/cb", "https://127.0.0.1:1/cb", "http://127.0.0.1:1/closed"] {
                let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(
                    browser, info.serviceValidate, ticket: ticket, service: info.service, extra: "&pgtUrl=" + CASFixture.enc(pgtUrl)))
                #expect(answer.failureCode == "INVALID_PROXY_CALLBACK")
                #expect(answer.failureText == "The supplied proxy callback url '\(pgtUrl)' could not be authenticated. Either '\(pgtUrl)' cannot be reached, it is not allowed to exercise proxy authentication.")
            }
            // Apereo checks the callback before validating: the ticket is still good.
            #expect(try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service)).user == "alice")
        }
    }

    @Test func proxyWithoutParametersOrWithATGTFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let missing = try XMLDocument(parsing: try await browser.get(info.proxy + "?pgt=PGT-1-x").body)
            let failure = try #require(missing.root.descendants("proxyFailure", CASFixture.ServiceResponse.ns).first)
            #expect(failure.attribute("code") == "INVALID_REQUEST")
            #expect(failure.text == "The request is incorrectly formatted. Ensure all required parameters are properly encoded and included.")
            let tgt = try await CASFixture.ticketGrantingTicket(suite, browser)
            let tgtID = String(tgt.split(separator: "/").last!)
            let withTGT = try XMLDocument(parsing: try await browser.get(info.proxy + "?pgt=" + tgtID + "&targetService=" + CASFixture.enc(info.service)).body)
            #expect(withTGT.root.descendants("proxyFailure", CASFixture.ServiceResponse.ns).first?.attribute("code") == "INVALID_TICKET")
        }
    }

    static let saml1p = "urn:oasis:names:tc:SAML:1.0:protocol"
    static let saml1 = "urn:oasis:names:tc:SAML:1.0:assertion"

    static func samlRequest(_ ticket: String) -> String {
        """
        <SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Header/><SOAP-ENV:Body>\
        <samlp:Request xmlns:samlp="urn:oasis:names:tc:SAML:1.0:protocol" MajorVersion="1" MinorVersion="1" RequestID="_req1" \
        IssueInstant="2024-01-01T00:00:00Z"><samlp:AssertionArtifact>
          \(ticket)
        </samlp:AssertionArtifact></samlp:Request></SOAP-ENV:Body></SOAP-ENV:Envelope>
        """
    }

    @Test func samlValidateAnswersASAML11Assertion() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let url = info.samlValidate + "?TARGET=" + CASFixture.enc(info.service)
            let page = try await browser.send("POST", url, headers: [("Content-Type", "text/xml; charset=utf-8")], body: Array(Self.samlRequest(ticket).utf8))
            #expect(page.status == 200)
            let document = try XMLDocument(parsing: page.body)
            let response = try #require(document.root.descendants("Response", Self.saml1p).first)
            #expect(response.attribute("InResponseTo") == "_req1")
            #expect(response.attribute("Recipient") == info.service)
            #expect(document.root.descendants("StatusCode", Self.saml1p).first?.attribute("Value") == "saml1p:Success")
            #expect(document.root.descendants("NameIdentifier", Self.saml1).first?.text == "alice")
            #expect(document.root.descendants("Audience", Self.saml1).first?.text == info.service)
            let mail = document.root.descendants("Attribute", Self.saml1).first { $0.attribute("AttributeName") == "mail" }
            #expect(mail?.descendants("AttributeValue", Self.saml1).map(\.text) == ["alice@example.org"])
            // Used once: the same artifact is now denied with Apereo's INVALID_TICKET text.
            let again = try XMLDocument(parsing: try await browser.send("POST", url, headers: [("Content-Type", "text/xml")], body: Array(Self.samlRequest(ticket).utf8)).body)
            #expect(again.root.descendants("StatusCode", Self.saml1p).first?.attribute("Value") == "saml1p:RequestDenied")
            #expect(again.root.descendants("StatusMessage", Self.saml1p).first?.text == "Ticket '\(ticket)' not recognized")
            #expect(CASFixture.lastEntry(suite, path: "/cas/samlValidate")?.annotations["cas.validate"] == "INVALID_TICKET")
        }
    }

    @Test func samlValidateRefusesADoctypeAndAMissingTarget() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let hostile = "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>" + Self.samlRequest(ticket)
            let page = try await browser.send("POST", info.samlValidate + "?TARGET=" + CASFixture.enc(info.service),
                                              headers: [("Content-Type", "text/xml")], body: Array(hostile.utf8))
            #expect(!page.body.contains("root:"))
            #expect(try XMLDocument(parsing: page.body).root.descendants("StatusCode", Self.saml1p).first?.attribute("Value") == "saml1p:RequestDenied")
            let noTarget = try await browser.send("POST", info.samlValidate, headers: [("Content-Type", "text/xml")], body: Array(Self.samlRequest(ticket).utf8))
            #expect(try XMLDocument(parsing: noTarget.body).root.descendants("StatusMessage", Self.saml1p).first?.text == "INVALID_REQUEST")
        }
    }
}
