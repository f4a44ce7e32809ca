import Foundation
import Testing
@testable import SAMLCore

@Suite struct SAMLMessageMetadataTests {
    func federation() throws -> EntitiesDescriptor {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/federation-metadata.xml", withExtension: nil))
        return try EntitiesDescriptor(xml: Array(Data(contentsOf: url)))
    }

    @Test func aggregateIsFlattenedInDocumentOrder() throws {
        let feed = try federation()
        #expect(feed.name == "urn:mace:example.org:federation")
        #expect(feed.cacheDuration == "PT6H")
        #expect(feed.validUntil.map { SAMLDateTime.string(from: $0) } == "2024-05-15T00:00:00Z")
        #expect(feed.entities.map(\.entityID) == ["https://idp.example.org/idp/shibboleth", "https://sp.example.org/shibboleth"])
        #expect(feed.entity(withID: "https://nobody.example.org") == nil)
    }

    @Test func shibbolethIdPRole() throws {
        let idp = try #require(try federation().entity(withID: "https://idp.example.org/idp/shibboleth")?.idpSSODescriptor)
        #expect(idp.supportsSAML2)
        #expect(idp.protocolSupportEnumeration.count == 3)
        #expect(idp.singleSignOnService(binding: SAMLBindingURI.httpRedirect)?.location
                == "https://idp.example.org/idp/profile/SAML2/Redirect/SSO")
        #expect(idp.singleSignOnService(binding: SAMLBindingURI.soap)?.location
                == "https://idp.example.org/idp/profile/SAML2/SOAP/ECP")
        #expect(idp.singleSignOnService(binding: SAMLBindingURI.httpArtifact) == nil)
        #expect(idp.singleLogoutService(binding: SAMLBindingURI.httpPost)?.location
                == "https://idp.example.org/idp/profile/SAML2/POST/SLO")
        #expect(idp.nameIDFormats == [NameIDFormat.transient, NameIDFormat.persistent])
        // Whitespace inside X509Certificate is removed; an unspecified use counts for both.
        #expect(idp.signingCertificates == ["MIIDEzCCAfugAwIBAgIJAKoKU0lHTklOR0NFUlQy", "BOTHUSESCERT"])
        #expect(idp.encryptionCertificates == ["RU5DUllQVElPTg==", "BOTHUSESCERT"])
        #expect(idp.keyDescriptors[1].encryptionMethods.count == 2)
        #expect(idp.wantAuthnRequestsSigned == nil)
    }

    @Test func spRoleAndACSSelection() throws {
        let entity = try #require(try federation().entity(withID: "https://sp.example.org/shibboleth"))
        #expect(entity.validUntil.map { SAMLDateTime.string(from: $0) } == "2024-05-10T00:00:00Z")
        let sp = try #require(entity.spSSODescriptor)
        #expect(sp.authnRequestsSigned == true)
        #expect(sp.wantAssertionsSigned == true)
        #expect(sp.signingCertificates == ["U1BDRVJU"])
        // saml-metadata-2.0-os §2.2.3: isDefault="true" wins when no binding or index is asked for.
        #expect(sp.assertionConsumerService()?.index == 3)
        #expect(sp.assertionConsumerService(binding: SAMLBindingURI.httpPost)?.location
                == "https://sp.example.org/Shibboleth.sso/SAML2/POST")
        #expect(sp.assertionConsumerService(binding: SAMLBindingURI.paos)?.location
                == "https://sp.example.org/Shibboleth.sso/SAML2/ECP")
        #expect(sp.assertionConsumerService(index: 2)?.binding == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST-SimpleSign")
        #expect(sp.assertionConsumerService(binding: SAMLBindingURI.paos, index: 1) == nil)
    }

    @Test func defaultEndpointRules() {
        func acs(_ index: Int, _ isDefault: Bool?) -> IndexedEndpoint {
            IndexedEndpoint(binding: SAMLBindingURI.httpPost, location: "https://sp/\(index)", index: index, isDefault: isDefault)
        }
        #expect(IndexedEndpoint.defaultEndpoint(in: [acs(0, false), acs(1, nil), acs(2, true)])?.index == 2)
        #expect(IndexedEndpoint.defaultEndpoint(in: [acs(0, false), acs(1, nil)])?.index == 1)
        #expect(IndexedEndpoint.defaultEndpoint(in: [acs(0, false), acs(1, false)])?.index == 0)
        #expect(IndexedEndpoint.defaultEndpoint(in: []) == nil)
    }

    @Test func metadataErrors() {
        let md = #"xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata""#
        func reason(_ text: String) -> (SAMLError.Reason?, String?) {
            do {
                _ = try EntityDescriptor(xml: text)
                return (nil, nil)
            } catch let error as SAMLError {
                return (error.reason, error.attribute)
            } catch {
                return (nil, nil)
            }
        }
        #expect(reason("<md:EntityDescriptor \(md)/>") == (.missingAttribute, "entityID"))
        #expect(reason("<md:EntityDescriptor \(md) entityID=\"e\"><md:SPSSODescriptor/></md:EntityDescriptor>")
                == (.missingAttribute, "protocolSupportEnumeration"))
        let psa = "protocolSupportEnumeration=\"urn:oasis:names:tc:SAML:2.0:protocol\""
        #expect(reason("<md:EntityDescriptor \(md) entityID=\"e\"><md:SPSSODescriptor \(psa)/></md:EntityDescriptor>")
                == (.missingElement, nil))
        #expect(reason("<md:EntityDescriptor \(md) entityID=\"e\"><md:SPSSODescriptor \(psa)><md:AssertionConsumerService Binding=\"b\" Location=\"l\"/></md:SPSSODescriptor></md:EntityDescriptor>")
                == (.missingAttribute, "index"))
        #expect(reason("<md:EntityDescriptor \(md) entityID=\"e\"><md:IDPSSODescriptor \(psa) WantAuthnRequestsSigned=\"maybe\"><md:SingleSignOnService Binding=\"b\" Location=\"l\"/></md:IDPSSODescriptor></md:EntityDescriptor>")
                == (.invalidAttribute, "WantAuthnRequestsSigned"))
        #expect(reason("<md:EntityDescriptor \(md) entityID=\"e\"><md:IDPSSODescriptor \(psa)><md:KeyDescriptor use=\"both\"/><md:SingleSignOnService Binding=\"b\" Location=\"l\"/></md:IDPSSODescriptor></md:EntityDescriptor>")
                == (.invalidAttribute, "use"))
    }
}
