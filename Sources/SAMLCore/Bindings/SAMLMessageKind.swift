/// Whether a binding carries a SAML request or a SAML response, which decides the form
/// field or query parameter name (saml-bindings-2.0-os §3.4.4 and §3.5.4).
public enum SAMLMessageKind: String, Sendable, Equatable, CaseIterable {
    /// `SAMLRequest`: AuthnRequest, LogoutRequest, ArtifactResolve…
    case request = "SAMLRequest"
    /// `SAMLResponse`: Response, LogoutResponse…
    case response = "SAMLResponse"

    /// The parameter / form field name.
    public var parameterName: String { rawValue }
}

/// How a binding decoder treats deviations from the strict encoding.
public enum BindingDecodingMode: Sendable, Equatable {
    /// Accept what real IdPs send and report each deviation.
    case lenient
    /// Refuse the first deviation with a ``BindingError``.
    case strict
}
