/// What a check is: its stable id, its one-line purpose, the clause or CVE behind it, the
/// flows it applies to, and the parameters a scenario may give it. Scenarios name checks by
/// id; ``ScenarioLoader`` refuses unknown ids, ids used on a flow they don't apply to, and
/// unknown or mistyped parameters.
public struct CheckDescriptor: Sendable, Equatable {
    public enum Category: String, Sendable, CaseIterable {
        case encoding, flow, security, httpauth, ntlm, ecp, cas, wstrust, adfs, opds
    }

    /// A parameter a scenario may set.
    public struct Parameter: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case integer, number, string, boolean
        }

        public let name: String
        public let kind: Kind
        public let defaultValue: String
        public let summary: String

        public init(_ name: String, _ kind: Kind, default defaultValue: String, _ summary: String) {
            self.name = name
            self.kind = kind
            self.defaultValue = defaultValue
            self.summary = summary
        }
    }

    public let id: String
    public let category: Category
    /// One line: what the check makes sure of.
    public let purpose: String
    /// The specification clause, RFC section or CVE behind it.
    public let reference: String
    /// The flows it applies to (all when empty).
    public let flows: Set<Flow>
    public let parameters: [Parameter]
    /// Set when the reference allows what the check looks for (a policy, not a rule): the
    /// check can only be `level: recommended`, and this says why in the reference's words.
    public let onlyRecommended: String?

    public init(_ id: String, _ category: Category, _ purpose: String, reference: String, flows: Set<Flow> = [],
                parameters: [Parameter] = [], onlyRecommended: String? = nil) {
        self.id = id
        self.category = category
        self.purpose = purpose
        self.reference = reference
        self.flows = flows
        self.parameters = parameters
        self.onlyRecommended = onlyRecommended
    }

    public func applies(to flow: Flow) -> Bool { flows.isEmpty || flows.contains(flow) }
}
