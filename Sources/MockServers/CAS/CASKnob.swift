/// Knobs of the mock CAS server: the real-world ways a service ticket fails to validate.
public enum CASKnob: KnobFamily {
    /// How `/cas/*validate` compares the `service` it is given with the ticket's.
    public enum ServiceMatch: String, Sendable, CaseIterable {
        /// Byte for byte (CAS 3.x `SimpleWebApplicationServiceImpl.matches`, and what most
        /// CAS clients expect).
        case exact
        /// Apereo CAS 6.1+ `DefaultServiceMatchingStrategy` (the mock's default): both
        /// percent-decoded as `URLDecoder` does (`+` is a space), the `#fragment` dropped,
        /// then compared ignoring case. A trailing slash or another scheme still differs.
        case decoded
        /// Ignoring scheme, default port, trailing slash and query order (servers that hide
        /// client bugs).
        case lenient
    }

    /// How the CAS server alters the service URL it binds a ticket to, as when it sits
    /// behind a TLS-terminating proxy or a rewriting load balancer.
    public enum ServiceRewrite: String, Sendable, CaseIterable {
        case trailingSlash = "trailing-slash"
        case http
        case https
        case encoded
        case decoded
    }

    case serviceMatch(ServiceMatch)
    case serviceRewrite(ServiceRewrite)
    /// A service ticket can be validated more than once.
    case ticketReusable
    /// Service tickets live this many seconds.
    case ticketLifetime(Double)
    /// CAS 3 `serviceValidate` answers without `cas:attributes`.
    case noAttributes

    public static let names = ["cas-service-match", "cas-service-rewrite", "cas-ticket-reusable", "cas-ticket-lifetime", "cas-no-attributes"]

    public static let examples: [CASKnob] = [
        .serviceMatch(.exact), .serviceMatch(.lenient), .serviceRewrite(.trailingSlash), .serviceRewrite(.http),
        .ticketReusable, .ticketLifetime(1), .noAttributes,
    ]

    public init?(name: String, value: String?) throws {
        switch name {
        case "cas-service-match": self = .serviceMatch(try Self.choice(name, value, ServiceMatch.self))
        case "cas-service-rewrite": self = .serviceRewrite(try Self.choice(name, value, ServiceRewrite.self))
        case "cas-ticket-reusable": try Self.noValue(name, value); self = .ticketReusable
        case "cas-ticket-lifetime": self = .ticketLifetime(try Self.seconds(name, value, in: 0...86400))
        case "cas-no-attributes": try Self.noValue(name, value); self = .noAttributes
        default: return nil
        }
    }

    public var text: String {
        switch self {
        case .serviceMatch(let m): "cas-service-match=\(m.rawValue)"
        case .serviceRewrite(let r): "cas-service-rewrite=\(r.rawValue)"
        case .ticketReusable: "cas-ticket-reusable"
        case .ticketLifetime(let s): "cas-ticket-lifetime=\(Self.format(s))"
        case .noAttributes: "cas-no-attributes"
        }
    }

    public var summary: String {
        switch self {
        case .serviceMatch(.exact): "CAS validation compares the service byte for byte with the ticket's"
        case .serviceMatch(.decoded): "CAS validation compares the service with the ticket's after percent-decoding both, ignoring case (Apereo CAS 6 default)"
        case .serviceMatch(.lenient): "CAS validation ignores scheme, default port, trailing slash and query order when comparing services"
        case .serviceRewrite(let r): "CAS binds the ticket to the service URL rewritten (\(r.rawValue)), as behind a rewriting proxy"
        case .ticketReusable: "a CAS service ticket validates more than once"
        case .ticketLifetime(let s): "CAS service tickets expire after \(Self.format(s)) s"
        case .noAttributes: "CAS 3 serviceValidate answers without cas:attributes"
        }
    }
}
