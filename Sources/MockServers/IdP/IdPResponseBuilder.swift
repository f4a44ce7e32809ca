import Foundation
import SAMLCore

/// Builds the SAML Response the mock IdP sends, with the profile's signing and encryption
/// settings and the knobs applied. Every knob that changes the Response is carried out here,
/// in one place, so the table in MockIdP/README.md and this code cannot drift apart.
struct IdPResponseBuilder {
    let profile: LoadedProfile
    let knobs: [Knob]
    let idpEntityID: String
    let clock: SAMLClock
    let ids: IDGenerator

    static let wrongIssuer = "https://wrong-idp.example.org/idp/shibboleth"
    static let otherSP = "https://other-sp.example.org/shibboleth"
    static let otherACS = "https://other-sp.example.org/Shibboleth.sso/SAML2/POST"
    /// The IdP's own documents may be as large as `oversized` makes them.
    static let ownDocuments = XMLParsingLimits(maxBytes: 80 * 1024 * 1024)

    private func has(_ knob: Knob) -> Bool { knobs.contains(knob) }

    /// The clock as the IdP sees it (`clock-skew` shifts it).
    var idpClock: SAMLClock {
        let skew = knobs.reduce(0) { total, knob in
            if case .clockSkew(let seconds) = knob { return total + seconds }
            return total
        }
        return skew == 0 ? clock : FixedClock(clock.now().addingTimeInterval(TimeInterval(skew)))
    }

    /// The Response XML for `login`.
    func response(for login: IssuedLogin) throws -> String {
        let clock = idpClock
        let issuer = has(.wrongIssuer) ? Self.wrongIssuer : idpEntityID
        let destination = has(.wrongDestination) ? Self.otherACS : login.sp.acsURL
        let inResponseTo: String? = if has(.inResponseToMissing) {
            nil
        } else if has(.inResponseToWrong) {
            "_" + String(repeating: "0", count: 8) + "wrong" + ids.next().dropFirst()
        } else {
            login.inResponseTo
        }
        let signing = signingMode
        let signer = try makeSigner()

        if let status = statusOverride ?? login.status {
            let response = Response.make(issuer: issuer, destination: destination, inResponseTo: inResponseTo,
                                         status: status, clock: clock, ids: ids)
            let xml = response.xml(signature: nil)
            return signing == .response || signing == .both ? try signer.sign(xml: xml, elementIDs: [response.id], limits: Self.ownDocuments) : xml
        }

        let assertionXML = try assertion(for: login, issuer: issuer, inResponseTo: inResponseTo, clock: clock)
        var assertions = [assertionXML.xml]
        if has(.secondAssertion) {
            var other = login
            other.user = TestUser(username: "mallory", password: "", nameID: "mallory@attacker.example.org",
                                  attributes: ["uid": ["mallory"], "eduPersonAffiliation": ["staff"]])
            assertions.append(try assertion(for: other, issuer: issuer, inResponseTo: inResponseTo, clock: clock).xml)
        }
        let response = Response.make(issuer: issuer, destination: destination, inResponseTo: inResponseTo,
                                     clock: clock, ids: ids)
        // One document: the Assertion is signed in place (exclusive c14n makes its digest the same
        // as signed on its own), then encrypted, then the Response around it is signed; one parse,
        // one serialisation (issue 25).
        let document = try XMLDocument(parsing: response.xml(assertionsXML: assertions), limits: Self.ownDocuments)
        if signing == .assertion || signing == .both, !has(.assertionUnsigned) {
            try signer.sign(elementWithID: assertionXML.id, in: document)
        }
        if let encryptor = try encryptor(for: login.sp) {
            guard let element = document.root.firstChild("Assertion", SAMLNamespace.assertion) else {
                throw SAMLError(.missingElement, "no Assertion to encrypt")
            }
            _ = try encryptor.encrypt(element)
        }
        if signing == .response || signing == .both, !has(.responseUnsigned) {
            try signer.sign(elementWithID: response.id, in: document)
        }
        return document.serializedString()
    }

    /// What the profile signs, less what the knobs strip.
    var signingMode: SignedResponseFactory.SigningMode {
        var mode = SignedResponseFactory.SigningMode(rawValue: profile.profile.idp.sign) ?? .response
        if has(.responseUnsigned) {
            mode = (mode == .both || mode == .assertion) ? .assertion : .none
        }
        if has(.assertionUnsigned) {
            mode = (mode == .both || mode == .response) ? .response : .none
        }
        return mode
    }

    var statusOverride: Status? {
        for knob in knobs {
            if case .status(let kind, let message) = knob {
                switch kind {
                case .requester: return Status(code: StatusCode(StatusCode.requester), message: message)
                case .responder: return Status(code: StatusCode(StatusCode.responder), message: message)
                case .authnFailed:
                    return Status(code: StatusCode(StatusCode.responder, nested: [StatusCode.authnFailed]), message: message)
                }
            }
        }
        return nil
    }

    func makeSigner() throws -> XMLSigner {
        let algorithm: SignatureAlgorithm = has(.rsaSHA1) ? .rsaSha1
            : (LoadedProfile.signatureAlgorithm(profile.profile.idp.signatureAlgorithm) ?? .rsaSha256)
        if has(.wrongSigningKey) {
            return XMLSigner(key: profile.otherKey, certificate: profile.otherCertificate, algorithm: algorithm)
        }
        let certificate = has(.expiredCertificate) ? profile.expiredIdPCertificate : profile.idpCertificate
        return XMLSigner(key: profile.idpKey, certificate: certificate, algorithm: algorithm)
    }

    func encryptor(for sp: KnownSP) throws -> XMLEncryptor? {
        let algorithm = LoadedProfile.dataEncryption(profile.profile.idp.dataEncryption) ?? .aes256GCM
        if has(.encryptWrongKey) {
            return XMLEncryptor(recipientCertificate: profile.otherCertificate, dataAlgorithm: algorithm)
        }
        guard profile.profile.idp.encrypt, let certificate = sp.encryptionCertificate else { return nil }
        return XMLEncryptor(recipientCertificate: certificate, dataAlgorithm: algorithm)
    }

    /// The assertion (unsigned) and its ID.
    func assertion(for login: IssuedLogin, issuer: String, inResponseTo: String?,
                   clock: SAMLClock) throws -> (id: String, xml: String) {
        let format = knobs.lazy.compactMap { knob -> String? in
            if case .nameIDFormat(let format) = knob { return format }
            return nil
        }.first ?? login.requestedNameIDFormat.flatMap { $0 == NameIDFormat.unspecified ? nil : $0 }
            ?? profile.profile.idp.nameIDFormat
        let nameIDValue = login.user.nameID ?? login.user.username
        let nameID = NameID(nameIDValue, format: format, nameQualifier: idpEntityID, spNameQualifier: login.sp.entityID)
        let missing = Set(knobs.compactMap { knob -> String? in
            if case .attributeMissing(let name) = knob { return name }
            return nil
        })
        var attributes = AttributeNaming.attributes(for: login.user).filter {
            !missing.contains($0.friendlyName ?? "") && !missing.contains($0.name)
        }
        let recipient = has(.wrongRecipient) ? Self.otherACS : login.sp.acsURL
        var assertion = Assertion.make(
            issuer: issuer, nameID: nameID, audience: has(.wrongAudience) ? Self.otherSP : login.sp.entityID,
            recipient: recipient, inResponseTo: inResponseTo,
            lifetime: TimeInterval(profile.profile.idp.assertionLifetime), sessionIndex: login.sessionIndex,
            attributes: [], clock: clock, ids: ids)
        let now = SAMLDateTime.truncated(clock.now())
        if has(.expired) {
            assertion.conditions?.notBefore = now.addingTimeInterval(-900)
            assertion.conditions?.notOnOrAfter = now.addingTimeInterval(-600)
            assertion.subject?.confirmations[0].data?.notOnOrAfter = now.addingTimeInterval(-600)
        }
        if has(.notYetValid) {
            assertion.conditions?.notBefore = now.addingTimeInterval(600)
            assertion.conditions?.notOnOrAfter = now.addingTimeInterval(900)
        }
        if let size = knobs.lazy.compactMap({ knob -> Int? in
            if case .oversized(let bytes) = knob { return bytes }
            return nil
        }).first {
            attributes.append(Attribute(name: "urn:oid:1.3.6.1.4.1.5923.1.1.1.99", friendlyName: "padding",
                                        strings: [String(repeating: "A", count: size)]))
        }
        if !attributes.isEmpty { assertion.attributeStatements = [AttributeStatement(attributes)] }
        var xml = assertion.xml()
        if has(.nameIDComment), let at = nameIDValue.firstIndex(of: "@") ?? nameIDValue.indices.dropFirst().first {
            // CVE-2017-11427: a comment splits the NameID text into two text nodes; exclusive
            // c14n (without comments) drops it, so the signature still verifies.
            let escaped = HTMLText.escape(nameIDValue)
            let head = HTMLText.escape(String(nameIDValue[..<at]))
            let tail = HTMLText.escape(String(nameIDValue[at...]))
            xml = xml.replacingOccurrences(of: ">\(escaped)</saml:NameID>", with: ">\(head)<!--x-->\(tail)</saml:NameID>")
        }
        return (assertion.id, xml)
    }
}
