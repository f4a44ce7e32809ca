import Foundation
import SAMLCore

/// A token AD FS issued over WS-Trust: the signed assertion and what the RSTR says about it.
struct ADFSIssuedToken {
    enum Kind: String, Sendable {
        case saml11, saml20
    }

    var kind: Kind
    /// `AssertionID` (SAML 1.1) or `ID` (SAML 2.0).
    var id: String
    /// The assertion, signed unless a knob says otherwise, byte for byte as it goes in the RSTR.
    var xml: String
    var created: Date
    var expires: Date
}

/// Builds the assertions the WS-Trust endpoints issue, signed with the profile's IdP key (the
/// token-signing certificate in the federation metadata). The general assertion knobs act here
/// too (`assertion-unsigned`, `wrong-signing-key`, `expired-certificate`, `rsa-sha1`,
/// `expired`, `not-yet-valid`, `clock-skew`, `wrong-audience`, `wrong-issuer`,
/// `attribute-missing`, `nameid-format`); the signer and the skewed clock come from the IdP's
/// ``IdPResponseBuilder`` so both mocks break the same way.
struct ADFSTokenIssuer {
    let environment: MockEnvironment
    let issuer: String
    let lifetime: TimeInterval

    static let saml11Namespace = SAMLNamespace.assertion11
    static let bearer11 = "urn:oasis:names:tc:SAML:1.0:cm:bearer"
    static let passwordMethod11 = "urn:oasis:names:tc:SAML:1.0:am:password"
    static let unspecified11 = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"

    private var knobs: [Knob] { environment.knobs }
    private func has(_ knob: Knob) -> Bool { knobs.contains(knob) }

    private var builder: IdPResponseBuilder {
        IdPResponseBuilder(profile: environment.profile, knobs: knobs, idpEntityID: issuer, clock: environment.clock,
                           ids: environment.ids)
    }

    private var missingAttributes: Set<String> {
        Set(knobs.compactMap { knob -> String? in
            if case .attributeMissing(let name) = knob { return name }
            return nil
        })
    }

    private var nameIDFormatOverride: String? {
        knobs.lazy.compactMap { knob -> String? in
            if case .nameIDFormat(let format) = knob { return format }
            return nil
        }.first
    }

    /// Validity window: now … now + lifetime, moved by `expired` / `not-yet-valid`.
    private func window(_ now: Date) -> (notBefore: Date, notOnOrAfter: Date) {
        if has(.expired) { return (now.addingTimeInterval(-lifetime - 600), now.addingTimeInterval(-600)) }
        if has(.notYetValid) { return (now.addingTimeInterval(600), now.addingTimeInterval(600 + lifetime)) }
        return (now, now.addingTimeInterval(lifetime))
    }

    private var tokenIssuer: String { has(.wrongIssuer) ? IdPResponseBuilder.wrongIssuer : issuer }

    private func audience(_ rp: ADFSRelyingParty) -> String { has(.wrongAudience) ? IdPResponseBuilder.otherSP : rp.identifier }

    func issue(_ kind: ADFSIssuedToken.Kind, user: TestUser, rp: ADFSRelyingParty) throws -> ADFSIssuedToken {
        switch kind {
        case .saml11: try saml11(user: user, rp: rp)
        case .saml20: try saml20(user: user, rp: rp)
        }
    }

    /// A SAML 1.1 assertion as AD FS writes one (saml-core-1.1 §2.3.2): attributes split into
    /// `AttributeNamespace` and `AttributeName` at the claim type's last `/`, the Subject in
    /// the AttributeStatement and the AuthenticationStatement, the signature last (the SAML 1.1
    /// schema puts `ds:Signature` after the statements).
    func saml11(user: TestUser, rp: ADFSRelyingParty) throws -> ADFSIssuedToken {
        let builder = builder
        let now = builder.idpClock.now()
        let (notBefore, notOnOrAfter) = window(now)
        let id = environment.ids.next()
        let time = { (date: Date) in SAMLDateTime.string(from: date, precision: .milliseconds) }
        let nameID = user.nameID ?? ADFSClaims.upn(of: user)
        let format = nameIDFormatOverride ?? Self.unspecified11
        var w = XMLWriter()
        w.open("saml:Assertion", ["MajorVersion": "1", "MinorVersion": "1", "AssertionID": id, "Issuer": tokenIssuer,
                                  "IssueInstant": time(now), "xmlns:saml": Self.saml11Namespace])
        w.open("saml:Conditions", ["NotBefore": time(notBefore), "NotOnOrAfter": time(notOnOrAfter)])
        w.open("saml:AudienceRestrictionCondition")
        w.element("saml:Audience", text: audience(rp))
        w.close("saml:AudienceRestrictionCondition")
        w.close("saml:Conditions")
        func subject() {
            w.open("saml:Subject")
            w.element("saml:NameIdentifier", ["Format": format], text: nameID)
            w.open("saml:SubjectConfirmation")
            w.element("saml:ConfirmationMethod", text: Self.bearer11)
            w.close("saml:SubjectConfirmation")
            w.close("saml:Subject")
        }
        let claims = ADFSClaims.claims(for: user, rp: rp, missing: missingAttributes, roleOrder: ADFSClaims.roleOrder(knobs))
        if !claims.isEmpty {
            w.open("saml:AttributeStatement")
            subject()
            for claim in claims {
                let split = Self.split(claim.type)
                w.open("saml:Attribute", ["AttributeName": split.name, "AttributeNamespace": split.namespace])
                for value in claim.values { w.element("saml:AttributeValue", text: value) }
                w.close("saml:Attribute")
            }
            w.close("saml:AttributeStatement")
        }
        w.open("saml:AuthenticationStatement", ["AuthenticationMethod": Self.passwordMethod11,
                                                "AuthenticationInstant": time(now)])
        subject()
        w.close("saml:AuthenticationStatement")
        w.close("saml:Assertion")
        var xml = w.output
        if !has(.assertionUnsigned) {
            let signed = try builder.makeSigner().sign(xml: xml, elementIDs: [id])
            xml = Self.movingSignatureLast(signed, closingTag: "</saml:Assertion>")
        }
        return ADFSIssuedToken(kind: .saml11, id: id, xml: xml, created: now, expires: now.addingTimeInterval(lifetime))
    }

    /// A SAML 2.0 bearer assertion for WS-Trust: no Recipient or InResponseTo (there is no
    /// ACS and no AuthnRequest), the audience is the `AppliesTo`, attributes named by claim type.
    func saml20(user: TestUser, rp: ADFSRelyingParty) throws -> ADFSIssuedToken {
        let builder = builder
        let clock = builder.idpClock
        let now = SAMLDateTime.truncated(clock.now())
        let (notBefore, notOnOrAfter) = window(now)
        let attributes = ADFSClaims.claims(for: user, rp: rp, missing: missingAttributes, roleOrder: ADFSClaims.roleOrder(knobs)).map {
            Attribute(name: $0.type, nameFormat: nil, strings: $0.values)
        }
        let nameID = NameID(user.nameID ?? ADFSClaims.upn(of: user), format: nameIDFormatOverride ?? NameIDFormat.unspecified)
        var assertion = Assertion.make(issuer: tokenIssuer, nameID: nameID, audience: audience(rp), recipient: "",
                                       inResponseTo: nil, lifetime: lifetime, attributes: attributes,
                                       clock: FixedClock(now), ids: environment.ids)
        assertion.subject?.confirmations[0].data = SubjectConfirmationData(notOnOrAfter: notOnOrAfter)
        assertion.conditions?.notBefore = notBefore
        assertion.conditions?.notOnOrAfter = notOnOrAfter
        var xml = assertion.xml()
        if !has(.assertionUnsigned) {
            xml = try builder.makeSigner().sign(xml: xml, elementIDs: [assertion.id])
        }
        return ADFSIssuedToken(kind: .saml20, id: assertion.id, xml: xml, created: now, expires: now.addingTimeInterval(lifetime))
    }

    /// `http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn` → namespace
    /// `http://schemas.xmlsoap.org/ws/2005/05/identity/claims`, name `upn` (a URN at its last `:`).
    static func split(_ claimType: String) -> (namespace: String, name: String) {
        let separator: Character = claimType.contains("/") ? "/" : ":"
        guard let index = claimType.lastIndex(of: separator) else { return ("", claimType) }
        return (String(claimType[..<index]), String(claimType[claimType.index(after: index)...]))
    }

    /// Moves the enveloped `ds:Signature` (written first by ``XMLSigner``) to the end of the
    /// element. The enveloped-signature transform removes the Signature wherever it stands, so
    /// the digest and SignatureValue stay valid.
    static func movingSignatureLast(_ xml: String, closingTag: String) -> String {
        guard let start = xml.range(of: "<ds:Signature"), let end = xml.range(of: "</ds:Signature>"),
              let close = xml.range(of: closingTag, options: .backwards), end.upperBound <= close.lowerBound else {
            return xml
        }
        return String(xml[..<start.lowerBound]) + xml[end.upperBound..<close.lowerBound]
            + xml[start.lowerBound..<end.upperBound] + xml[close.lowerBound...]
    }
}
