import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// The CAS REST protocol and ticket validation (CAS 1, 2, 3, JSON), with the negative cases
/// answered as Apereo CAS answers them.
@Suite struct CASProtocolTests {
    @Test func restLoginGivesATicketGrantingTicketAndServiceTickets() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let user = SuiteFixture.user(suite)
            let created = try await browser.post(info.tickets, form: QueryParameter.formEncoded([("username", user.username), ("password", user.password)]))
            #expect(created.status == 201)
            let location = try #require(created.location)
            #expect(location.hasPrefix(info.tickets + "/TGT-"))
            #expect(created.body.contains("<h1>TGT Created</h1><form action=\"\(location)\" method=\"POST\">"))
            #expect(created.header("Content-Type") == "text/html;charset=UTF-8")
            let st = try await browser.post(location, form: "service=" + CASFixture.enc(info.service))
            #expect(st.status == 200)
            #expect(st.body.hasPrefix("ST-"))
            let entry = try #require(suite.log.entries.last { $0.annotations["cas.rest"] == "st-issued" })
            #expect(entry.annotations["cas.ticket"] == st.body)
            #expect(entry.annotations["cas.user"] == "alice")
            // GET tells the TGT is alive; DELETE logs out; then the TGT is unknown.
            #expect(try await browser.get(location).status == 200)
            let deleted = try await browser.send("DELETE", location, headers: [], body: nil)
            #expect(deleted.status == 200)
            #expect(deleted.body == String(location.split(separator: "/").last!))
            #expect(try await browser.get(location).status == 404)
            let after = try await browser.post(location, form: "service=" + CASFixture.enc(info.service))
            #expect(after.status == 404)
            #expect(after.body == "\(location.split(separator: "/").last!) could not be found")
        }
    }

    @Test func restWithAnAcceptHeaderOtherThanHTMLGetsTheBareTicketID() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let user = SuiteFixture.user(suite, "bob")
            let page = try await browser.post(suite.readyInfo().cas.tickets,
                                              form: QueryParameter.formEncoded([("username", user.username), ("password", user.password)]),
                                              headers: [("Accept", "application/json")])
            #expect(page.status == 201)
            #expect(page.body.hasPrefix("TGT-"))
            #expect(page.location?.hasSuffix("/" + page.body) == true)
        }
    }

    @Test func restRefusesBadCredentialsWith401AndApereosExceptionList() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let tickets = suite.readyInfo().cas.tickets
            let wrong = try await browser.post(tickets, form: "username=alice&password=nope")
            #expect(wrong.status == 401)
            #expect(wrong.body.contains("\"authentication_exceptions\" : [ \"java.util.ArrayList\", [ \"FailedLoginException"))
            let unknown = try await browser.post(tickets, form: "username=mallory&password=x")
            #expect(unknown.status == 401)
            #expect(unknown.body.contains("AccountNotFoundException: mallory not found in backing map."))
            let empty = try await browser.post(tickets, form: "username=alice")
            #expect(empty.status == 400)
            let unknownTGT = try await browser.post(tickets + "/TGT-999-nope", form: "service=http%3A%2F%2Fa%2F")
            #expect(unknownTGT.status == 404)
            #expect(unknownTGT.body == "TGT-999-nope could not be found")
            #expect(suite.log.entries.filter { $0.annotations["cas.rest"] == "bad-credentials" }.count == 2)
        }
    }

    @Test func cas2ServiceValidateNamesTheUserWithoutAttributes() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let page = try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service)
            #expect(page.status == 200)
            let answer = try CASFixture.ServiceResponse(page)
            #expect(answer.user == "alice")
            #expect(!answer.hasAttributes)
            let entry = try #require(CASFixture.lastEntry(suite, path: "/cas/serviceValidate"))
            #expect(entry.annotations["cas.validate"] == "success")
            #expect(entry.annotations["cas.user"] == "alice")
            #expect(entry.annotations["cas.protocol"] == "2")
        }
    }

    @Test func cas3ServiceValidateReleasesAttributes() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.p3ServiceValidate, ticket: ticket, service: info.service))
            #expect(answer.user == "alice")
            #expect(answer.values("mail") == ["alice@example.org"])
            #expect(answer.values("displayName") == ["Alice Ångström"])
            #expect(answer.values("eduPersonAffiliation") == ["member", "student"])
            #expect(answer.values("isFromNewLogin") == ["true"])
            #expect(answer.values("credentialType") == ["UsernamePasswordCredential"])
        }
    }

    @Test func jsonFormatCarriesTheSameAnswer() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let page = try await CASFixture.validate(browser, info.p3ServiceValidate, ticket: ticket, service: info.service, extra: "&format=JSON")
            #expect(page.header("Content-Type")?.hasPrefix("application/json") == true)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any])
            let success = try #require((json["serviceResponse"] as? [String: Any])?["authenticationSuccess"] as? [String: Any])
            #expect(success["user"] as? String == "alice")
            #expect((success["attributes"] as? [String: Any])?["mail"] as? [String] == ["alice@example.org"])
            let again = try await CASFixture.validate(browser, info.p3ServiceValidate, ticket: ticket, service: info.service, extra: "&format=json")
            let failure = try #require(((try JSONSerialization.jsonObject(with: Data(again.body.utf8)) as? [String: Any])?["serviceResponse"] as? [String: Any])?["authenticationFailure"] as? [String: Any])
            #expect(failure["code"] as? String == "INVALID_TICKET")
            #expect(failure["description"] as? String == "Ticket '\(ticket)' not recognized")
        }
    }

    @Test func cas1ValidateAnswersYesOnceThenNo() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            #expect(try await CASFixture.validate(browser, info.validate, ticket: ticket, service: info.service).body == "yes\nalice\n")
            #expect(try await CASFixture.validate(browser, info.validate, ticket: ticket, service: info.service).body == "no\n\n")
            #expect(try await browser.get(info.validate + "?ticket=" + ticket).body == "no\n\n")
        }
    }

    @Test func aReusedTicketIsInvalidTicket() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            #expect(try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service)).user == "alice")
            let again = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service))
            #expect(again.user == nil)
            #expect(again.failureCode == "INVALID_TICKET")
            #expect(again.failureText == "Ticket '\(ticket)' not recognized")
            let entry = try #require(CASFixture.lastEntry(suite, path: "/cas/serviceValidate"))
            #expect(entry.annotations["cas.validate"] == "INVALID_TICKET")
            #expect(entry.annotations["cas.failure"] == "unknown-or-used")
        }
    }

    @Test func anExpiredTicketIsInvalidTicketAfterTenSeconds() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let early = try await CASFixture.restTicket(suite, browser)
            // 5 s of the 10: the validation below must come within the rest in real time,
            // which a loaded machine does not promise for 1 s.
            suite.environment.advanceClock(by: 5)
            #expect(try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: early, service: info.service)).user == "alice")
            let late = try await CASFixture.restTicket(suite, browser)
            suite.environment.advanceClock(by: 11)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: late, service: info.service))
            #expect(answer.failureCode == "INVALID_TICKET")
            #expect(answer.failureText == "Ticket '\(late)' not recognized")
            #expect(CASFixture.lastEntry(suite, path: "/cas/serviceValidate")?.annotations["cas.failure"] == "expired")
        }
    }

    @Test func theLifetimeKnobAndSettingShortenTickets() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.ticketLifetime(1))]) { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            suite.environment.advanceClock(by: 2)
            #expect(try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service)).failureCode == "INVALID_TICKET")
        }
        try await SuiteFixture.with("cas", modify: { $0.cas.serviceTicketLifetime = 60 }) { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            suite.environment.advanceClock(by: 30)
            #expect(try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service)).user == "alice")
        }
    }

    @Test func aServiceMismatchIsInvalidServiceAndConsumesTheTicket() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let other = info.base + "/other/"
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: other))
            #expect(answer.failureCode == "INVALID_SERVICE")
            #expect(answer.failureText == "Ticket '\(ticket)' does not match supplied service. The original service was '\(info.service)' and the supplied service was '\(other)'.")
            // Apereo counts the use before comparing services: the right service now fails too.
            let retry = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service))
            #expect(retry.failureCode == "INVALID_TICKET")
        }
    }

    @Test func missingParametersAreInvalidRequest() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let info = suite.readyInfo().cas
            let answer = try CASFixture.ServiceResponse(try await browser.get(info.p3ServiceValidate + "?service=" + CASFixture.enc(info.service)))
            #expect(answer.failureCode == "INVALID_REQUEST")
            #expect(answer.failureText == "")
        }
    }

    @Test func theReusableKnobLetsATicketValidateTwice() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.ticketReusable)]) { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            for _ in 0..<2 {
                #expect(try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service)).user == "alice")
            }
        }
    }

    @Test func theNoAttributesKnobWithholdsCAS3Attributes() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.noAttributes)]) { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.p3ServiceValidate, ticket: ticket, service: info.service))
            #expect(answer.user == "alice")
            #expect(!answer.hasAttributes)
        }
    }
}
