/// A user the mock IdP knows: credentials, the NameID it asserts, its attributes, and the
/// one-time code of the second-factor page.
public struct TestUser: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    /// The NameID value; the username when absent.
    public var nameID: String?
    public var secondFactorCode: String?
    /// Attribute name (a friendly name such as `mail`, or a URN) → values.
    public var attributes: [String: [String]]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case username, password, attributes
        case nameID = "name_id"
        case secondFactorCode = "second_factor_code"
    }

    public init(username: String, password: String, nameID: String? = nil, secondFactorCode: String? = nil,
                attributes: [String: [String]] = [:]) {
        self.username = username
        self.password = password
        self.nameID = nameID
        self.secondFactorCode = secondFactorCode
        self.attributes = attributes
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        username = try c.decode(String.self, forKey: .username)
        password = try c.decode(String.self, forKey: .password)
        nameID = try c.decodeIfPresent(String.self, forKey: .nameID)
        secondFactorCode = try c.decodeIfPresent(String.self, forKey: .secondFactorCode)
        attributes = try c.decodeIfPresent([String: [String]].self, forKey: .attributes) ?? [:]
    }
}
