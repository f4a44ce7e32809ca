import Foundation
import Testing
@testable import SAMLCore

/// Interop both ways with python3-saml (OneLogin), an independent SAML implementation on its
/// own libxml2/libxmlsec1 build. The venv comes from scripts/setup-interop.sh, which the
/// README's test command runs; under CI the tests run unconditionally.
enum InteropEnvironment {
    static var venvPython: String {
        let venv = ProcessInfo.processInfo.environment["SAMLH_INTEROP_VENV"].map {
            $0.hasPrefix("/") ? $0 : TestKeys.repositoryRoot.appendingPathComponent($0).path
        } ?? TestKeys.repositoryRoot.appendingPathComponent(".venv-interop").path
        return venv + "/bin/python"
    }

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: venvPython) || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static func script(_ name: String) -> String {
        TestKeys.repositoryRoot.appendingPathComponent("Tests/Interop/\(name)").path
    }
}

@Suite(.enabled(if: InteropEnvironment.available, "run scripts/setup-interop.sh first (python3-saml venv)"))
struct InteropTests {
    static var venvPython: String { InteropEnvironment.venvPython }
    static func script(_ name: String) -> String { InteropEnvironment.script(name) }

    let idpEntity = "https://idp.example.org/idp/shibboleth"
    let spEntity = "https://sp.example.org/shibboleth"
    let acs = "https://sp.example.org/Shibboleth.sso/SAML2/POST"

    func pythonValidates(_ xml: String, encrypted: Bool = false) async throws -> ExternalTool.Outcome {
        let file = try ExternalTool.temporaryFile(xml)
        defer { try? FileManager.default.removeItem(at: file) }
        var args = [Self.script("pysaml_validate_response.py"),
                    "--idp-cert", TestKeys.url("idp-cert.pem").path,
                    "--idp-entity-id", idpEntity, "--sp-entity-id", spEntity, "--acs-url", acs,
                    "--request-id", "_req1", "--want-assertions-signed"]
        if encrypted {
            args += ["--sp-key", TestKeys.url("sp-key.pem").path, "--sp-cert", TestKeys.url("sp-cert.pem").path,
                     "--want-assertions-encrypted"]
        }
        return try await ExternalTool.run(Self.venvPython, args + [file.path])
    }

    @Test func python3SamlAcceptsOurSignedResponse() async throws {
        let signer = XMLSigner(key: try TestKeys.key("idp"), certificate: try TestKeys.cert("idp"))
        let signed = try signer.sign(xml: SampleMessages.response(now: Date()),
                                     elementIDs: [SampleMessages.assertionID, SampleMessages.responseID])
        let outcome = try await pythonValidates(signed)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix("valid: nameid=alice@example.org"))
        // And the same bytes with one character changed are refused by it.
        let tampered = try await pythonValidates(signed.replacingOccurrences(of: "alice@example.org", with: "alicf@example.org"))
        #expect(tampered.status == 1)
        #expect(tampered.stdout.hasPrefix("invalid:"))
    }

    @Test(arguments: DataEncryptionAlgorithm.allCases)
    func python3SamlDecryptsOurEncryptedAssertion(algorithm: DataEncryptionAlgorithm) async throws {
        let signer = XMLSigner(key: try TestKeys.key("idp"), certificate: try TestKeys.cert("idp"))
        let doc = try XMLDocument(parsing: SampleMessages.response(now: Date()))
        try signer.sign(elementWithID: SampleMessages.assertionID, in: doc)
        let assertion = doc.root.firstChild("Assertion", SAMLNamespace.assertion)!
        try XMLEncryptor(recipientCertificate: try TestKeys.cert("sp"), dataAlgorithm: algorithm).encrypt(assertion)
        try signer.sign(elementWithID: SampleMessages.responseID, in: doc)
        let xml = doc.serializedString()
        #expect(xml.contains("EncryptedAssertion"))
        #expect(!xml.contains("alice@example.org"))
        let outcome = try await pythonValidates(xml, encrypted: true)
        #expect(outcome.status == 0, "\(algorithm.shortName): \(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix("valid: nameid=alice@example.org"))
    }

    func pythonSigned(sign: String = "both", extra: [String] = []) async throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-py-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: out) }
        let outcome = try await ExternalTool.run(Self.venvPython, [
            Self.script("pysaml_sign_response.py"),
            "--key", TestKeys.url("idp-key.pem").path, "--cert", TestKeys.url("idp-cert.pem").path,
            "--issuer", idpEntity, "--audience", spEntity, "--recipient", acs, "--in-response-to", "_req9",
            "--nameid", "bob@example.org", "--attr", "mail=bob@example.org", "--sign", sign,
            "--not-before", "now-60", "--not-on-or-after", "now+300", "--issue-instant", "now",
            "--out", out.path,
        ] + extra)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try String(contentsOf: out, encoding: .utf8)
    }

    @Test func weVerifyPython3SamlSignatures() async throws {
        let xml = try await pythonSigned()
        let doc = try XMLDocument(parsing: xml)
        let verifier = XMLSignatureVerifier(trustedCertificates: [try TestKeys.cert("idp")])
        #expect(try verifier.verify(doc.root).algorithm == .rsaSha256)
        let assertion = try #require(doc.root.firstChild("Assertion", SAMLNamespace.assertion))
        _ = try verifier.verify(assertion)
        #expect(assertion.descendants("NameID", SAMLNamespace.assertion).first?.text == "bob@example.org")
        // Their signature checked against another trusted key fails.
        let other = XMLSignatureVerifier(trustedCertificates: [try TestKeys.cert("attacker")])
        #expect(throws: SignatureError.self) { try other.verify(doc.root) }
    }

    @Test(arguments: ["aes128-cbc", "aes256-cbc", "aes128-gcm", "aes256-gcm"])
    func weDecryptPython3SamlEncryptedAssertions(algorithm: String) async throws {
        let xml = try await pythonSigned(sign: "assertion", extra: ["--encrypt-cert", TestKeys.url("sp-cert.pem").path,
                                                              "--data-alg", algorithm])
        let doc = try XMLDocument(parsing: xml)
        let wrapper = try #require(doc.root.firstChild("EncryptedAssertion", SAMLNamespace.assertion))
        let assertion = try XMLDecryptor(keys: [try TestKeys.key("sp")]).decrypt(wrapper)
        #expect(assertion.localName == "Assertion")
        _ = try XMLSignatureVerifier(trustedCertificates: [try TestKeys.cert("idp")]).verify(assertion)
        #expect(assertion.descendants("NameID", SAMLNamespace.assertion).first?.text == "bob@example.org")
    }

    @Test func python3SamlResponsePassesVerifyResponse() async throws {
        let xml = try await pythonSigned()
        let file = try ExternalTool.temporaryFile(xml)
        defer { try? FileManager.default.removeItem(at: file) }
        let out = try await CLI.run(["verify-response", file.path, "--idp-cert", TestKeys.url("idp-cert.pem").path,
                               "--idp-entity-id", idpEntity, "--sp-entity-id", spEntity, "--acs-url", acs,
                               "--request-id", "_req9"])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.hasPrefix("valid: nameid=bob@example.org attributes={\"mail\":[\"bob@example.org\"]}"))
        // Signed by python3-saml with another key: refused with the right code.
        let forged = try await pythonSigned(extra: []).replacingOccurrences(of: ">bob@example.org<", with: ">root@example.org<")
        let forgedFile = try ExternalTool.temporaryFile(forged)
        defer { try? FileManager.default.removeItem(at: forgedFile) }
        let bad = try await CLI.run(["verify-response", forgedFile.path, "--idp-cert", TestKeys.url("idp-cert.pem").path,
                               "--idp-entity-id", idpEntity, "--sp-entity-id", spEntity, "--acs-url", acs, "--request-id", "_req9"])
        #expect(bad.status == 1)
        #expect(bad.stdout.hasPrefix("invalid: signature.invalid"))
    }
}
