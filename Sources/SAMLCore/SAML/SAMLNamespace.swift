/// Namespace URIs of SAML 2.0 and the specifications it builds on.
public enum SAMLNamespace {
    /// saml-core-2.0-os §2: assertions (`saml:`).
    public static let assertion = "urn:oasis:names:tc:SAML:2.0:assertion"
    /// saml-core-2.0-os §3: protocol messages (`samlp:`).
    public static let protocol_ = "urn:oasis:names:tc:SAML:2.0:protocol"
    /// saml-metadata-2.0-os (`md:`).
    public static let metadata = "urn:oasis:names:tc:SAML:2.0:metadata"
    /// XML-DSig (`ds:`).
    public static let dsig = "http://www.w3.org/2000/09/xmldsig#"
    /// XML-Enc (`xenc:`).
    public static let xenc = "http://www.w3.org/2001/04/xmlenc#"
    /// XML-Enc 1.1 (`xenc11:`), for AES-GCM and the newer key transport URIs.
    public static let xenc11 = "http://www.w3.org/2009/xmlenc11#"
    /// XML Schema instance (`xsi:`), for typed attribute values.
    public static let xsi = "http://www.w3.org/2001/XMLSchema-instance"
    /// XML Schema (`xs:`).
    public static let xs = "http://www.w3.org/2001/XMLSchema"
    /// SOAP 1.1 envelope (`SOAP-ENV:`), used by the SAML SOAP binding and ECP.
    public static let soap11 = "http://schemas.xmlsoap.org/soap/envelope/"
    /// SAML ECP profile (`ecp:`), saml-ecp-v2.0-cs01.
    public static let ecp = "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp"
    /// Liberty PAOS binding (`paos:`).
    public static let paos = "urn:liberty:paos:2003-08"
    /// SAML 1.1 assertion (AD FS, CAS samlValidate).
    public static let assertion11 = "urn:oasis:names:tc:SAML:1.0:assertion"
    /// SAML 1.1 protocol.
    public static let protocol11 = "urn:oasis:names:tc:SAML:1.0:protocol"
}

/// Binding URIs, saml-bindings-2.0-os.
public enum SAMLBindingURI {
    public static let httpRedirect = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
    public static let httpPost = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
    public static let soap = "urn:oasis:names:tc:SAML:2.0:bindings:SOAP"
    public static let paos = "urn:oasis:names:tc:SAML:2.0:bindings:PAOS"
    public static let httpArtifact = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact"
}
