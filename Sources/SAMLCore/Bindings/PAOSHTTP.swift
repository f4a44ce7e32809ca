/// The HTTP headers of the PAOS binding as the SAML ECP profile uses them
/// (saml-ecp-v2.0-cs01 §2.3.1; SAML 2.0 profiles §4.2.3.1).
///
/// An ECP client advertises itself on its first request to the SP with ``accept`` and
/// ``paosHeader``; the SP then answers a PAOS request envelope with ``contentType``.
public enum PAOSHTTP {
    /// The `PAOS` request header name.
    public static let paosHeaderName = "PAOS"
    /// `PAOS: ver="urn:liberty:paos:2003-08";"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp"`.
    public static let paosHeader = "ver=\"\(SAMLNamespace.paos)\";\"\(SAMLNamespace.ecp)\""
    /// The `Accept` value an ECP client sends: `text/html; application/vnd.paos+xml`.
    public static let accept = "text/html; application/vnd.paos+xml"
    /// The media type of PAOS messages, both directions.
    public static let contentType = "application/vnd.paos+xml"

    /// True when a request's `Accept` and `PAOS` headers announce an ECP client: the Accept
    /// value lists `application/vnd.paos+xml`, and the PAOS header names the PAOS version and
    /// the ECP service (SAML 2.0 profiles §4.2.3.1).
    public static func announcesECP(accept: String?, paos: String?) -> Bool {
        guard let accept, let paos else { return false }
        let acceptsPAOS = accept.split(whereSeparator: { $0 == "," || $0 == ";" })
            .contains(where: { String($0).trimmed.lowercased() == contentType })
        return acceptsPAOS && paos.contains("ver=\"\(SAMLNamespace.paos)\"") && paos.contains("\"\(SAMLNamespace.ecp)\"")
    }
}
