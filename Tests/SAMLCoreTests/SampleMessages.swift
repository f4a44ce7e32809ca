import Foundation

/// Hand-written SAML messages shaped like real IdPs' output, independent of the builders.
enum SampleMessages {
    static let responseID = "_resp0a1b2c3d4e5f"
    static let assertionID = "_assert9f8e7d6c5b4a"

    /// Timestamps around `now` (issue instant = now, NotBefore = now − 60 s, NotOnOrAfter =
    /// now + 300 s), for peers that check against the real clock.
    static func response(now: Date, nameID: String = "alice@example.org") -> String {
        let f = ISO8601DateFormatter()
        return response(nameID: nameID, issueInstant: f.string(from: now),
                        notBefore: f.string(from: now.addingTimeInterval(-60)),
                        notOnOrAfter: f.string(from: now.addingTimeInterval(300)))
    }

    static func response(nameID: String = "alice@example.org", issueInstant: String = "2030-01-01T00:00:00Z",
                         notBefore: String = "2029-12-31T23:59:00Z", notOnOrAfter: String = "2030-01-01T00:05:00Z",
                         audience: String = "https://sp.example.org/shibboleth") -> String {
        """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(responseID)" Version="2.0" IssueInstant="\(issueInstant)" \
        Destination="https://sp.example.org/Shibboleth.sso/SAML2/POST" InResponseTo="_req1">\
        <saml:Issuer>https://idp.example.org/idp/shibboleth</saml:Issuer>\
        <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
        <saml:Assertion ID="\(assertionID)" Version="2.0" IssueInstant="\(issueInstant)">\
        <saml:Issuer>https://idp.example.org/idp/shibboleth</saml:Issuer>\
        <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">\(nameID)</saml:NameID>\
        <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">\
        <saml:SubjectConfirmationData InResponseTo="_req1" NotOnOrAfter="\(notOnOrAfter)" \
        Recipient="https://sp.example.org/Shibboleth.sso/SAML2/POST"/></saml:SubjectConfirmation></saml:Subject>\
        <saml:Conditions NotBefore="\(notBefore)" NotOnOrAfter="\(notOnOrAfter)">\
        <saml:AudienceRestriction><saml:Audience>\(audience)</saml:Audience></saml:AudienceRestriction></saml:Conditions>\
        <saml:AuthnStatement AuthnInstant="\(issueInstant)" SessionIndex="_s1">\
        <saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>\
        </saml:AuthnStatement>\
        <saml:AttributeStatement><saml:Attribute Name="urn:oid:0.9.2342.19200300.100.1.3" FriendlyName="mail">\
        <saml:AttributeValue>\(nameID)</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>\
        </saml:Assertion></samlp:Response>
        """
    }
}
