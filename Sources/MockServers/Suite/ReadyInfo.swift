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
        /// The SP personality the mock SP judges with, and its settings that differ from
        /// Shibboleth SP 3's stock ones (`NAME=VALUE`).
        public var personality: String?
        public var settings: [String]?

        enum CodingKeys: String, CodingKey {
            case base, entityID = "entity_id", secure, login, acs, ecpACS = "ecp_acs", metadata, session, logout
            case personality, settings
        }
    }

    public struct Auth: Codable, Sendable {
        public let base: String
        public let basic: String
        public let basicOther: String
        public let digestMD5: String
        public let digestSHA256: String
        public let digestAny: String
        /// `/ntlm/` (NTLM) and `/negotiate/` (Negotiate, then NTLM).
        public let ntlm: String
        public let negotiate: String

        enum CodingKeys: String, CodingKey {
            case base, basic, basicOther = "basic_other", digestMD5 = "digest_md5", digestSHA256 = "digest_sha256", digestAny = "digest_any"
            case ntlm, negotiate
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
        public let clock: String
        /// The session's secret (``SessionGuard``): the live console's URL carries it, and the
        /// control API demands it (`Authorization: Bearer TOKEN`) when `token_required`.
        public var token: String?
        /// Whether the control API demands ``token``: a mock is reachable from beyond loopback.
        public var tokenRequired: Bool?

        enum CodingKeys: String, CodingKey {
            case base, state, knobs, profile, traffic, reset, clock, token
            case tokenRequired = "token_required"
        }
    }

    public struct CAS: Codable, Sendable {
        public let base: String
        public let login: String
        public let logout: String
        /// REST: `POST` username and password for a TGT.
        public let tickets: String
        public let validate: String
        public let serviceValidate: String
        public let p3ServiceValidate: String
        public let proxyValidate: String
        public let proxy: String
        public let samlValidate: String
        /// A CAS-protected application on the CAS listener, a ready-made `service`.
        public let service: String

        enum CodingKeys: String, CodingKey {
            case base, login, logout, tickets, validate, serviceValidate = "service_validate"
            case p3ServiceValidate = "p3_service_validate", proxyValidate = "proxy_validate", proxy
            case samlValidate = "saml_validate", service
        }
    }

    public struct ADFS: Codable, Sendable {
        public let base: String
        public let entityID: String
        public let usernameMixed13: String
        public let usernameMixed2005: String
        public let mex: String
        public let federationMetadata: String
        public let idpInitiatedSignOn: String
        /// Identifiers of the relying party trusts (`AppliesTo`, `loginToRp=`).
        public let relyingParties: [String]

        enum CodingKeys: String, CodingKey {
            case base, entityID = "entity_id", usernameMixed13 = "usernamemixed_13", usernameMixed2005 = "usernamemixed_2005"
            case mex, federationMetadata = "federation_metadata", idpInitiatedSignOn = "idp_initiated_sign_on"
            case relyingParties = "relying_parties"
        }
    }

    public struct CirculationManager: Codable, Sendable {
        public let base: String
        public let authenticationDocument: String
        public let catalog: String
        public let loans: String
        /// The SP entity ID it logs in to the IdP as.
        public let entityID: String
        public let acs: String

        enum CodingKeys: String, CodingKey {
            case base, authenticationDocument = "authentication_document", catalog, loans, entityID = "entity_id", acs
        }
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
    public let cas: CAS
    public let adfs: ADFS
    public let cm: CirculationManager
    public let users: [User]
    public let knobs: [String]
    public let startupMilliseconds: Double?
    /// Present when the IdP and SP listen on https (`tls`, `https-downgrade`).
    public var tls: TLS? = nil

    /// The https side: the CA to trust, and the SP's plain-http twin.
    public struct TLS: Codable, Sendable {
        /// The test CA clients should trust (and only it).
        public let caFile: String
        /// The SP's plain-http twin, when the SP is on https.
        public let spPlain: String?
        /// The https mocks and what each presents: `good`, or the fault (`expired`, `legacy`…).
        public var listeners: [String: String] = [:]

        public init(caFile: String, spPlain: String?, listeners: [String: String] = [:]) {
            self.caFile = caFile
            self.spPlain = spPlain
            self.listeners = listeners
        }

        enum CodingKeys: String, CodingKey {
            case caFile = "ca_file", spPlain = "sp_plain", listeners
        }
    }

    enum CodingKeys: String, CodingKey {
        case event, profile, personality, idp, sp, auth, proxy, control, cas, adfs, cm, users, knobs, tls
        case startupMilliseconds = "startup_ms"
    }
}
