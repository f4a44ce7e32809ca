extension CheckRegistry {
    /// The HTTP-auth, ECP, CAS, WS-Trust, AD FS and OPDS checks.
    static let protocolChecks: [any Check] = []
}
