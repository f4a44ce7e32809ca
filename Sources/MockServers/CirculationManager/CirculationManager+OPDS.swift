import Foundation
import SAMLCore

/// The documents: Authentication for OPDS 1.0 and OPDS 1.2 (Atom) feeds and entries.
extension CirculationManager {
    static let authenticationDocumentType = "application/vnd.opds.authentication.v1.0+json"
    static let samlAuthType = "http://librarysimplified.org/authtype/SAML-2.0"
    static let acquisitionFeedType = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let entryType = "application/atom+xml;type=entry;profile=opds-catalog"
    static let borrowRel = "http://opds-spec.org/acquisition/borrow"
    static let acquisitionRel = "http://opds-spec.org/acquisition"
    static let shelfRel = "http://opds-spec.org/shelf"
    static let authDocumentRel = "http://opds-spec.org/auth/document"
    /// Where the harness publishes each book's SHA-256 in the feeds (`<samlh:sha256>`).
    public static let harnessNamespace = "urn:samlharness:circulation-manager"

    struct LocalizedValue: Encodable {
        let language: String
        let value: String
    }

    struct AuthLink: Encodable {
        let rel: String
        let href: String
        let display_names: [LocalizedValue]
        let descriptions: [LocalizedValue]
        let information_urls: [LocalizedValue]
        let privacy_statement_urls: [LocalizedValue]
        let logo_urls: [LocalizedValue]
    }

    struct AuthFlow: Encodable {
        let type: String
        let description: String
        let links: [AuthLink]
    }

    struct DocumentLink: Encodable {
        let rel: String
        let href: String
        let type: String
    }

    struct AuthenticationDocument: Encodable {
        let id: String
        let title: String
        let authentication: [AuthFlow]
        let links: [DocumentLink]
    }

    /// The `authenticate` link of one IdP, as `SAMLWebSSOAuthenticationProvider.
    /// _create_authenticate_url` builds it (`url_for("saml_authenticate", provider=…,
    /// idp_entity_id=…)`).
    func authenticateURL(for idp: CMIdentityProvider) -> String {
        base + Path.samlAuthenticate + "?" + QueryParameter.formEncoded([
            ("idp_entity_id", idp.entityID), ("provider", Self.providerName),
        ])
    }

    /// Authentication for OPDS 1.0 with the Library Simplified SAML flow
    /// (`_authentication_flow_document`: `display_names`, `descriptions`, `information_urls`,
    /// `privacy_statement_urls`, `logo_urls` per IdP link).
    func authenticationDocumentValue() -> AuthenticationDocument {
        let links = identityProviders.map { idp in
            AuthLink(rel: "authenticate", href: authenticateURL(for: idp),
                     display_names: [LocalizedValue(language: "en", value: idp.displayName)],
                     descriptions: [LocalizedValue(language: "en", value: idp.description)],
                     information_urls: [], privacy_statement_urls: [],
                     logo_urls: [LocalizedValue(language: "en", value: idp.logoURL)])
        }
        return AuthenticationDocument(
            id: base + Path.authenticationDocument, title: settings.title,
            authentication: [AuthFlow(type: Self.samlAuthType, description: Self.providerName, links: links)],
            links: [
                DocumentLink(rel: "start", href: base + Path.catalog, type: Self.acquisitionFeedType),
                DocumentLink(rel: Self.shelfRel, href: base + Path.loans, type: Self.acquisitionFeedType),
            ])
    }

    func authenticationDocument() -> MockResponse {
        MockResponse.json(authenticationDocumentValue(), contentType: Self.authenticationDocumentType)
    }

    /// What the real circulation manager answers a protected request without credentials
    /// (`BaseCirculationManagerController.authenticate`): 401 with the authentication
    /// document and `create_authentication_headers` — the document's media type and a `Link`
    /// to it; no `WWW-Authenticate`, which it sends only for a Basic-auth provider.
    func authenticationRequired() -> MockResponse {
        var response = MockResponse.json(authenticationDocumentValue(), status: 401, contentType: Self.authenticationDocumentType)
        response.addHeader("Link", "<\(base + Path.authenticationDocument)>; rel=\(Self.authDocumentRel)")
        return response.annotated("cm.auth", "missing")
    }

    // MARK: - OPDS 1.2 feeds

    func feed(id: String, title: String, entries: [String]) -> String {
        let x = HTMLText.self
        return """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog" \
        xmlns:dcterms="http://purl.org/dc/terms/" xmlns:simplified="http://librarysimplified.org/terms/" \
        xmlns:samlh="\(Self.harnessNamespace)">
          <id>\(x.escape(id))</id>
          <title>\(x.escape(title))</title>
          <updated>\(SAMLDateTime.string(from: SAMLDateTime.truncated(environment.clock.now())))</updated>
          <link rel="self" href="\(x.escape(id))" type="\(Self.acquisitionFeedType)"/>
          <link rel="start" href="\(x.escape(base + Path.catalog))" type="\(Self.acquisitionFeedType)"/>
          <link rel="\(Self.shelfRel)" href="\(x.escape(base + Path.loans))" type="\(Self.acquisitionFeedType)"/>
          <link rel="\(Self.authDocumentRel)" href="\(x.escape(base + Path.authenticationDocument))" type="\(Self.authenticationDocumentType)"/>
        \(entries.joined())</feed>

        """
    }

    /// One work: its borrow link (with the indirect acquisition type the loan will deliver),
    /// and, for a loan, the fulfil link with the loan's availability.
    func entry(_ book: CMBook, loan: CMLoan?, standalone: Bool = false) -> String {
        let x = HTMLText.self
        let namespaces = standalone
            ? " xmlns=\"http://www.w3.org/2005/Atom\" xmlns:opds=\"http://opds-spec.org/2010/catalog\" "
                + "xmlns:dcterms=\"http://purl.org/dc/terms/\" xmlns:samlh=\"\(Self.harnessNamespace)\""
            : ""
        var links = """
            <link rel="\(Self.borrowRel)" href="\(x.escape(base + Path.borrow(book.id)))" type="\(Self.entryType)">
              <opds:indirectAcquisition type="\(book.format.mediaType)"/>
            </link>

        """
        if let loan {
            let since = SAMLDateTime.string(from: SAMLDateTime.truncated(loan.start))
            let until = SAMLDateTime.string(from: SAMLDateTime.truncated(loan.end))
            links += """
                <link rel="\(Self.acquisitionRel)" href="\(x.escape(base + Path.fulfill(book.id, mechanism: book.format.mechanism)))" type="\(book.format.mediaType)">
                  <opds:availability status="available" since="\(since)" until="\(until)"/>
                </link>

            """
        }
        return """
          <entry\(namespaces)>
            <id>urn:samlharness:cm:work:\(x.escape(book.id))</id>
            <title>\(x.escape(book.title))</title>
            <author><name>\(x.escape(book.author))</name></author>
            <updated>2000-01-01T00:00:00Z</updated>
            <dcterms:language>en</dcterms:language>
            <summary type="text">\(x.escape(book.summary))</summary>
        \(links)    <samlh:sha256 type="\(book.format.mediaType)">\(book.sha256)</samlh:sha256>
          </entry>

        """
    }

    /// `/`: every work with its borrow link.
    func catalog() -> MockResponse {
        let body = feed(id: base + Path.catalog, title: settings.title, entries: CMBook.collection.map { entry($0, loan: nil) })
        return MockResponse.xml(body, contentType: Self.acquisitionFeedType)
    }
}
