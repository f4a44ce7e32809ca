import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The CAS checks over real REST, login and validation exchanges with the mock CAS server.
@Suite struct ProtocolCheckTestsCAS {
    /// A TGT and a service ticket by the REST protocol, the service sent `serviceField` as
    /// written (form-encode it yourself, or not, on purpose).
    func serviceTicket(_ suite: MockSuite, _ browser: TestBrowser, serviceField: String) async throws -> String {
        let user = SuiteFixture.user(suite)
        let created = try await browser.post(suite.readyInfo().cas.tickets,
                                             form: "username=alice&password=" + PercentEncoding.formEncode(user.password))
        guard created.status == 201, let tgt = created.location else { throw BrowserError("no TGT: \(created.status)") }
        let ticket = try await browser.post(tgt, form: "service=" + serviceField)
        guard ticket.status == 200 else { throw BrowserError("no ST: \(ticket.status) \(ticket.body)") }
        return ticket.body
    }

    /// Validates `ticket` at `/cas/p3/serviceValidate` for `service`.
    @discardableResult
    func validate(_ suite: MockSuite, _ browser: TestBrowser, ticket: String, service: String) async throws -> TestBrowser.Page {
        try await browser.get(suite.readyInfo().cas.p3ServiceValidate + "?service=" + PercentEncoding.formEncode(service)
                              + "&ticket=" + ticket)
    }

    func evaluate(_ check: String, _ suite: MockSuite, params: [String: ParamValue] = [:], report: ClientReport = ClientReport(),
                  status: Int32 = 0) throws -> CheckOutcome {
        try ProtocolCheckRun.evaluate(check, .casREST, suite, params: params, report: report, status: status)
    }

    /// A correct REST client: one ticket, validated once for the service it was asked for.
    func correctRun(_ suite: MockSuite, _ browser: TestBrowser) async throws {
        let service = suite.readyInfo().cas.service
        let ticket = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(service))
        #expect(try await validate(suite, browser, ticket: ticket, service: service).body.contains("authenticationSuccess"))
    }

    @Test func correctClientPassesEveryCASCheck() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            try await correctRun(suite, browser)
            for check in ["cas.service-ticket-single-use", "cas.service-url-exact", "cas.service-encoded", "cas.ticket-validated-promptly"] {
                let outcome = try evaluate(check, suite)
                #expect(outcome.passed, "\(check): \(outcome)")
            }
            #expect(try evaluate("cas.failure-code-reported", suite).isNotApplicable)
        }
    }

    @Test func noValidationIsNotApplicable() async throws {
        try await SuiteFixture.with("cas") { suite, _ in
            for check in ["cas.service-ticket-single-use", "cas.service-url-exact", "cas.service-encoded",
                          "cas.failure-code-reported", "cas.ticket-validated-promptly"] {
                let outcome = try evaluate(check, suite)
                #expect(outcome.isNotApplicable, "\(check)")
            }
        }
    }

    // MARK: - cas.service-ticket-single-use

    @Test func ticketValidatedTwiceFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            try await correctRun(suite, browser)
            let ticket = suite.log.entries[1].response!.bodyText
            try await validate(suite, browser, ticket: ticket, service: suite.readyInfo().cas.service)
            let outcome = try evaluate("cas.service-ticket-single-use", suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2, 3])
        }
    }

    // MARK: - cas.service-url-exact

    @Test func validationWithoutTheTrailingSlashFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let service = suite.readyInfo().cas.service
            let ticket = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(service))
            #expect(try await validate(suite, browser, ticket: ticket, service: String(service.dropLast())).body.contains("INVALID_SERVICE"))
            let outcome = try evaluate("cas.service-url-exact", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
            #expect(outcome.evidenceText.contains("a trailing slash"))
        }
    }

    @Test func serverRewriteIsNotTheClientsFault() async throws {
        try await SuiteFixture.with("cas", knobs: [.cas(.serviceRewrite(.trailingSlash))]) { suite, browser in
            let service = suite.readyInfo().cas.service
            let ticket = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(service))
            #expect(try await validate(suite, browser, ticket: ticket, service: service).body.contains("INVALID_SERVICE"))
            let outcome = try evaluate("cas.service-url-exact", suite, status: 1)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.evidenceText.contains("the server bound it to"))
        }
    }

    // MARK: - cas.service-encoded

    @Test func rawPlusInTheServiceFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let service = suite.readyInfo().cas.service + "?q=a+b"
            let ticket = try await serviceTicket(suite, browser, serviceField: service)
            try await validate(suite, browser, ticket: ticket, service: service)
            let outcome = try evaluate("cas.service-encoded", suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
            #expect(outcome.evidenceText.contains("raw `+`"))
        }
    }

    @Test func serviceQueryCutAtAmpersandFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let service = suite.readyInfo().cas.service + "?lang=en&next=1"
            // The client URL-encodes only part of it: the service's own `&` splits the form.
            let ticket = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(suite.readyInfo().cas.service + "?lang=en") + "&next=1")
            try await validate(suite, browser, ticket: ticket, service: service)
            let outcome = try ProtocolCheckRun.evaluate("cas.service-encoded", .casREST, suite,
                                                        options: { var o = FlowOptions(); o.service = service; return o }())
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
            #expect(outcome.evidenceText.contains("service's own `&`"))
        }
    }

    // MARK: - cas.failure-code-reported

    /// A validation that fails with INVALID_SERVICE.
    func invalidService(_ suite: MockSuite, _ browser: TestBrowser) async throws {
        let service = suite.readyInfo().cas.service
        let ticket = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(service))
        try await validate(suite, browser, ticket: ticket, service: service + "x")
    }

    @Test func failureNamedWithItsCodePasses() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            try await invalidService(suite, browser)
            let report = ClientReport(outcome: "failure", error: "CAS refused the ticket: INVALID_SERVICE")
            let outcome = try evaluate("cas.failure-code-reported", suite, report: report, status: 1)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
        }
    }

    @Test func failureWithoutTheCodeFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            try await invalidService(suite, browser)
            let report = ClientReport(outcome: "failure", error: "login failed")
            let outcome = try evaluate("cas.failure-code-reported", suite, report: report, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.reason.contains("INVALID_SERVICE"))
        }
    }

    @Test func failureReportedAsSuccessFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            try await invalidService(suite, browser)
            let outcome = try evaluate("cas.failure-code-reported", suite, report: ClientReport(outcome: "success"), status: 0)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
        }
    }

    // MARK: - cas.ticket-validated-promptly

    @Test func ticketNeverValidatedFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            _ = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(suite.readyInfo().cas.service))
            let outcome = try evaluate("cas.ticket-validated-promptly", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
        }
    }

    @Test func ticketValidatedAfterTheDelayFails() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let service = suite.readyInfo().cas.service
            let ticket = try await serviceTicket(suite, browser, serviceField: PercentEncoding.formEncode(service))
            try await Task.sleep(for: .milliseconds(300))
            try await validate(suite, browser, ticket: ticket, service: service)
            let outcome = try evaluate("cas.ticket-validated-promptly", suite, params: ["max_delay": .number(0.2)])
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
        }
    }

    @Test func browserLoginValidatedByTheApplicationPasses() async throws {
        try await SuiteFixture.with("cas") { suite, browser in
            let start = try await browser.get(suite.readyInfo().cas.service)
            let form = try await browser.follow(start)
            let user = SuiteFixture.user(suite)
            let back = try await browser.submit(form, values: ["username": user.username, "password": user.password])
            let page = try await browser.follow(back)
            #expect(page.body.contains("SECRET-"))
            for check in ["cas.service-ticket-single-use", "cas.service-url-exact", "cas.service-encoded", "cas.ticket-validated-promptly"] {
                let outcome = try ProtocolCheckRun.evaluate(check, .casBrowser, suite)
                #expect(outcome.passed, "\(check): \(outcome)")
            }
        }
    }
}
