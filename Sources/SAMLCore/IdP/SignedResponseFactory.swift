import Foundation

/// Builds complete, signed (and optionally encrypted) SAML Responses the way an IdP sends
/// them: the Assertion signed first and embedded byte for byte, then encrypted to the SP,
/// then the Response signed over the result. With a fixed clock, a seeded ID generator and an
/// RSA key the output is the same bytes every time (encryption excepted: its session key is
/// random).
///
/// ```swift
/// let factory = SignedResponseFactory(idpEntityID: idp, signer: XMLSigner(key: k, certificate: c))
/// let xml = try factory.response(for: .init(nameID: NameID("alice"), spEntityID: sp, acsURL: acs,
///                                           inResponseTo: "_req"), clock: clock, ids: ids)
/// ```
public struct SignedResponseFactory: Sendable {
    /// What gets a signature.
    public enum SigningMode: String, Sendable, CaseIterable {
        case response, assertion, both, none
    }

    /// The per-login inputs.
    public struct Login: Sendable {
        public var nameID: NameID
        public var spEntityID: String
        public var acsURL: String
        public var inResponseTo: String?
        public var attributes: [Attribute]
        public var lifetime: TimeInterval
        public var status: Status

        public init(nameID: NameID, spEntityID: String, acsURL: String, inResponseTo: String? = nil,
                    attributes: [Attribute] = [], lifetime: TimeInterval = 300, status: Status = .success) {
            self.nameID = nameID
            self.spEntityID = spEntityID
            self.acsURL = acsURL
            self.inResponseTo = inResponseTo
            self.attributes = attributes
            self.lifetime = lifetime
            self.status = status
        }
    }

    public var idpEntityID: String
    public var signer: XMLSigner
    public var signingMode: SigningMode
    /// When set, the (signed) Assertion is encrypted to the SP.
    public var encryptor: XMLEncryptor?

    public init(idpEntityID: String, signer: XMLSigner, signingMode: SigningMode = .both, encryptor: XMLEncryptor? = nil) {
        self.idpEntityID = idpEntityID
        self.signer = signer
        self.signingMode = signingMode
        self.encryptor = encryptor
    }

    /// The Response as XML text.
    public func response(for login: Login, clock: SAMLClock, ids: IDGenerator) throws -> String {
        guard login.status.isSuccess else {
            let response = Response.make(issuer: idpEntityID, destination: login.acsURL, inResponseTo: login.inResponseTo,
                                         status: login.status, clock: clock, ids: ids)
            return try sign(response.xml(), ids: signingMode == .none || signingMode == .assertion ? [] : [response.id])
        }
        let assertion = Assertion.make(issuer: idpEntityID, nameID: login.nameID, audience: login.spEntityID,
                                       recipient: login.acsURL, inResponseTo: login.inResponseTo,
                                       lifetime: login.lifetime, attributes: login.attributes, clock: clock, ids: ids)
        let response = Response.make(issuer: idpEntityID, destination: login.acsURL, inResponseTo: login.inResponseTo,
                                     clock: clock, ids: ids)
        var assertionXML = assertion.xml()
        if signingMode == .assertion || signingMode == .both {
            assertionXML = try signer.sign(xml: assertionXML, elementIDs: [assertion.id])
        }
        let unsigned = response.xml(assertionsXML: [assertionXML])
        let document = try XMLDocument(parsing: unsigned)
        if let encryptor {
            guard let element = document.root.firstChild("Assertion", SAMLNamespace.assertion) else {
                throw SAMLError(.missingElement, "no Assertion to encrypt")
            }
            try encryptor.encrypt(element)
        }
        if signingMode == .response || signingMode == .both {
            try signer.sign(elementWithID: response.id, in: document)
        }
        return document.serializedString()
    }

    private func sign(_ xml: String, ids: [String]) throws -> String {
        ids.isEmpty ? xml : try signer.sign(xml: xml, elementIDs: ids)
    }
}
