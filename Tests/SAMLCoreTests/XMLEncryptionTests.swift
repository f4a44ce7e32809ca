import Foundation
import Testing
@testable import SAMLCore

@Suite struct XMLEncryptionTests {
    @Test(arguments: DataEncryptionAlgorithm.allCases)
    func encryptedAssertionRoundTrip(algorithm: DataEncryptionAlgorithm) throws {
        let signer = XMLSigner(key: try TestKeys.key("idp"), certificate: try TestKeys.cert("idp"))
        let doc = try XMLDocument(parsing: try signer.sign(xml: SampleMessages.response(), elementIDs: [SampleMessages.assertionID]))
        let assertion = doc.root.firstChild("Assertion", SAMLNamespace.assertion)!
        let wrapper = try XMLEncryptor(recipientCertificate: try TestKeys.cert("sp"), dataAlgorithm: algorithm).encrypt(assertion)
        #expect(wrapper.is("EncryptedAssertion", SAMLNamespace.assertion))
        let xml = doc.serializedString()
        #expect(!xml.contains("alice@example.org"))
        #expect(xml.contains(algorithm.rawValue))
        #expect(xml.contains(KeyTransportAlgorithm.rsaOAEP.rawValue))
        let reparsed = try XMLDocument(parsing: xml)
        let encrypted = reparsed.root.firstChild("EncryptedAssertion", SAMLNamespace.assertion)!
        let plain = try XMLDecryptor(keys: [try TestKeys.key("sp")]).decrypt(encrypted)
        #expect(plain.is("Assertion", SAMLNamespace.assertion))
        #expect(reparsed.root.firstChild("EncryptedAssertion", SAMLNamespace.assertion) == nil)
        // The IdP's signature survives encryption and decryption.
        #expect(try XMLSignatureVerifier(trustedCertificates: [try TestKeys.cert("idp")]).verify(plain).referencedID == SampleMessages.assertionID)
    }

    @Test func encryptedIDRoundTrip() throws {
        let doc = try XMLDocument(parsing: SampleMessages.response())
        let nameID = doc.root.descendants("NameID", SAMLNamespace.assertion)[0]
        let wrapper = try XMLEncryptor(recipientCertificate: try TestKeys.cert("sp"), dataAlgorithm: .aes128CBC)
            .encrypt(nameID, wrapperName: "EncryptedID")
        #expect(wrapper.parent?.localName == "Subject")
        let xml = doc.serializedString()
        #expect(xml.contains("<saml:EncryptedID>"))
        let reparsed = try XMLDocument(parsing: xml)
        let encryptedID = reparsed.root.descendants("EncryptedID", SAMLNamespace.assertion)[0]
        let plain = try XMLDecryptor(keys: [try TestKeys.key("sp")]).decrypt(encryptedID)
        #expect(plain.is("NameID", SAMLNamespace.assertion))
        #expect(plain.text == "alice@example.org")
        #expect(plain.attribute("Format") == "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress")
    }

    @Test func wrongKeyAndForbiddenTransportAreRefused() throws {
        let doc = try XMLDocument(parsing: SampleMessages.response())
        let assertion = doc.root.firstChild("Assertion", SAMLNamespace.assertion)!
        try XMLEncryptor(recipientCertificate: try TestKeys.cert("sp"), keyTransport: .rsa1_5).encrypt(assertion)
        let xml = doc.serializedString()
        let forbidden = #expect(throws: EncryptionError.self) {
            try XMLDecryptor(keys: [try TestKeys.key("sp")]).decrypt(try XMLDocument(parsing: xml).root.firstChild("EncryptedAssertion", SAMLNamespace.assertion)!)
        }
        #expect(forbidden?.reason == .forbiddenAlgorithm)
        let allowed = try XMLDecryptor(keys: [try TestKeys.key("sp")], allowedKeyTransports: [.rsa1_5])
            .decrypt(try XMLDocument(parsing: xml).root.firstChild("EncryptedAssertion", SAMLNamespace.assertion)!)
        #expect(allowed.localName == "Assertion")
        let wrongKey = #expect(throws: EncryptionError.self) {
            try XMLDecryptor(keys: [try TestKeys.key("attacker")], allowedKeyTransports: [.rsa1_5])
                .decrypt(try XMLDocument(parsing: xml).root.firstChild("EncryptedAssertion", SAMLNamespace.assertion)!)
        }
        #expect(wrongKey?.reason == .decryptionFailed)
    }
}
