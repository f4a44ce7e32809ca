/// NameID format URIs, saml-core-2.0-os §8.3.
public enum NameIDFormat {
    /// §8.3.1.
    public static let unspecified = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"
    /// §8.3.2.
    public static let emailAddress = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
    /// §8.3.3.
    public static let x509SubjectName = "urn:oasis:names:tc:SAML:1.1:nameid-format:X509SubjectName"
    /// §8.3.4.
    public static let windowsDomainQualifiedName = "urn:oasis:names:tc:SAML:1.1:nameid-format:WindowsDomainQualifiedName"
    /// §8.3.5.
    public static let kerberos = "urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos"
    /// §8.3.6: the value is an entityID (the default Format of ``Issuer``).
    public static let entity = "urn:oasis:names:tc:SAML:2.0:nameid-format:entity"
    /// §8.3.7.
    public static let persistent = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
    /// §8.3.8.
    public static let transient = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
}
