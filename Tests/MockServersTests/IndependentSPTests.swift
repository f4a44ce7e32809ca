import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// python3-saml (OneLogin's SP toolkit), an SP implementation independent of SAMLCore, judges
/// the mock IdP's Responses: it accepts the default one, and refuses each knob's broken one
/// with an error that names the damage — or, where python3-saml has no such rule, accepts it,
/// which the table below records (those are findings about python3-saml, not about the mock).
@Suite(.serialized, .enabled(if: ClientProcess.interopAvailable, "run scripts/setup-interop.sh first"))
struct IndependentSPTests {
    /// What python3-saml 1.16 says about each knob: a substring of its error, or `valid:`.
    static let expectations: [(Knob, String)] = [
        (.responseUnsigned, "No Signature found"),
        (.assertionUnsigned, "The Assertion of the Response is not signed and the SP require it"),
        (.wrongSigningKey, "Signature validation failed"),
        (.expiredCertificate, "valid:"),  // python3-saml does not check certificate validity dates
        (.rsaSHA1, "Deprecated signature algorithm found"),
        (.wrongIssuer, "Invalid issuer in the Assertion/Response"),
        (.wrongAudience, "is not a valid audience for this Response"),
        (.wrongDestination, "The response was received at"),
        (.wrongRecipient, "A valid SubjectConfirmation was not found on this Response"),
        (.inResponseToMissing, "valid:"),  // python3-saml does not require InResponseTo
        (.inResponseToWrong, "does not match the ID of the AuthNRequest sent by the SP"),
        (.expired, "Could not validate timestamp: expired"),
        (.notYetValid, "Could not validate timestamp: not yet valid"),
        (.clockSkew(900), "Could not validate timestamp: not yet valid"),
        (.status(.responder, message: "Database unavailable"), "The status code of the Response was not Success"),
        (.encryptWrongKey, "invalid:"),
        // python3-saml compares Destination and Recipient with the URL it was received at by
        // prefix (`startswith`): …/SAML2/POST-SimpleSign passes for …/SAML2/POST.
        (.acsOther, "valid:"),
        (.secondAssertion, "SAML Response must contain 1 assertion"),
        (.nameIDComment, "valid: nameid=alice@example.org "),
        (.attributeMissing("mail"), "valid:"),
        (.nameIDFormat(NameIDFormat.emailAddress), "valid:"),
        (.base64Wrapped(64), "valid:"),
    ]

    /// Logs in through the Basic profile and returns the IdP's SAMLResponse value with the
    /// request ID the SP sent.
    static func capture(_ suite: MockSuite, _ browser: TestBrowser) async throws -> (response: String, requestID: String) {
        let user = SuiteFixture.user(suite)
        let start = try await browser.get(suite.readyInfo().sp.secure)
        let requestID = try #require(suite.log.entries.last?.annotations["sp.request-id"])
        let answer = try await browser.get(start.location!, headers: [
            ("Authorization", BasicCredentials(username: user.username, password: user.password).headerValue),
        ])
        return (try #require(answer.forms.first?.value("SAMLResponse")), requestID)
    }

    static func python3SAML(_ suite: MockSuite, response: String, requestID: String, knob: Knob?) async throws -> String {
        let info = suite.readyInfo()
        let keys = SuiteFixture.mockIdP.appendingPathComponent("keys")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-\(UUID().uuidString).b64")
        try response.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        var arguments = [ClientProcess.script("pysaml_validate_response.py"),
                         "--idp-cert", keys.appendingPathComponent("idp-cert.pem").path,
                         "--idp-entity-id", info.idp.entityID, "--sp-entity-id", info.sp.entityID,
                         "--acs-url", info.sp.acs, "--request-id", requestID,
                         "--sp-key", keys.appendingPathComponent("sp-key.pem").path,
                         "--sp-cert", keys.appendingPathComponent("sp-cert.pem").path,
                         "--reject-deprecated-algorithm"]
        if knob == .assertionUnsigned { arguments.append("--want-assertions-signed") }
        arguments.append(file.path)
        let outcome = try await ClientProcess.run(ClientProcess.venvPython, arguments)
        #expect(outcome.status == 0 || outcome.status == 1, "python3-saml could not run: \(outcome.stderr)")
        return outcome.stdout
    }

    @Test func python3SAMLAcceptsTheDefaultResponse() async throws {
        try await SuiteFixture.with("shibboleth-basic") { suite, browser in
            let (response, requestID) = try await Self.capture(suite, browser)
            let verdict = try await Self.python3SAML(suite, response: response, requestID: requestID, knob: nil)
            #expect(verdict.hasPrefix("valid: nameid=alice@example.org "), "\(verdict)")
            #expect(verdict.contains("urn:oid:0.9.2342.19200300.100.1.3"), "the mail attribute is released")
        }
    }

    @Test(arguments: IndependentSPTests.expectations.map(\.0))
    func python3SAMLJudgesEachKnob(_ knob: Knob) async throws {
        let expected = try #require(Self.expectations.first { $0.0 == knob }?.1)
        let modify: (inout IdPProfile) -> Void = { if knob == .assertionUnsigned { $0.idp.sign = "both" } }
        try await SuiteFixture.with("shibboleth-basic", knobs: [knob], modify: modify) { suite, browser in
            let (response, requestID) = try await Self.capture(suite, browser)
            let verdict = try await Self.python3SAML(suite, response: response, requestID: requestID, knob: knob)
            #expect(verdict.contains(expected), "\(knob.text): python3-saml said \(verdict)")
            if !expected.hasPrefix("valid:") { #expect(verdict.hasPrefix("invalid: "), "\(knob.text)") }
        }
    }
}
