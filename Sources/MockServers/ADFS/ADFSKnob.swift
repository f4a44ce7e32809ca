/// Knobs of the mock AD FS: the faults and token shapes real farms answer with.
public enum ADFSKnob: KnobFamily {
    /// A WS-Trust fault answered to every RequestSecurityToken.
    public enum Fault: String, Sendable, CaseIterable {
        case failedAuthentication = "failed-authentication"
        case invalidRequest = "invalid-request"
        case requestFailed = "request-failed"
    }

    public enum TokenType: String, Sendable, CaseIterable {
        case saml11, saml20
    }

    case fault(Fault)
    /// Issues this token type whatever the request asked for (a relying party trust set up
    /// for the other one).
    case tokenType(TokenType)

    public static let names = ["adfs-fault", "adfs-token-type"]

    public static let examples: [ADFSKnob] = [.fault(.failedAuthentication), .fault(.requestFailed), .tokenType(.saml20)]

    public init?(name: String, value: String?) throws {
        switch name {
        case "adfs-fault": self = .fault(try Self.choice(name, value, Fault.self))
        case "adfs-token-type": self = .tokenType(try Self.choice(name, value, TokenType.self))
        default: return nil
        }
    }

    public var text: String {
        switch self {
        case .fault(let f): "adfs-fault=\(f.rawValue)"
        case .tokenType(let t): "adfs-token-type=\(t.rawValue)"
        }
    }

    public var summary: String {
        switch self {
        case .fault(let f): "AD FS answers every WS-Trust request with the \(f.rawValue) SOAP fault"
        case .tokenType(let t): "AD FS issues a \(t == .saml11 ? "SAML 1.1" : "SAML 2.0") token whatever TokenType the request asked for"
        }
    }
}
