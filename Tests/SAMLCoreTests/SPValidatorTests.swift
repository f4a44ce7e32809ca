import Foundation
import Testing
@testable import SAMLCore

/// Builds responses with the factory at a frozen instant and validates them at chosen times.
struct ValidatorFixture {
    static let idp = "https://idp.example.org/idp/shibboleth"
    static let sp = "https://sp.example.org/shibboleth"
    static let acs = "https://sp.example.org/Shibboleth.sso/SAML2/POST"
    static let issued = Date(timeIntervalSince1970: 1_900_000_000)  // 2030-03-17T17:46:40Z
    static let clock = FixedClock(issued)

    let idpKey: PrivateKey
    let idpCert: Certificate

    init() throws {
        idpKey = try TestKeys.key("idp")
        idpCert = try TestKeys.cert("idp")
    }

    func factory(_ mode: SignedResponseFactory.SigningMode = .both, key: PrivateKey? = nil, cert: Certificate? = nil,
                 algorithm: SignatureAlgorithm? = nil, encryptTo: Certificate? = nil) -> SignedResponseFactory {
        SignedResponseFactory(idpEntityID: Self.idp,
                              signer: XMLSigner(key: key ?? idpKey, certificate: cert ?? idpCert, algorithm: algorithm),
                              signingMode: mode, encryptor: encryptTo.map { XMLEncryptor(recipientCertificate: $0) })
    }

    func login(nameID: String = "alice@example.org", inResponseTo: String? = "_req1", status: Status = .success) -> SignedResponseFactory.Login {
        .init(nameID: NameID(nameID, format: NameIDFormat.emailAddress), spEntityID: Self.sp, acsURL: Self.acs,
              inResponseTo: inResponseTo, attributes: [Attribute(name: "urn:oid:0.9.2342.19200300.100.1.3", friendlyName: "mail", strings: [nameID])],
              status: status)
    }

    func response(_ mode: SignedResponseFactory.SigningMode = .both, nameID: String = "alice@example.org",
                  inResponseTo: String? = "_req1", seed: UInt64 = 7) throws -> String {
        try factory(mode).response(for: login(nameID: nameID, inResponseTo: inResponseTo), clock: Self.clock, ids: SeededIDGenerator(seed: seed))
    }

    func validator(at offset: TimeInterval = 10, requestID: String? = "_req1", skew: TimeInterval = 180,
                   requirement: SPValidator.SignatureRequirement = .responseOrAssertion, allowSHA1: Bool = false,
                   decryptionKeys: [PrivateKey] = [], replayCache: ReplayCache? = nil,
                   sp: String = sp, acs: String = acs) -> SPValidator {
        SPValidator(configuration: .init(idpEntityID: Self.idp, idpKeys: [idpCert.publicKey], spEntityID: sp, acsURL: acs,
                                         requestID: requestID, clock: FixedClock(Self.issued.addingTimeInterval(offset)),
                                         skew: skew, allowSHA1: allowSHA1, signatureRequirement: requirement,
                                         decryptionKeys: decryptionKeys, replayCache: replayCache))
    }

    func code(_ xml: String, _ validator: SPValidator) -> String {
        switch validator.validate(Array(xml.utf8)) {
        case .success: "valid"
        case .failure(let f): f.code.rawValue
        }
    }
}

@Suite struct SPValidatorTests {
    let f: ValidatorFixture
    init() throws { f = try ValidatorFixture() }

    @Test(arguments: SignedResponseFactory.SigningMode.allCases.filter { $0 != .none })
    func validResponsesAreAccepted(mode: SignedResponseFactory.SigningMode) throws {
        let result = try f.validator().validateThrowing(Array(try f.response(mode).utf8))
        #expect(result.nameID.value == "alice@example.org")
        #expect(result.signedBy.rawValue == mode.rawValue)
        #expect(result.attributes.first?.stringValues == ["alice@example.org"])
        #expect(result.signatureAlgorithm == .rsaSha256)
    }

    @Test func encryptedAssertionIsDecryptedAndAccepted() throws {
        let xml = try f.factory(.both, encryptTo: try TestKeys.cert("sp"))
            .response(for: f.login(), clock: ValidatorFixture.clock, ids: SeededIDGenerator(seed: 1))
        #expect(!xml.contains("alice@example.org"))
        #expect(f.code(xml, f.validator()) == "encryption.no-key")
        let result = try f.validator(decryptionKeys: [try TestKeys.key("sp")]).validateThrowing(Array(xml.utf8))
        #expect(result.wasEncrypted)
        #expect(result.nameID.value == "alice@example.org")
        #expect(f.code(xml, f.validator(decryptionKeys: [try TestKeys.key("attacker")])) == "encryption.decryption-failed")
    }

    @Test func unsignedResponseIsRefused() throws {
        #expect(f.code(try f.response(.none), f.validator()) == "signature.missing")
    }

    @Test func signatureRequirementsAreEnforced() throws {
        #expect(f.code(try f.response(.response), f.validator(requirement: .assertion)) == "signature.missing")
        #expect(f.code(try f.response(.assertion), f.validator(requirement: .response)) == "signature.missing")
        #expect(f.code(try f.response(.assertion), f.validator(requirement: .both)) == "signature.missing")
        #expect(f.code(try f.response(.both), f.validator(requirement: .both)) == "valid")
    }

    @Test func signedByAnotherKeyWithItsCertificateInKeyInfo() throws {
        let xml = try f.factory(.both, key: try TestKeys.key("attacker"), cert: try TestKeys.cert("attacker"))
            .response(for: f.login(), clock: ValidatorFixture.clock, ids: SeededIDGenerator(seed: 7))
        #expect(f.code(xml, f.validator()) == "signature.untrusted-key")
    }

    @Test func sha1IsRefusedUnlessAllowed() throws {
        let xml = try f.factory(.both, algorithm: .rsaSha1).response(for: f.login(), clock: ValidatorFixture.clock, ids: SeededIDGenerator(seed: 7))
        #expect(f.code(xml, f.validator()) == "signature.forbidden-algorithm")
        #expect(f.code(xml, f.validator(allowSHA1: true)) == "valid")
    }

    @Test(arguments: SignatureWrapping.allCases)
    func signatureWrappingIsRefused(variant: SignatureWrapping) throws {
        let signed = try f.response(variant.needsSignedResponse ? .response : .assertion)
        let attacked = try variant.apply(to: signed, evilNameID: "admin@example.org")
        #expect(attacked.contains("admin@example.org"))
        let code = f.code(attacked, f.validator())
        #expect(code == "signature.wrapping", "\(variant.rawValue): \(code)")
    }

    @Test func signatureWrappingShapesFoolANaiveConsumer() async throws {
        // Proof that the shapes are real attacks: xmlsec1, asked to verify the one signature
        // in the document wherever it points, says OK — and a consumer reading
        // /Response/Assertion[1]/Subject/NameID gets the attacker's name.
        let xmlsec1 = try #require(ExternalTool.which("xmlsec1"), "xmlsec1 CLI missing: apt-get install xmlsec1")
        for variant in SignatureWrapping.allCases {
            let attacked = try variant.apply(to: try f.response(variant.needsSignedResponse ? .response : .assertion))
            let file = try ExternalTool.temporaryFile(attacked)
            defer { try? FileManager.default.removeItem(at: file) }
            let outcome = try await ExternalTool.run(xmlsec1, [
                "--verify", "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion",
                "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:Response",
                "--insecure", "--pubkey-cert-pem", TestKeys.url("idp-cert.pem").path, file.path])
            // Shapes that put the original inside ds:Signature (XSW1, XSW6, XSW8) fool verifiers
            // that implement the enveloped transform as "drop my Signature child"; libxmlsec1
            // drops the whole Signature subtree (so the digest fails) or refuses the element
            // outright. The others fool any verifier that does not check what it references.
            let immuneInLibxmlsec = [SignatureWrapping.xsw1, .xsw6, .xsw8].contains(variant)
            #expect(immuneInLibxmlsec ? outcome.status != 0 : outcome.status == 0, "\(variant.rawValue): the kept signature should still verify naively: \(outcome.stderr)")
            let doc = try XMLDocument(parsing: attacked)
            let read = doc.root.firstChild("Assertion", SAMLNamespace.assertion)?
                .firstChild("Subject", SAMLNamespace.assertion)?.firstChild("NameID", SAMLNamespace.assertion)?.text
            #expect(read == "admin@example.org", "\(variant.rawValue)")
        }
    }

    @Test func commentInNameIDIsReadWhole() throws {
        // CVE-2017-11427 family: the IdP signs "admin@evil.com<!---->.example.org" legitimately
        // (a user registered that address); a vulnerable SP reads only "admin@evil.com".
        let signed = try f.response(nameID: "admin@evil.com.example.org")
        let withComment = signed.replacingOccurrences(of: ">admin@evil.com.example.org<", with: ">admin@evil.com<!---->.example.org<")
        let result = try f.validator().validateThrowing(Array(withComment.utf8))
        #expect(result.nameID.value == "admin@evil.com.example.org")
    }

    @Test func tamperedContentIsInvalid() throws {
        let signed = try f.response(.both)
        let tampered = signed.replacingOccurrences(of: ">alice@example.org<", with: ">admin@example.org<")
        #expect(f.code(tampered, f.validator()) == "signature.invalid")
    }

    @Test func everyChangeToASignedElementIsRejected() throws {
        let signed = try f.response(.assertion)
        let doc = try XMLDocument(parsing: signed)
        let assertion = doc.root.firstChild("Assertion", SAMLNamespace.assertion)!
        var count = 0
        assertion.walk { element in
            guard element.namespaceURI != SAMLNamespace.dsig else { return }
            for attr in element.attributes {
                let changed = signed.replacingOccurrences(of: "\(attr.name)=\"\(attr.value)\"", with: "\(attr.name)=\"\(attr.value)1\"")
                let code = f.code(changed, f.validator())
                #expect(code == "signature.invalid" || code == "signature.wrong-reference", "\(element.localName)@\(attr.name): \(code)")
                count += 1
            }
        }
        #expect(count > 15)
    }

    @Test func timeChecksWithSkew() throws {
        let xml = try f.response()
        // Lifetime 300 s; skew 180 s.
        #expect(f.code(xml, f.validator(at: 479)) == "valid")
        #expect(f.code(xml, f.validator(at: 481)) == "subject-confirmation.expired")
        #expect(f.code(xml, f.validator(at: 481, skew: 0)) == "subject-confirmation.expired")
        #expect(f.code(xml, f.validator(at: 200, skew: 0)) == "valid")
        #expect(f.code(xml, f.validator(at: -179)) == "valid")
        #expect(f.code(xml, f.validator(at: -181)) == "conditions.not-yet-valid")
    }

    @Test func audienceRecipientDestinationIssuer() throws {
        let xml = try f.response()
        #expect(f.code(xml, f.validator(sp: "https://other-sp.example.org/shibboleth")) == "audience.mismatch")
        #expect(f.code(xml, f.validator(acs: "https://sp.example.org/Shibboleth.sso/SAML2/POST/")) == "destination.mismatch")
        let assertionOnly = try f.response(.assertion)
        #expect(f.code(assertionOnly, f.validator(acs: "https://sp.example.org/other")) == "destination.mismatch")
        let noDestination = assertionOnly.replacingOccurrences(of: " Destination=\"\(ValidatorFixture.acs)\"", with: "")
        #expect(f.code(noDestination, f.validator(acs: "https://sp.example.org/other")) == "recipient.mismatch")
        let validator = SPValidator(configuration: .init(idpEntityID: "https://other-idp.example.org", idpKeys: [f.idpCert.publicKey],
                                                         spEntityID: ValidatorFixture.sp, acsURL: ValidatorFixture.acs, requestID: "_req1",
                                                         clock: ValidatorFixture.clock))
        #expect(f.code(xml, validator) == "issuer.mismatch")
    }

    @Test func inResponseToSolicitedAndUnsolicited() throws {
        #expect(f.code(try f.response(), f.validator(requestID: "_other")) == "in-response-to.mismatch")
        let unsolicited = try f.response(inResponseTo: nil)
        #expect(f.code(unsolicited, f.validator(requestID: nil)) == "valid")
        #expect(f.code(unsolicited, f.validator(requestID: "_req1")) == "in-response-to.missing")
        // Unsolicited with a forged InResponseTo.
        #expect(f.code(try f.response(), f.validator(requestID: nil)) == "in-response-to.unexpected")
    }

    @Test func replayedAssertionIsRefused() throws {
        let cache = ReplayCache()
        let xml = try f.response()
        #expect(f.code(xml, f.validator(replayCache: cache)) == "valid")
        #expect(f.code(xml, f.validator(at: 20, replayCache: cache)) == "assertion.replayed")
        #expect(f.code(try f.response(seed: 8), f.validator(replayCache: cache)) == "valid")
    }

    @Test func nonSuccessStatusNamesTheNestedCode() throws {
        let status = Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.authnFailed]), message: "bad password")
        let xml = try f.factory(.response).response(for: f.login(status: status), clock: ValidatorFixture.clock, ids: SeededIDGenerator(seed: 3))
        let failure = try #require(f.validator().validate(Array(xml.utf8)).failure)
        #expect(failure.code == .statusNotSuccess)
        #expect(failure.explanation.contains("AuthnFailed"))
        #expect(failure.explanation.contains("bad password"))
    }

    @Test func twoAssertionsAreRefused() throws {
        let signed = try f.response(.response)
        let doc = try XMLDocument(parsing: signed)
        let assertion = String(decoding: doc.root.firstChild("Assertion", SAMLNamespace.assertion)!.serialized(), as: UTF8.self)
        let doubled = signed.replacingOccurrences(of: assertion, with: assertion + assertion.replacingOccurrences(of: "ID=\"", with: "ID=\"x"))
        let code = f.code(doubled, f.validator())
        #expect(code == "signature.invalid" || code == "assertion.multiple")
        // Unsigned doubled response: the count rule speaks.
        let unsignedDoubled = try f.response(.none)
        let d2 = try XMLDocument(parsing: unsignedDoubled)
        let a2 = String(decoding: d2.root.firstChild("Assertion", SAMLNamespace.assertion)!.serialized(), as: UTF8.self)
        #expect(f.code(unsignedDoubled.replacingOccurrences(of: a2, with: a2 + a2.replacingOccurrences(of: "ID=\"", with: "ID=\"x")), f.validator()) == "assertion.multiple")
    }

    @Test func hostileXMLIsRefusedAsXML() throws {
        #expect(f.code(#"<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>"#, f.validator()) == "xml.refused")
        #expect(f.code("<samlp:Response xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\"", f.validator()) == "xml.refused")
        #expect(f.code("<x/>", f.validator()) == "response.malformed")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let f) = self { return f }
        return nil
    }
}

@Suite struct EncodingEdgeCaseResponseTests {
    @Test(arguments: [EncodingEdgeCases.Padding.one, .two])
    func signedResponseWithPlusSlashAndPadding(padding: EncodingEdgeCases.Padding) throws {
        let f = try ValidatorFixture()
        let result = try EncodingEdgeCaseResponse.make(factory: f.factory(.both), login: f.login(), padding: padding,
                                                       clock: ValidatorFixture.clock, seed: 42)
        #expect(result.base64.contains("+"))
        #expect(result.base64.contains("/"))
        #expect(result.base64.hasSuffix(padding == .one ? "=" : "=="))
        #expect(!result.base64.hasSuffix(padding == .one ? "==" : "==="))
        #expect(Data(base64Encoded: result.base64).map { String(decoding: $0, as: UTF8.self) } == result.xml)
        // Deterministic, and a valid signed response.
        let again = try EncodingEdgeCaseResponse.make(factory: f.factory(.both), login: f.login(), padding: padding,
                                                      clock: ValidatorFixture.clock, seed: 42)
        #expect(again.base64 == result.base64)
        #expect(f.code(result.xml, f.validator()) == "valid")
        // What the diagnoser says when a client posts it without percent-encoding.
        let damaged = result.base64.replacingOccurrences(of: "+", with: " ")
        let diagnosis = EncodingDiagnoser.diagnose(damaged, binding: .post, expected: result.base64)
        #expect(diagnosis.codes.contains("encoding.plus-as-space"))
    }
}

