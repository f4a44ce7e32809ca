import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// The ECP checks over real PAOS/SOAP exchanges with the mock SP and IdP.
@Suite struct ProtocolCheckTestsECP {
    /// What a client did at each ECP step.
    struct Steps {
        var advertise = true
        var forwardWholeEnvelope = false
        var contentType = SOAPBinding.contentType
        var basic = true
        var returnRelayState = true
        /// Post the Response even when the URLs differ (the bug).
        var ignoreMismatch = false
    }

    /// Runs an ECP login through the suite as a client doing `steps`; returns the IdP's and
    /// the SP's ACS URLs.
    @discardableResult
    func login(_ suite: MockSuite, _ browser: TestBrowser, _ steps: Steps = Steps()) async throws -> (acs: String, consumer: String) {
        let info = suite.readyInfo()
        let headers = steps.advertise ? [("Accept", PAOSHTTP.accept), (PAOSHTTP.paosHeaderName, PAOSHTTP.paosHeader)] : []
        let page = try await browser.get(info.sp.secure, headers: headers)
        guard steps.advertise else { return ("", "") }
        let paos = try PAOSRequest.parse(Array(page.body.utf8))
        let body = steps.forwardWholeEnvelope ? page.body : SOAPBinding.envelope(body: paos.authnRequest)
        var idpHeaders = [("Content-Type", steps.contentType)]
        if steps.basic { idpHeaders.append(("Authorization", ProtocolCheckRun.basic(SuiteFixture.user(suite)))) }
        let answer = try await browser.send("POST", info.idp.ecp, headers: idpHeaders, body: Array(body.utf8))
        guard answer.status == 200 else { return ("", paos.responseConsumerURL) }
        let ecp = try ECPResponse.parse(Array(answer.body.utf8))
        if !ecp.matches(paos) && !steps.ignoreMismatch {
            let fault = SOAPFault(code: .server, string: "AssertionConsumerServiceURL does not match responseConsumerURL").envelope()
            _ = try await browser.send("POST", paos.responseConsumerURL, headers: [("Content-Type", PAOSHTTP.contentType)],
                                       body: Array(fault.utf8))
            return (ecp.assertionConsumerServiceURL, paos.responseConsumerURL)
        }
        var blocks: [String] = []
        if steps.returnRelayState, let relayState = paos.relayState {
            var relay = XMLWriter()
            relay.element("ecp:RelayState", ["xmlns:ecp": SAMLNamespace.ecp, "SOAP-ENV:mustUnderstand": "1",
                                             "SOAP-ENV:actor": SOAPBinding.nextActor], text: relayState)
            blocks.append(relay.output)
        }
        let destination = steps.ignoreMismatch ? ecp.assertionConsumerServiceURL : paos.responseConsumerURL
        _ = try await browser.send("POST", destination, headers: [("Content-Type", PAOSHTTP.contentType)],
                                   body: Array(SOAPBinding.envelope(body: ecp.response, headerBlocks: blocks).utf8))
        return (ecp.assertionConsumerServiceURL, paos.responseConsumerURL)
    }

    func evaluate(_ check: String, _ suite: MockSuite, status: Int32 = 0) throws -> CheckOutcome {
        try ProtocolCheckRun.evaluate(check, .ecp, suite, status: status)
    }

    // MARK: - ecp.paos-headers

    @Test func advertisedECPPasses() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser)
            let outcome = try evaluate("ecp.paos-headers", suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [0])
        }
    }

    @Test func missingPAOSHeadersFail() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser, Steps(advertise: false))
            let outcome = try evaluate("ecp.paos-headers", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [0])
            #expect(outcome.evidenceText.contains("PAOS: (none)"))
        }
    }

    @Test func noSPRequestIsNotApplicable() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, _ in
            let outcome = try evaluate("ecp.paos-headers", suite)
            #expect(outcome.isNotApplicable)
        }
    }

    // MARK: - ecp.consumer-url-matched

    @Test func matchingURLsWithTheResponsePostedThere() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser)
            let outcome = try evaluate("ecp.consumer-url-matched", suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [0, 1])
        }
    }

    @Test func mismatchStoppingTheClientPasses() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.acsOther]) { suite, browser in
            let urls = try await login(suite, browser)
            #expect(urls.acs != urls.consumer)
            let outcome = try evaluate("ecp.consumer-url-matched", suite, status: 1)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.reason.contains("SOAP fault (#2)"))
        }
    }

    @Test func mismatchIgnoredFailsNamingBothURLs() async throws {
        try await SuiteFixture.with("shibboleth-basic", knobs: [.acsOther]) { suite, browser in
            let urls = try await login(suite, browser, Steps(ignoreMismatch: true))
            let outcome = try evaluate("ecp.consumer-url-matched", suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [0, 1, 2])
            #expect(outcome.evidenceText.contains(urls.acs) && outcome.evidenceText.contains(urls.consumer))
        }
    }

    @Test func idpWithoutECPResponseIsNotApplicable() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser, Steps(basic: false))
            #expect(try evaluate("ecp.consumer-url-matched", suite, status: 1).isNotApplicable)
        }
    }

    // MARK: - ecp.header-blocks-handled

    @Test func headerBlocksHandledPasses() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser)
            let outcome = try evaluate("ecp.header-blocks-handled", suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [1, 2])
        }
    }

    @Test func spHeaderBlocksForwardedToTheIdPFail() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser, Steps(forwardWholeEnvelope: true))
            let outcome = try evaluate("ecp.header-blocks-handled", suite)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges.first == 1)
            #expect(outcome.evidenceText.contains("paos:Request, ecp:Request"))
        }
    }

    @Test func relayStateNotReturnedFails() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser, Steps(returnRelayState: false))
            let outcome = try evaluate("ecp.header-blocks-handled", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [2])
            #expect(outcome.evidenceText.contains("no ecp:RelayState returned"))
        }
    }

    // MARK: - ecp.soap-to-idp

    @Test func soapWithBasicToTheIdPPasses() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser)
            let outcome = try evaluate("ecp.soap-to-idp", suite)
            #expect(outcome.passed, "\(outcome)")
            #expect(outcome.citedExchanges == [1])
        }
    }

    @Test func wrongContentTypeAndNoBasicFail() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser, Steps(contentType: PAOSHTTP.contentType, basic: false))
            let outcome = try evaluate("ecp.soap-to-idp", suite, status: 1)
            #expect(outcome.failed, "\(outcome)")
            #expect(outcome.citedExchanges == [1, 1])
            #expect(outcome.evidenceText.contains("not text/xml") && outcome.evidenceText.contains("HTTP Basic"))
        }
    }

    @Test func noPAOSRequestIsNotApplicableForSOAP() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            try await login(suite, browser, Steps(advertise: false))
            #expect(try evaluate("ecp.soap-to-idp", suite).isNotApplicable)
        }
    }
}
