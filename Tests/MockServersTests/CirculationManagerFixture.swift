import TestSupport
import AsyncHTTPClient
import Foundation
import MockServers
import NIOCore
import NIOHTTP1
import SAMLCore

/// Drives the mock circulation manager as a SimplyE client would, for the tests.
enum CirculationManagerFixture {
    static let redirectURI = "simplified-saml20://authenticated"
    static let credentialsInvalid = "http://librarysimplified.org/terms/problem/credentials-invalid"

    struct Login {
        let token: String
        let patronInfo: String?
        /// The circulation manager's final redirect (not followed).
        let location: String
    }

    /// The authentication document, parsed.
    static func authenticationDocument(_ suite: MockSuite, _ browser: TestBrowser) async throws -> [String: Any] {
        let page = try await browser.get(suite.readyInfo().cm.authenticationDocument)
        return try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any] ?? [:]
    }

    /// The `authenticate` hrefs of the SAML auth type, in order.
    static func authenticateLinks(_ document: [String: Any]) -> [String] {
        let flows = document["authentication"] as? [[String: Any]] ?? []
        let saml = flows.first { $0["type"] as? String == "http://librarysimplified.org/authtype/SAML-2.0" }
        return (saml?["links"] as? [[String: Any]] ?? []).filter { $0["rel"] as? String == "authenticate" }
            .compactMap { $0["href"] as? String }
    }

    /// `href&redirect_uri=…` for the IdP at `index` of the document.
    static func startURL(_ suite: MockSuite, _ browser: TestBrowser, idpIndex: Int = 0,
                         redirectURI: String = redirectURI) async throws -> String {
        let links = authenticateLinks(try await authenticationDocument(suite, browser))
        guard links.indices.contains(idpIndex) else { throw BrowserError("no authenticate link #\(idpIndex): \(links)") }
        return links[idpIndex] + "&redirect_uri=" + PercentEncoding.formEncode(redirectURI)
    }

    /// A whole login through the mock IdP (password form, consent); returns the token from
    /// the circulation manager's redirect to `redirect_uri`.
    static func login(_ suite: MockSuite, _ browser: TestBrowser, user: String = "alice") async throws -> Login {
        let start = try await browser.get(try await startURL(suite, browser))
        let answer = try await SuiteFixture.completeLogin(browser, from: start, user: SuiteFixture.user(suite, user))
        return try token(from: answer)
    }

    static func token(from answer: TestBrowser.Page) throws -> Login {
        guard answer.status == 302, let location = answer.location, location.hasPrefix(redirectURI) else {
            throw BrowserError("the callback did not redirect to redirect_uri: \(answer.status) \(answer.location ?? "") \(answer.body.prefix(400))")
        }
        let query = QueryParameter.parse(String(location.split(separator: "?", maxSplits: 1).last ?? ""))
        guard let token = query.first(named: "access_token")?.value else { throw BrowserError("no access_token in \(location)") }
        return Login(token: token, patronInfo: query.first(named: "patron_info")?.value, location: location)
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer " + token)] }

    /// A request whose body is kept as bytes (the browser's pages are text), with the
    /// browser's cookies for that host; redirects not followed.
    static func raw(_ browser: TestBrowser, _ url: String, method: String = "GET",
                    headers: [(String, String)] = []) async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let parsed = URLComponents(string: url)
        let host = "\(parsed?.host ?? ""):\(parsed?.port ?? 80)"
        let path = parsed?.percentEncodedPath ?? "/"
        let cookies = browser.cookies.filter { $0.host == host && path.hasPrefix($0.path) }
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")) }
        let response = try await browser.client.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), response.headers, Array(buffer.readableBytesView))
    }

    static func sha256(_ bytes: [UInt8]) -> String { MessageDigest.sha256.hex(bytes) }

    /// The JSON object of a body.
    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The last traffic-log entry of the circulation manager for a path.
    static func lastEntry(_ suite: MockSuite, path: String) -> TrafficEntry? {
        suite.log.entries.last { $0.mock == "cm" && $0.request.path == path }
    }
}
