import TestSupport
import Foundation
import MockServers
import SAMLCore
import Testing

/// Helpers for the CAS tests: the REST login, ticket validation requests, reading answers.
enum CASFixture {
    static func enc(_ value: String) -> String { PercentEncoding.queryComponentEncode(value) }

    /// `POST /cas/v1/tickets` → the TGT URL (the `Location`).
    static func ticketGrantingTicket(_ suite: MockSuite, _ browser: TestBrowser, user: String = "alice",
                                     password: String? = nil) async throws -> String {
        let account = SuiteFixture.user(suite, user)
        let page = try await browser.post(suite.readyInfo().cas.tickets,
                                          form: QueryParameter.formEncoded([("username", account.username),
                                                                            ("password", password ?? account.password)]))
        #expect(page.status == 201, "\(page.body)")
        return try #require(page.location)
    }

    /// `POST <TGT URL>` with `service` → the service ticket.
    static func serviceTicket(_ browser: TestBrowser, tgt: String, service: String) async throws -> String {
        let page = try await browser.post(tgt, form: QueryParameter.formEncoded([("service", service)]))
        #expect(page.status == 200, "\(page.body)")
        return page.body
    }

    /// A fresh service ticket for `service` through REST.
    static func restTicket(_ suite: MockSuite, _ browser: TestBrowser, service: String? = nil, user: String = "alice") async throws -> String {
        let tgt = try await ticketGrantingTicket(suite, browser, user: user)
        return try await serviceTicket(browser, tgt: tgt, service: service ?? suite.readyInfo().cas.service)
    }

    /// GET `endpoint?ticket=…&service=…` plus `extra` query parameters.
    static func validate(_ browser: TestBrowser, _ endpoint: String, ticket: String, service: String,
                         extra: String = "") async throws -> TestBrowser.Page {
        try await browser.get(endpoint + "?ticket=" + enc(ticket) + "&service=" + enc(service) + extra)
    }

    /// The parsed `cas:serviceResponse`.
    struct ServiceResponse {
        let document: XMLDocument
        static let ns = "http://www.yale.edu/tp/cas"

        init(_ page: TestBrowser.Page) throws {
            document = try XMLDocument(parsing: page.body)
            #expect(document.root.is("serviceResponse", Self.ns))
        }

        var user: String? { document.root.descendants("user", Self.ns).first?.text }
        var failureCode: String? { document.root.descendants("authenticationFailure", Self.ns).first?.attribute("code") }
        var failureText: String? { document.root.descendants("authenticationFailure", Self.ns).first?.text }
        var hasAttributes: Bool { !document.root.descendants("attributes", Self.ns).isEmpty }
        var proxyGrantingTicket: String? { document.root.descendants("proxyGrantingTicket", Self.ns).first?.text }

        func values(_ attribute: String) -> [String] {
            guard let attributes = document.root.descendants("attributes", Self.ns).first else { return [] }
            return attributes.children(attribute, Self.ns).map(\.text)
        }

        func text(_ element: String) -> [String] { document.root.descendants(element, Self.ns).map(\.text) }
    }

    /// The traffic entry of the last request to `path`.
    static func lastEntry(_ suite: MockSuite, path: String) -> TrafficEntry? {
        suite.log.entries.last { $0.mock == "cas" && $0.request.path == path }
    }
}
