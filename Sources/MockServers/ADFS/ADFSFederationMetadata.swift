import Foundation
import SAMLCore

/// `FederationMetadata/2007-06/FederationMetadata.xml` as AD FS publishes it: an
/// EntityDescriptor (with an `ID`, signed, the Signature its first child) holding a WS-Federation
/// `fed:ApplicationServiceType` RoleDescriptor, a `fed:SecurityTokenServiceType` RoleDescriptor
/// (claims offered, the STS and passive endpoints), an SPSSODescriptor and an IDPSSODescriptor,
/// every one carrying the token-signing certificate (ws-federation-1.2-spec-os §3.1, §3.2;
/// saml-metadata-2.0-os §2.4).
enum ADFSFederationMetadata {
    static let claimsOffered: [(type: String, display: String, description: String)] = [
        (ADFSClaims.email, "E-Mail Address", "The e-mail address of the user"),
        (ADFSClaims.givenName, "Given Name", "The given name of the user"),
        (ADFSClaims.name, "Name", "The unique name of the user"),
        (ADFSClaims.upn, "UPN", "The user principal name (UPN) of the user"),
        (ADFSClaims.commonName, "Common Name", "The common name of the user"),
        (ADFSClaims.group, "Group", "A group that the user is a member of"),
        (ADFSClaims.role, "Role", "A role that the user has"),
        (ADFSClaims.surname, "Surname", "The surname of the user"),
    ]

    static let nameIDFormats = [
        "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
        "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
    ]

    /// The unsigned document and the ID to sign.
    static func document(entityID: String, base: String, certificate: Certificate, id: String) -> String {
        let cert = certificate.base64DER
        let ls = base + ADFSServer.Path.ls
        var w = XMLWriter()
        w.open("EntityDescriptor", ["ID": id, "entityID": entityID, "xmlns": SAMLNamespace.metadata])
        func keyDescriptor(_ use: String) {
            w.open("KeyDescriptor", ["use": use])
            w.open("KeyInfo", ["xmlns": SAMLNamespace.dsig])
            w.open("X509Data")
            w.element("X509Certificate", text: cert)
            w.close("X509Data")
            w.close("KeyInfo")
            w.close("KeyDescriptor")
        }
        func endpointReference(_ element: String, _ address: String) {
            w.open(element)
            w.open("wsa:EndpointReference", ["xmlns:wsa": WSTrustNamespace.addressing])
            w.element("wsa:Address", text: address)
            w.close("wsa:EndpointReference")
            w.close(element)
        }
        func openRole(_ type: String) {
            w.open("RoleDescriptor", ["xsi:type": type, "xmlns:fed": WSTrustNamespace.federation, "xmlns:xsi": SAMLNamespace.xsi,
                                      "protocolSupportEnumeration": WSTrustNamespace.federation,
                                      "ServiceDisplayName": "SAMLHarness mock AD FS"])
        }
        // The relying-party side of WS-Federation.
        openRole("fed:ApplicationServiceType")
        keyDescriptor("encryption")
        w.open("fed:TargetScopes")
        w.open("wsa:EndpointReference", ["xmlns:wsa": WSTrustNamespace.addressing])
        w.element("wsa:Address", text: base + "/adfs/services/trust")
        w.close("wsa:EndpointReference")
        w.close("fed:TargetScopes")
        endpointReference("fed:ApplicationServiceEndpoint", base + "/adfs/services/trust/2005/issuedtokenmixedsymmetricbasic256")
        endpointReference("fed:PassiveRequestorEndpoint", ls)
        w.close("RoleDescriptor")
        // The STS side: the signing key, the claims, the active and passive endpoints.
        openRole("fed:SecurityTokenServiceType")
        keyDescriptor("signing")
        w.open("fed:TokenTypesOffered")
        for type in [WSTrustNamespace.saml11TokenType, WSTrustNamespace.saml20TokenType] { w.empty("fed:TokenType", ["Uri": type]) }
        w.close("fed:TokenTypesOffered")
        w.open("fed:ClaimTypesOffered")
        for claim in claimsOffered {
            w.open("auth:ClaimType", ["Uri": claim.type, "Optional": "true", "xmlns:auth": "http://docs.oasis-open.org/wsfed/authorization/200706"])
            w.element("auth:DisplayName", text: claim.display)
            w.element("auth:Description", text: claim.description)
            w.close("auth:ClaimType")
        }
        w.close("fed:ClaimTypesOffered")
        endpointReference("fed:SecurityTokenServiceEndpoint", base + ADFSServer.Path.usernameMixed13)
        endpointReference("fed:PassiveRequestorEndpoint", ls)
        w.close("RoleDescriptor")
        // SAML 2.0 SP side (AD FS as a claims provider trust's relying party).
        w.open("SPSSODescriptor", ["WantAssertionsSigned": "true", "protocolSupportEnumeration": SAMLNamespace.protocol_])
        keyDescriptor("encryption")
        keyDescriptor("signing")
        for binding in [SAMLBindingURI.httpRedirect, SAMLBindingURI.httpPost] {
            w.empty("SingleLogoutService", ["Binding": binding, "Location": ls])
        }
        for format in nameIDFormats { w.element("NameIDFormat", text: format) }
        for (index, binding) in [SAMLBindingURI.httpPost, SAMLBindingURI.httpArtifact, SAMLBindingURI.httpRedirect].enumerated() {
            w.empty("AssertionConsumerService", ["Binding": binding, "Location": ls, "index": String(index),
                                                  "isDefault": index == 0 ? "true" : nil])
        }
        w.close("SPSSODescriptor")
        // SAML 2.0 IdP side.
        w.open("IDPSSODescriptor", ["protocolSupportEnumeration": SAMLNamespace.protocol_])
        keyDescriptor("encryption")
        keyDescriptor("signing")
        for binding in [SAMLBindingURI.httpRedirect, SAMLBindingURI.httpPost] {
            w.empty("SingleLogoutService", ["Binding": binding, "Location": ls])
        }
        for format in nameIDFormats { w.element("NameIDFormat", text: format) }
        for binding in [SAMLBindingURI.httpRedirect, SAMLBindingURI.httpPost] {
            w.empty("SingleSignOnService", ["Binding": binding, "Location": ls])
        }
        for claim in claimsOffered {
            w.empty("Attribute", ["Name": claim.type, "NameFormat": Attribute.NameFormat.uri, "FriendlyName": claim.display,
                                  "xmlns": SAMLNamespace.assertion])
        }
        w.close("IDPSSODescriptor")
        w.close("EntityDescriptor")
        return w.output
    }
}

extension ADFSServer {
    func federationMetadataResponse() -> MockResponse {
        let profile = environment.profile
        let certificate = environment.knobs.contains(.expiredCertificate) ? profile.expiredIdPCertificate : profile.idpCertificate
        let id = "_" + token()
        let xml = ADFSFederationMetadata.document(entityID: entityID, base: base, certificate: certificate, id: id)
        do {
            let signer = XMLSigner(key: profile.idpKey, certificate: certificate)
            let signed = try signer.sign(xml: xml, elementIDs: [id])
            return MockResponse.xml(signed, contentType: "application/samlmetadata+xml").annotated("adfs.page", "federation-metadata")
        } catch {
            return MockResponse.errorPage(status: 500, title: "Internal Server Error", message: "Signing the metadata failed: \(error)")
        }
    }
}
