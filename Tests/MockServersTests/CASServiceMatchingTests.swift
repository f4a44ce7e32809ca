import TestSupport
import Foundation
@testable import MockServers
import SAMLCore
import Testing

/// How the service string is compared (`cas-service-match`, the profile's
/// `cas.service_match`) and altered (`cas-service-rewrite`), end to end and as units.
@Suite struct CASServiceMatchingTests {
    @Test func apereoMatchingDecodesIgnoresCaseAndTheFragment() {
        let bound = "http://127.0.0.1:5/app/?next=%2Fhome"
        #expect(CASServiceURL.matches(bound: bound, supplied: "http://127.0.0.1:5/app/?next=/home", mode: .decoded))
        #expect(CASServiceURL.matches(bound: bound, supplied: "HTTP://127.0.0.1:5/APP/?next=/home#top", mode: .decoded))
        #expect(!CASServiceURL.matches(bound: bound, supplied: "http://127.0.0.1:5/app?next=/home", mode: .decoded), "a trailing slash still differs")
        #expect(!CASServiceURL.matches(bound: bound, supplied: "https://127.0.0.1:5/app/?next=/home", mode: .decoded), "so does the scheme")
        #expect(!CASServiceURL.matches(bound: bound, supplied: "http://127.0.0.1:5/app/?next=/home", mode: .exact))
        #expect(CASServiceURL.matches(bound: "https://h:443/app/?b=2&a=1", supplied: "http://h/app?a=1&b=2", mode: .lenient))
        #expect(!CASServiceURL.matches(bound: "https://h/app/", supplied: "https://other/app/", mode: .lenient))
    }

    @Test func rewritesChangeTheBoundService() {
        #expect(CASServiceURL.rewrite("http://h/app/", .trailingSlash) == "http://h/app")
        #expect(CASServiceURL.rewrite("http://h/app?x=1", .trailingSlash) == "http://h/app/?x=1")
        #expect(CASServiceURL.rewrite("https://h/app/", .http) == "http://h/app/")
        #expect(CASServiceURL.rewrite("http://h/app/", .https) == "https://h/app/")
        #expect(CASServiceURL.rewrite("http://h/app/?next=/a b", .encoded) == "http://h/app/?next=%2Fa%20b")
        #expect(CASServiceURL.rewrite("http://h/app/?next=%2Fa", .decoded) == "http://h/app/?next=/a")
    }

    @Test func onlyAbsoluteHTTPServicesWithoutControlCharactersAreAcceptable() {
        #expect(CASServiceURL.isAcceptable("https://app.example.org/x"))
        #expect(!CASServiceURL.isAcceptable("https://app.example.org/\r\nX: y"))
        #expect(!CASServiceURL.isAcceptable("javascript:alert(1)"))
        #expect(!CASServiceURL.isAcceptable("http:///nohost"))
        #expect(CASServiceURL.appending("ticket", "ST-1-a", to: "http://h/a?x=1#f") == "http://h/a?x=1&ticket=ST-1-a#f")
    }

    @Test(arguments: [
        (CASKnob.ServiceMatch.exact, false),
        (CASKnob.ServiceMatch.decoded, true),
        (CASKnob.ServiceMatch.lenient, true),
    ])
    func anEncodedServiceValidatesUnlessMatchingIsExact(mode: CASKnob.ServiceMatch, accepted: Bool) async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceMatch(mode))]) { suite, browser in
            let info = suite.readyInfo().cas
            let issued = info.service + "?next=%2Fhome"
            let ticket = try await CASFixture.restTicket(suite, browser, service: issued)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service + "?next=/home"))
            #expect((answer.user == "alice") == accepted)
            if !accepted { #expect(answer.failureCode == "INVALID_SERVICE") }
        }
    }

    @Test func theHTTPRewriteBreaksValidationUnlessMatchingIsLenient() async throws {
        let https = "https://app.example.org/app/"
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceRewrite(.http))]) { suite, browser in
            let ticket = try await CASFixture.restTicket(suite, browser, service: https)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, suite.readyInfo().cas.serviceValidate, ticket: ticket, service: https))
            #expect(answer.failureCode == "INVALID_SERVICE")
            #expect(answer.failureText?.contains("The original service was 'http://app.example.org/app/' and the supplied service was '\(https)'") == true)
        }
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceRewrite(.http)), .cas(.serviceMatch(.lenient))]) { suite, browser in
            let ticket = try await CASFixture.restTicket(suite, browser, service: https)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, suite.readyInfo().cas.serviceValidate, ticket: ticket, service: https))
            #expect(answer.user == "alice")
            #expect(suite.log.entries.last?.annotations["cas.bound-service"] == "http://app.example.org/app/")
        }
    }

    @Test func theProfileSettingChoosesTheDefaultMatching() async throws {
        try await SuiteFixture.with("cas", modify: { $0.cas.serviceMatch = .exact }) { suite, browser in
            let info = suite.readyInfo().cas
            let ticket = try await CASFixture.restTicket(suite, browser, service: info.service)
            let answer = try CASFixture.ServiceResponse(try await CASFixture.validate(browser, info.serviceValidate, ticket: ticket, service: info.service.uppercased()))
            #expect(answer.failureCode == "INVALID_SERVICE")
        }
    }
}
