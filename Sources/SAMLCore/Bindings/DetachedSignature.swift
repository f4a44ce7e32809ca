/// Signs the exact octets of an HTTP-Redirect binding query
/// (`SAMLRequest=…&RelayState=…&SigAlg=…`, saml-bindings-2.0-os §3.4.4.1).
/// Implemented in DSig by ``RedirectSigner``; a protocol so bindings stay free of key types.
public protocol DetachedSigner: Sendable {
    /// The `SigAlg` URI (e.g. `http://www.w3.org/2001/04/xmldsig-more#rsa-sha256`).
    var algorithmURI: String { get }
    /// The signature over `octets`, raw bytes (the binding base64-encodes them).
    func sign(_ octets: [UInt8]) throws -> [UInt8]
}

/// Verifies a detached HTTP-Redirect signature against a trusted key.
public protocol DetachedVerifier: Sendable {
    /// True when `signature` over `octets` verifies with `algorithmURI`; throws when the
    /// algorithm is not allowed or not known.
    func verify(_ signature: [UInt8], over octets: [UInt8], algorithmURI: String) throws -> Bool
}
