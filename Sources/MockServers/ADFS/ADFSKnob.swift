/// Knobs of the mock AD FS: the faults, token shapes, claim forms and page versions real farms
/// answer with.
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

    /// The order of the two ARNs in each `https://aws.amazon.com/SAML/Attributes/Role` value.
    /// AWS's AD FS guide's claim rule writes the SAML provider first; the IAM user guide's
    /// example writes the role first; AWS accepts both.
    public enum RoleOrder: String, Sendable, CaseIterable {
        case providerFirst = "provider-first"
        case roleFirst = "role-first"
    }

    /// Which Windows Server's sign-in pages: 2016 (the 2012 R2 theme: `<label id="errorText">`)
    /// or 2019 (`<span id="errorText" aria-live="assertive" role="alert">`, `<main>`).
    public enum Pages: String, Sendable, CaseIterable {
        case ws2016 = "2016"
        case ws2019 = "2019"
    }

    case fault(Fault)
    /// Issues this token type whatever the request asked for (a relying party trust set up
    /// for the other one).
    case tokenType(TokenType)
    case roleOrder(RoleOrder)
    case pages(Pages)
    /// Every user agent is treated as WIA-capable (WIASupportedUserAgents widened, as intranet
    /// farms do for Chrome and Firefox): the passive sign-in goes to `/adfs/ls/wia`, which asks
    /// for Windows Integrated Authentication (Negotiate, NTLM) instead of showing the form.
    case wia

    public static let names = ["adfs-fault", "adfs-token-type", "adfs-role-order", "adfs-pages", "adfs-wia"]

    public static let examples: [ADFSKnob] = [.fault(.failedAuthentication), .fault(.requestFailed), .tokenType(.saml20),
                                              .roleOrder(.roleFirst), .pages(.ws2019), .wia]

    public init?(name: String, value: String?) throws {
        switch name {
        case "adfs-fault": self = .fault(try Self.choice(name, value, Fault.self))
        case "adfs-token-type": self = .tokenType(try Self.choice(name, value, TokenType.self))
        case "adfs-role-order": self = .roleOrder(try Self.choice(name, value, RoleOrder.self))
        case "adfs-pages": self = .pages(try Self.choice(name, value, Pages.self))
        case "adfs-wia":
            try Self.noValue(name, value)
            self = .wia
        default: return nil
        }
    }

    public var text: String {
        switch self {
        case .fault(let f): "adfs-fault=\(f.rawValue)"
        case .tokenType(let t): "adfs-token-type=\(t.rawValue)"
        case .roleOrder(let o): "adfs-role-order=\(o.rawValue)"
        case .pages(let p): "adfs-pages=\(p.rawValue)"
        case .wia: "adfs-wia"
        }
    }

    public var summary: String {
        switch self {
        case .fault(let f): "AD FS answers every WS-Trust request with the \(f.rawValue) SOAP fault"
        case .tokenType(let t): "AD FS issues a \(t == .saml11 ? "SAML 1.1" : "SAML 2.0") token whatever TokenType the request asked for"
        case .roleOrder(.providerFirst):
            "AD FS writes each AWS Role value provider-ARN,role-ARN, as the claim rule of AWS's AD FS guide does (the default)"
        case .roleOrder(.roleFirst):
            "AD FS writes each AWS Role value role-ARN,provider-ARN (the IAM user guide's order; AWS accepts both)"
        case .pages(.ws2016): "AD FS serves Windows Server 2016's sign-in pages: the error in `<label id=\"errorText\">` (the default)"
        case .pages(.ws2019):
            "AD FS serves Windows Server 2019's sign-in pages: the error in `<span id=\"errorText\" aria-live=\"assertive\" role=\"alert\">`"
        case .wia:
            "AD FS treats every user agent as WIA-capable: the passive sign-in redirects to /adfs/ls/wia, which answers 401 Negotiate, NTLM (Windows Integrated Authentication) instead of the forms page"
        }
    }
}
