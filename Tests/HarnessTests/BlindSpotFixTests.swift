import Foundation
import MockServers
import Testing
@testable import Harness

/// The blind passes the audit found (docs/checks.md), each now a fail or a not-applicable with
/// its reason: judged on traffic written out here, exchange by exchange.
@Suite struct BlindSpotFixTests {
    static let origin = "http://127.0.0.1:9000"

    static func entry(_ sequence: Int, _ mock: String, _ method: String, _ target: String, body: String = "",
                      headers: [(name: String, value: String)] = [], status: Int = 200,
                      annotations: [String: String] = [:]) -> TrafficEntry {
        let request = MockRequest(method: method, target: target, headers: [("Host", "127.0.0.1:9000")] + headers,
                                  body: Array(body.utf8), origin: origin)
        var response = MockResponse(status: status)
        response.annotations = annotations
        return TrafficEntry(sequence: sequence, mock: mock, run: nil, request: request, started: Date(timeIntervalSince1970: Double(sequence)),
                            receiveDuration: 0, waitDuration: 0, response: response)
    }

    static func evaluate(_ check: String, _ flow: Flow, _ entries: [TrafficEntry], claims success: Bool = true,
                         parameters: [String: String] = [:]) throws -> CheckOutcome {
        let scenario = CheckTestSupport.scenario(flow, check: check)
        var target = ScenarioTarget.resolve(scenario, ready: nil)
        target.start = origin + "/start"
        target.parameters.merge(parameters) { $1 }
        let execution = ClientExecution(status: success ? 0 : 1, timedOut: false,
                                        report: ClientReport(outcome: success ? "success" : "failure"), seconds: 1)
        let context = CheckContext(scenario: scenario, target: target, entries: entries, execution: execution,
                                   truth: Truth.from(entries), params: [:])
        let implementation = try #require(CheckRegistry.implementations[check])
        return implementation.evaluate(context)
    }

    @Test func aTicketPresentedAtTwoValidationPathsIsADuplicate() throws {
        let outcome = try Self.evaluate("flow.no-duplicate-post", .casREST, [
            Self.entry(0, "cas", "GET", "/cas/serviceValidate?ticket=ST-1-abcdef&service=x"),
            Self.entry(1, "cas", "GET", "/cas/p3/serviceValidate?ticket=ST-1-abcdef&service=x"),
        ])
        #expect(outcome.failed && outcome.reason.contains("ST-1-abcdef"), "\(outcome.reason)")
        let samlValidate = try Self.evaluate("flow.no-duplicate-post", .casREST, [
            Self.entry(0, "cas", "GET", "/cas/serviceValidate?ticket=ST-2-abcdef&service=x"),
            Self.entry(1, "cas", "POST", "/cas/samlValidate?TARGET=x",
                       body: "<SOAP-ENV:Envelope><SOAP-ENV:Body><samlp:Request><samlp:AssertionArtifact>ST-2-abcdef</samlp:AssertionArtifact></samlp:Request></SOAP-ENV:Body></SOAP-ENV:Envelope>"),
        ])
        #expect(samlValidate.failed, "\(samlValidate.reason)")
    }

    @Test func aRefusedSecondFactorPostIsNoStepForward() throws {
        let page = Self.entry(0, "idp", "GET", "/idp/profile/SAML2/Redirect/SSO?execution=e1s2", annotations: ["idp.page": "second-factor"])
        let refused = Self.entry(1, "idp", "POST", "/idp/profile/SAML2/Redirect/SSO?execution=e1s2", body: "j_tokenNumber=123456",
                                 headers: [("Content-Type", "application/x-www-form-urlencoded")], status: 403)
        let outcome = try Self.evaluate("flow.second-factor-completed", .webSSO, [page, refused])
        #expect(outcome.failed && outcome.reason.contains("403"), "\(outcome.reason)")
    }

    @Test func aSecondLoginWithNoSignOfReuseIsNotAPass() throws {
        let entries = [
            Self.entry(0, "idp", "GET", "/idp/profile/SAML2/Redirect/SSO?SAMLRequest=a"),
            Self.entry(1, "idp", "POST", "/idp/profile/SAML2/Redirect/SSO?execution=e1s1", body: "j_password=x",
                       headers: [("Content-Type", "application/x-www-form-urlencoded")],
                       annotations: ["idp.login": "ok", "idp.session": "new"]).withSetCookie("shib_idp_session=s"),
            Self.entry(2, "idp", "GET", "/idp/profile/SAML2/Redirect/SSO?SAMLRequest=b"),
        ]
        let stopped = try Self.evaluate("flow.idp-session-reused", .webSSO, entries)
        if case .notApplicable(let reason) = stopped { #expect(reason.contains("no IdP answer")) } else { Issue.record("\(stopped)") }
        let reused = try Self.evaluate("flow.idp-session-reused", .webSSO,
                                       entries + [Self.entry(3, "idp", "GET", "/idp/x", annotations: ["idp.session": "reused"])])
        #expect(reused.passed, "\(reused.reason)")
    }

    @Test func aResponseForwardedInSOAP12IsStillForwarded() {
        let body = #"<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1"/></env:Body></env:Envelope>"#
        #expect(ECPTraffic.carriesResponse(Self.entry(0, "sp", "POST", "/Shibboleth.sso/SAML2/ECP", body: body)))
        #expect(!ECPTraffic.carriesResponse(Self.entry(0, "sp", "POST", "/Shibboleth.sso/SAML2/ECP", body: "<env:Envelope/>")))
    }

    @Test func aServiceEncodedTwiceOnCASBrowserFails() throws {
        let service = "http://127.0.0.1:9000/app/"
        let twice = "http%253A%252F%252F127.0.0.1%253A9000%252Fapp%252F"
        let outcome = try Self.evaluate("cas.service-encoded", .casBrowser, [Self.entry(0, "cas", "GET", "/cas/login?service=" + twice)],
                                        parameters: ["CAS_SERVICE": service])
        #expect(outcome.failed && outcome.reason.contains("encoded wrong"), "\(outcome.reason)")
    }

    @Test func onlyQueriesTheClientBuiltAreNotAPass() throws {
        let outcome = try Self.evaluate("encoding.query-percent-encoded", .opdsSAML,
                                        [Self.entry(0, "cm", "GET", "/SAML/saml_authenticate?provider=x&redirect_uri=http://app/cb?a=1&b=2")])
        if case .notApplicable(let reason) = outcome { #expect(reason.contains("built itself")) } else { Issue.record("\(outcome)") }
    }

}

extension TrafficEntry {
    /// A copy whose answer sets `cookie` (RFC 6265 `name=value`).
    func withSetCookie(_ cookie: String) -> TrafficEntry {
        var answer = response ?? MockResponse(status: 200)
        answer.addHeader("Set-Cookie", cookie + "; Path=/")
        return TrafficEntry(sequence: sequence, mock: mock, run: run, request: request, started: started,
                            receiveDuration: receiveDuration, waitDuration: waitDuration, response: answer)
    }
}
