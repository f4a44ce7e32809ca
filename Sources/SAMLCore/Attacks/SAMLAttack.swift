/// One attack of the catalog (``AttackCatalog``): a stable id, a one-line description, where
/// the attack is documented, and a generator that turns the IdP's keys and the SP's coordinates
/// (``AttackMaterial``) into the Response(s) a browser would post to the SP's ACS.
///
/// ```swift
/// let material = AttackMaterial(idpEntityID: idp, spEntityID: sp, acsURL: acs,
///                               signer: idpSigner, attackerSigner: attackerSigner)
/// let payload = try AttackCatalog.attack("xsw3")!.generate(material)
/// // payload.responses.last is what the SP must refuse with payload.expectation
/// ```
public struct SAMLAttack: Sendable, Identifiable {
    /// Stable id (`xsw3`, `nameid-comment`…): scripts, `--only` and reports use it. Never renamed.
    public let id: String
    /// One line: what the forged Response does.
    public let summary: String
    /// The paper, CVE or specification section behind it.
    public let reference: String
    private let generator: @Sendable (AttackMaterial) throws -> AttackPayload

    public init(id: String, summary: String, reference: String,
                generator: @escaping @Sendable (AttackMaterial) throws -> AttackPayload) {
        self.id = id
        self.summary = summary
        self.reference = reference
        self.generator = generator
    }

    /// The Response(s) to post, in order, and what a correct SP does with the last one.
    public func generate(_ material: AttackMaterial) throws -> AttackPayload {
        try generator(material)
    }
}

/// What an attack posts and what a correct SP answers.
public struct AttackPayload: Sendable {
    /// The Responses (XML text) posted one after another; the SP's answer to the last one is
    /// judged. Every earlier one is a valid Response the SP must accept (a replay is primed
    /// by a first, accepted, post).
    public let responses: [String]
    public let expectation: AttackExpectation

    public init(responses: [String], expectation: AttackExpectation) {
        self.responses = responses
        self.expectation = expectation
    }

    public init(_ response: String, refusedWith reason: String) {
        self.init(responses: [response], expectation: .refused(reason: reason))
    }

    /// The judged Response.
    public var attackResponse: String { responses.last ?? "" }
}

/// What a correct SP does with an attack Response.
public enum AttackExpectation: Sendable, Equatable {
    /// Refuses it; a strict SP (SAMLCore's ``SPValidator``) names this reason code.
    case refused(reason: String)
    /// May accept it (the signature is genuine), but must log the user in as the whole
    /// NameID, never as the text before an embedded comment (CVE-2017-11427).
    case readWhole(nameID: String, truncated: String)

    /// The reason code a strict SP gives, when it refuses.
    public var reason: String? {
        if case .refused(let reason) = self { return reason }
        return nil
    }
}
