/// The one JSON line `samlharness serve` prints when every mock accepts connections: where
/// each endpoint is and how to log in. Scripts read it; its keys are stable.
public struct ReadyInfo: Codable, Sendable {
    public struct IdP: Codable, Sendable {
        public let base: String
        public let entityID: String
        public let metadata: String
        public let ssoRedirect: String
        public let ssoPost: String
        public let ecp: String
        public let unsolicited: String
        public let slo: String

        enum CodingKeys: String, CodingKey {
            case base, entityID = "entity_id", metadata, ssoRedirect = "sso_redirect", ssoPost = "sso_post", ecp, unsolicited, slo
        }
    }

    public struct SP: Codable, Sendable {
        public let base: String
        public let entityID: String
        public let secure: String
        public let login: String
        public let acs: String
        public let ecpACS: String
        public let metadata: String
        public let session: String
        public let logout: String

        enum CodingKeys: String, CodingKey {
            case base, entityID = "entity_id", secure, login, acs, ecpACS = "ecp_acs", metadata, session, logout
        }
    }

    public struct Auth: Codable, Sendable {
        public let base: String
        public let basic: String
        public let basicOther: String
        public let digestMD5: String
        public let digestSHA256: String
        public let digestAny: String

        enum CodingKeys: String, CodingKey {
            case base, basic, basicOther = "basic_other", digestMD5 = "digest_md5", digestSHA256 = "digest_sha256", digestAny = "digest_any"
        }
    }

    public struct Proxy: Codable, Sendable {
        public let url: String
        public let username: String
        public let password: String
    }

    public struct Control: Codable, Sendable {
        public let base: String
        public let state: String
        public let knobs: String
        public let profile: String
        public let traffic: String
        public let reset: String
    }

    public struct User: Codable, Sendable {
        public let username: String
        public let password: String
        public let secondFactorCode: String?

        enum CodingKeys: String, CodingKey {
            case username, password, secondFactorCode = "second_factor_code"
        }
    }

    public let event: String
    public let profile: String
    public let personality: String
    public let idp: IdP
    public let sp: SP
    public let auth: Auth
    public let proxy: Proxy
    public let control: Control
    public let users: [User]
    public let knobs: [String]
    public let startupMilliseconds: Double?

    enum CodingKeys: String, CodingKey {
        case event, profile, personality, idp, sp, auth, proxy, control, users, knobs
        case startupMilliseconds = "startup_ms"
    }
}
