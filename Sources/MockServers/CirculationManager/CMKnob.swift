/// Knobs of the mock OPDS circulation manager.
public enum CMKnob: KnobFamily {
    /// The media type of the `credentials-invalid` problem document.
    public enum ProblemType: String, Sendable, CaseIterable {
        /// `application/api-problem+json` (what the Library Simplified circulation manager sends).
        case apiProblem = "api-problem"
        /// `application/problem+json` (RFC 7807).
        case problem
    }

    /// What `/works/{id}/fulfill/{mechanism}` does before the book.
    public enum Fulfil: String, Sendable, CaseIterable {
        /// The book straight away.
        case direct
        /// A redirect chain that needs the stored cookies.
        case redirect
        /// The chain goes back through the IdP, which wants the user again.
        case reverify
    }

    /// Bearer tokens live this many seconds.
    case tokenLifetime(Double)
    case problemType(ProblemType)
    case fulfil(Fulfil)
    /// The bearer token that made the first successful borrow is revoked right after it, so
    /// the next call with it (the fulfil) gets `credentials-invalid`: a deterministic way to
    /// expire a token between borrow and fulfil while an external client drives the flow.
    case expireAfterBorrow

    public static let names = ["cm-token-lifetime", "cm-problem-type", "cm-fulfill", "cm-expire-after-borrow"]

    public static let examples: [CMKnob] = [.tokenLifetime(2), .problemType(.problem), .fulfil(.redirect), .fulfil(.reverify),
                                            .expireAfterBorrow]

    public init?(name: String, value: String?) throws {
        switch name {
        case "cm-token-lifetime": self = .tokenLifetime(try Self.seconds(name, value, in: 0...86400))
        case "cm-problem-type": self = .problemType(try Self.choice(name, value, ProblemType.self))
        case "cm-fulfill": self = .fulfil(try Self.choice(name, value, Fulfil.self))
        case "cm-expire-after-borrow":
            try Self.noValue(name, value)
            self = .expireAfterBorrow
        default: return nil
        }
    }

    public var text: String {
        switch self {
        case .tokenLifetime(let s): "cm-token-lifetime=\(Self.format(s))"
        case .problemType(let p): "cm-problem-type=\(p.rawValue)"
        case .fulfil(let f): "cm-fulfill=\(f.rawValue)"
        case .expireAfterBorrow: "cm-expire-after-borrow"
        }
    }

    public var summary: String {
        switch self {
        case .tokenLifetime(let s): "circulation manager bearer tokens expire after \(Self.format(s)) s"
        case .problemType(.apiProblem): "an invalid token gets 401 application/api-problem+json"
        case .problemType(.problem): "an invalid token gets 401 application/problem+json (RFC 7807)"
        case .fulfil(.direct): "fulfil answers the book at once"
        case .fulfil(.redirect): "fulfil runs a redirect chain that needs the stored cookies before the book"
        case .fulfil(.reverify): "fulfil sends the user back through the IdP, which asks for the password again, before the book"
        case .expireAfterBorrow: "the bearer token of the first successful borrow is revoked right after it (the fulfil then gets credentials-invalid)"
        }
    }
}
