import Foundation
@testable import SAMLCore

/// A stand-in signer: the "signature" is the octets reversed, so a test can see exactly which
/// octets were signed. Not cryptography.
struct ReversingSigner: DetachedSigner {
    var algorithmURI = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
    func sign(_ octets: [UInt8]) throws -> [UInt8] { octets.reversed() }
}

/// Accepts exactly the signatures ``ReversingSigner`` makes.
struct ReversingVerifier: DetachedVerifier {
    func verify(_ signature: [UInt8], over octets: [UInt8], algorithmURI: String) throws -> Bool {
        signature == octets.reversed()
    }
}

enum BindingsFixtures {
    static let authnRequest = #"<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1b2c3" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://idp.example.org/idp/profile/SAML2/Redirect/SSO" AssertionConsumerServiceURL="https://sp.example.org/Shibboleth.sso/SAML2/POST"><saml:Issuer>https://sp.example.org/shibboleth</saml:Issuer></samlp:AuthnRequest>"#

    static let response = #"<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" Destination="https://sp.example.org/Shibboleth.sso/SAML2/POST?target=ss%3Amem" ID="_r1" InResponseTo="_a1b2c3" Version="2.0" IssueInstant="2026-01-01T00:00:01Z"><saml:Issuer>https://idp.example.org/idp/shibboleth</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:Response>"#

    /// A response whose base64 contains `+`, `/` and ends with `=`, found deterministically.
    static let edgeResponse: EncodingEdgeCases.Candidate = EncodingEdgeCases.firstCandidate(padding: .one) { n in
        responseCandidate(n)
    }!

    /// The n-th candidate: the ID (after the Destination's `?`) varies in value and length,
    /// which moves the `>`s and the end relative to the `?` — what decides `+`, `/` and `=`.
    static func responseCandidate(_ n: Int) -> String {
        response.replacingOccurrences(of: "_r1", with: "_r\(n)" + String(repeating: "x", count: n % 5))
    }
}
