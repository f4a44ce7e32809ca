/// Authentication context class URIs, saml-authn-context-2.0-os §3.4.
public enum AuthnContextClass {
    public static let unspecified = "urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified"
    public static let password = "urn:oasis:names:tc:SAML:2.0:ac:classes:Password"
    public static let passwordProtectedTransport = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
    public static let x509 = "urn:oasis:names:tc:SAML:2.0:ac:classes:X509"
    public static let kerberos = "urn:oasis:names:tc:SAML:2.0:ac:classes:Kerberos"
    public static let tlsClient = "urn:oasis:names:tc:SAML:2.0:ac:classes:TLSClient"
    public static let previousSession = "urn:oasis:names:tc:SAML:2.0:ac:classes:PreviousSession"
    /// What AD FS sends after Windows Integrated Authentication.
    public static let windows = "urn:federation:authentication:windows"
}
