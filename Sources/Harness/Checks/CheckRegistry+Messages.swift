extension CheckRegistry {
    /// The encoding, flow and security checks.
    static let messageChecks: [any Check] = []
}
