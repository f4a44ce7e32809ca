import Foundation
import Testing
@testable import SAMLCore

@Test func scratchSignVerifyEncrypt() throws {
    let xml = """
    <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://idp</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status><saml:Assertion ID="_a1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://idp</saml:Issuer><saml:Subject><saml:NameID>alice</saml:NameID></saml:Subject></saml:Assertion></samlp:Response>
    """
    let signer = XMLSigner(key: try TestKeys.key("idp"), certificate: try TestKeys.cert("idp"))
    let signed = try signer.sign(xml: xml, elementIDs: ["_a1", "_r1"])
    print(signed)
    let doc = try XMLDocument(parsing: signed)
    let verifier = XMLSignatureVerifier(trustedCertificates: [try TestKeys.cert("idp")])
    print("V1"); let r = try verifier.verify(doc.root); print("V2")
    #expect(r.referencedID == "_r1")
    let a = doc.root.firstChild("Assertion", SAMLNamespace.assertion)!
    #expect(try verifier.verify(a).referencedID == "_a1")
    let enc = XMLEncryptor(recipientCertificate: try TestKeys.cert("sp"))
    let wrapper = try enc.encrypt(a)
    let encrypted = doc.serializedString()
    print(encrypted)
    let doc2 = try XMLDocument(parsing: encrypted)
    let w2 = doc2.root.firstChild("EncryptedAssertion", SAMLNamespace.assertion)!
    let plain = try XMLDecryptor(keys: [try TestKeys.key("sp")]).decrypt(w2)
    print("V3"); #expect(plain.localName == "Assertion")
    #expect(try verifier.verify(plain).referencedID == "_a1")
    _ = wrapper
    let other = XMLSignatureVerifier(trustedCertificates: [try TestKeys.cert("attacker")])
    #expect(throws: SignatureError.self) { try other.verify(doc.root) }
}
