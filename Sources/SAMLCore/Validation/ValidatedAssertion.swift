/// What a successful validation yields: the NameID exactly as read (every text node,
/// comments skipped), the attributes, and which signature covered the assertion.
public struct ValidatedAssertion: Sendable, Equatable {
    public enum SignedBy: String, Sendable {
        case response, assertion, both
    }

    public let responseID: String
    public let assertionID: String
    public let issuer: String
    public let nameID: NameID
    public let sessionIndex: String?
    public let attributes: [Attribute]
    public let signedBy: SignedBy
    /// True when the assertion arrived as an EncryptedAssertion.
    public let wasEncrypted: Bool
    public let signatureAlgorithm: SignatureAlgorithm
    /// How many assertions were consumed (more than one only with
    /// ``SPValidator/AssertionSelection/all``; ``attributes`` holds all of theirs).
    public var assertionCount: Int = 1
    /// Assertions of the Response that were skipped because they failed a rule.
    public var skippedAssertions: Int = 0
}
