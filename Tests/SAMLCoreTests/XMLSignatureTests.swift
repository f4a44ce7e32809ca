import Foundation
import Testing
@testable import SAMLCore

@Suite struct XMLSignatureTests {
    let idpKey: PrivateKey
    let idpCert: Certificate
    let verifier: XMLSignatureVerifier

    init() throws {
        idpKey = try TestKeys.key("idp")
        idpCert = try TestKeys.cert("idp")
        verifier = XMLSignatureVerifier(trustedCertificates: [idpCert])
    }

    func signedResponse(algorithm: SignatureAlgorithm? = nil, key: PrivateKey? = nil, cert: Certificate? = nil) throws -> String {
        let signer = XMLSigner(key: key ?? idpKey, certificate: cert ?? idpCert, algorithm: algorithm)
        return try signer.sign(xml: SampleMessages.response(),
                               elementIDs: [SampleMessages.assertionID, SampleMessages.responseID])
    }

    func assertion(of doc: XMLDocument) -> XMLElement {
        doc.root.firstChild("Assertion", SAMLNamespace.assertion)!
    }

    @Test func certificatesFromTextAreParsedOnceAndBadTextNamed() throws {
        let text = idpCert.base64DER
        let first = try Certificate.cached(base64DER: text)
        #expect(first.base64DER == text)
        #expect(try Certificate.cached(base64DER: text) === first)
        #expect { try Certificate.cached(base64DER: "not base64 at all!") } throws: { error in
            "\(error)".contains("neither PEM nor base64 DER")
        }
    }

    @Test func signatureFollowsIssuerAndVerifies() throws {
        let doc = try XMLDocument(parsing: try signedResponse())
        #expect(doc.root.children.map(\.localName) == ["Issuer", "Signature", "Status", "Assertion"])
        #expect(assertion(of: doc).children.map(\.localName).prefix(2) == ["Issuer", "Signature"])
        #expect(try verifier.verify(doc.root).referencedID == SampleMessages.responseID)
        #expect(try verifier.verify(assertion(of: doc)).referencedID == SampleMessages.assertionID)
    }

    @Test(arguments: [SignatureAlgorithm.rsaSha256, .rsaSha384, .rsaSha512, .rsaSha1])
    func rsaAlgorithms(algorithm: SignatureAlgorithm) throws {
        let doc = try XMLDocument(parsing: try signedResponse(algorithm: algorithm))
        let lenient = XMLSignatureVerifier(trustedCertificates: [idpCert], allowSHA1: true)
        let result = try lenient.verify(doc.root)
        #expect(result.algorithm == algorithm)
        #expect(result.digest == algorithm.defaultDigest)
        if algorithm.usesSHA1 {
            let error = #expect(throws: SignatureError.self) { try verifier.verify(doc.root) }
            #expect(error?.reason == .forbiddenAlgorithm)
        }
    }

    @Test func ecdsaSha256() throws {
        let key = try TestKeys.key("idp-ec")
        let cert = try TestKeys.cert("idp-ec")
        let doc = try XMLDocument(parsing: try signedResponse(key: key, cert: cert))
        let result = try XMLSignatureVerifier(trustedCertificates: [cert]).verify(doc.root)
        #expect(result.algorithm == .ecdsaSha256)
        #expect(throws: SignatureError.self) { try verifier.verify(doc.root) }
    }

    @Test func xmlsec1CommandLineVerifiesAndRejectsOneByteChange() async throws {
        let xmlsec1 = try #require(ExternalTool.which("xmlsec1"), "xmlsec1 CLI missing: apt-get install xmlsec1")
        let signed = try signedResponse()
        let certFile = TestKeys.url("idp-cert.pem").path
        func cli(_ xml: String, _ idAttr: String) async throws -> Int32 {
            let file = try ExternalTool.temporaryFile(xml)
            defer { try? FileManager.default.removeItem(at: file) }
            // Verify the Response's signature (the first Signature node xmlsec1 finds: the
            // Response's own, which covers the signed assertion too).
            return try await ExternalTool.run(xmlsec1, ["--verify", "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion",
                                                  "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:Response",
                                                  "--pubkey-cert-pem", certFile, "--enabled-reference-uris", "same-doc",
                                                  file.path]).status
        }
        #expect(try await cli(signed, "Response") == 0)
        let tampered = signed.replacingOccurrences(of: "alice@example.org", with: "alicf@example.org")
        #expect(tampered != signed)
        #expect(try await cli(tampered, "Response") != 0)
        // The assertion alone, as an SP sees it after extracting it, verifies too.
        let doc = try XMLDocument(parsing: signed)
        let assertionXML = String(decoding: assertion(of: doc).serialized(), as: UTF8.self)
            .replacingOccurrences(of: "<saml:Assertion ", with: "<saml:Assertion xmlns:saml=\"urn:oasis:names:tc:SAML:2.0:assertion\" ")
        #expect(try await cli(assertionXML, "Assertion") == 0)
    }

    @Test func everySingleChangeToSignedContentIsRejected() throws {
        let signed = try signedResponse()
        // Every attribute value and every text node outside the Signatures, changed by one
        // character, must break the Response signature.
        var mutations: [String] = []
        let doc = try XMLDocument(parsing: signed)
        doc.root.walk { element in
            if element.namespaceURI == SAMLNamespace.dsig { return }
            for attr in element.attributes {
                mutations.append(signed.replacingOccurrences(of: "\(attr.name)=\"\(attr.value)\"", with: "\(attr.name)=\"\(attr.value)X\""))
            }
            if element.children.isEmpty, !element.text.isEmpty {
                mutations.append(signed.replacingOccurrences(of: ">\(element.text)<", with: ">\(element.text)X<"))
            }
        }
        #expect(mutations.count >= 25)
        for mutated in mutations where mutated != signed {
            let d = try XMLDocument(parsing: mutated)
            let error = #expect(throws: SignatureError.self) { try verifier.verify(d.root) }
            #expect(error?.reason == .invalid || error?.reason == .wrongReference, "\(String(describing: error))")
        }
    }

    @Test func unsignedIsMissing() throws {
        let doc = try XMLDocument(parsing: SampleMessages.response())
        let error = #expect(throws: SignatureError.self) { try verifier.verify(doc.root) }
        #expect(error?.reason == .missing)
    }

    @Test func anotherKeyWithItsCertificateInKeyInfoIsUntrusted() throws {
        let signed = try signedResponse(key: try TestKeys.key("attacker"), cert: try TestKeys.cert("attacker"))
        let doc = try XMLDocument(parsing: signed)
        let error = #expect(throws: SignatureError.self) { try verifier.verify(doc.root) }
        #expect(error?.reason == .untrustedKey)
        #expect(error?.message.contains("samlharness-attacker-test") == true)
    }

    @Test func anotherKeyWithoutCertificateIsInvalid() throws {
        let signer = XMLSigner(key: try TestKeys.key("attacker"))
        let signed = try signer.sign(xml: SampleMessages.response(), elementIDs: [SampleMessages.responseID])
        let error = #expect(throws: SignatureError.self) { try verifier.verify(try XMLDocument(parsing: signed).root) }
        #expect(error?.reason == .invalid)
    }

    @Test func forbiddenTransformIsRefused() throws {
        let signed = try signedResponse().replacingOccurrences(
            of: "<ds:Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/>",
            with: "<ds:Transform Algorithm=\"http://www.w3.org/TR/1999/REC-xslt-19991116\"/>")
        let error = #expect(throws: SignatureError.self) { try verifier.verify(try XMLDocument(parsing: signed).root) }
        #expect(error?.reason == .forbiddenTransform)
    }

    @Test func referenceToAnotherElementIsRefused() throws {
        // Sign only the assertion, then move its Signature to the Response.
        let signer = XMLSigner(key: idpKey, certificate: idpCert)
        let doc = try XMLDocument(parsing: try signer.sign(xml: SampleMessages.response(), elementIDs: [SampleMessages.assertionID]))
        let sig = assertion(of: doc).firstChild("Signature", SAMLNamespace.dsig)!
        let moved = String(decoding: sig.serialized(), as: UTF8.self)
        sig.remove()
        let xml = doc.serializedString().replacingOccurrences(of: "</saml:Issuer><samlp:Status>", with: "</saml:Issuer>\(moved)<samlp:Status>")
        let error = #expect(throws: SignatureError.self) { try verifier.verify(try XMLDocument(parsing: xml).root) }
        #expect(error?.reason == .wrongReference)
    }

    @Test func duplicateIDIsRefused() throws {
        let signed = try signedResponse()
        let xml = signed.replacingOccurrences(of: "</samlp:Response>",
                                              with: "<saml:Assertion ID=\"\(SampleMessages.responseID)\"/></samlp:Response>")
        let error = #expect(throws: SignatureError.self) { try verifier.verify(try XMLDocument(parsing: xml).root) }
        #expect(error?.reason == .duplicateID)
    }

    @Test func twoReferencesAreRefused() throws {
        let signed = try signedResponse()
        let doc = try XMLDocument(parsing: signed)
        let reference = doc.root.firstChild("Signature", SAMLNamespace.dsig)!
            .firstChild("SignedInfo", SAMLNamespace.dsig)!.firstChild("Reference", SAMLNamespace.dsig)!
        let refXML = String(decoding: reference.serialized(), as: UTF8.self)
        let xml = signed.replacingOccurrences(of: refXML, with: refXML + refXML)
        let error = #expect(throws: SignatureError.self) { try verifier.verify(try XMLDocument(parsing: xml).root) }
        #expect(error?.reason == .referenceCount)
    }

    @Test func redirectBindingDetachedSignature() throws {
        let octets = Array("SAMLRequest=fZBBa%2B&RelayState=%2Fsecure&SigAlg=http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256".utf8)
        for (key, cert) in [("idp", "idp"), ("idp-ec", "idp-ec")] {
            let signer = RedirectSigner(key: try TestKeys.key(key))
            let signature = try signer.sign(octets)
            let good = RedirectVerifier(trustedKeys: [try TestKeys.cert(cert).publicKey])
            #expect(try good.verify(signature, over: octets, algorithmURI: signer.algorithmURI))
            var changed = octets
            changed[changed.count - 1] ^= 1
            #expect(try !good.verify(signature, over: changed, algorithmURI: signer.algorithmURI))
            let other = RedirectVerifier(trustedKeys: [try TestKeys.cert("attacker").publicKey])
            #expect(try !other.verify(signature, over: octets, algorithmURI: signer.algorithmURI))
        }
        let sha1 = RedirectSigner(key: idpKey, algorithm: .rsaSha1)
        let sig1 = try sha1.sign(octets)
        #expect(throws: SignatureError.self) {
            try RedirectVerifier(trustedKeys: [idpCert.publicKey]).verify(sig1, over: octets, algorithmURI: sha1.algorithmURI)
        }
        #expect(try RedirectVerifier(trustedKeys: [idpCert.publicKey], allowSHA1: true).verify(sig1, over: octets, algorithmURI: sha1.algorithmURI))
    }

    @Test func signingIsDeterministic() throws {
        #expect(try signedResponse() == signedResponse())
    }

    /// Issue 25: the signer resolves `#ID` through the registered ID instead of an XPointer.
    /// Same digest, same signature bytes, for every c14n method without comments — and a
    /// comment inside the signed element (the CVE-2017-11427 NameID trick) changes nothing.
    @Test(arguments: [CanonicalizationMethod.exclusive, .inclusive])
    func directIDResolutionSignsTheSameBytesAsXPointer(_ method: CanonicalizationMethod) throws {
        let commented = SampleMessages.response().replacingOccurrences(of: "</saml:Issuer>", with: "<!--x--></saml:Issuer>")
        for xml in [SampleMessages.response(), commented] {
            var direct = XMLSigner(key: idpKey, certificate: idpCert, canonicalization: method)
            var xpointer = direct
            xpointer.resolvesIDsDirectly = false
            direct.resolvesIDsDirectly = true
            let ids = [SampleMessages.assertionID, SampleMessages.responseID]
            let a = try direct.sign(xml: xml, elementIDs: ids)
            let b = try xpointer.sign(xml: xml, elementIDs: ids)
            #expect(a == b)
            #expect(a.contains("<!--x-->") == (xml == commented))
            let doc = try XMLDocument(parsing: a)
            #expect(try verifier.verify(doc.root).referencedID == SampleMessages.responseID)
            #expect(try verifier.verify(assertion(of: doc)).referencedID == SampleMessages.assertionID)
        }
    }
}
