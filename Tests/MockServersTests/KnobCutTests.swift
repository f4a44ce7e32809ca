import Foundation
import MockServers
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 17 §6: the body-cutting fault knobs (`truncated-body`, `connection-reset`) cut the
/// login page the scenario names, not the Shibboleth SSO endpoint's 302 in front of it (a
/// browser never reads a redirect's body): the 302 arrives whole, the page it leads to is cut.
@Suite struct KnobCutTests {
    /// The raw answer's status, headers (lowercased names) and body bytes.
    static func parse(_ bytes: [UInt8]) throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        let marker: [UInt8] = Array("\r\n\r\n".utf8)
        let end = try #require((0...(max(0, bytes.count - 4))).first { Array(bytes[$0..<min(bytes.count, $0 + 4)]) == marker },
                               "no end of headers in \(bytes.count) bytes")
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = try #require(Int(lines[0].split(separator: " ")[1]))
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers, Array(bytes[(end + 4)...]))
    }

    static func request(_ url: URLComponents, cookies: [String] = []) -> String {
        let target = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        return "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 0)\r\nConnection: close\r\n"
            + (cookies.isEmpty ? "" : "Cookie: \(cookies.joined(separator: "; "))\r\n") + "\r\n"
    }

    @Test(arguments: [Knob.truncatedBody, .connectionReset])
    func theRedirectArrivesWholeAndTheLoginPageIsCut(_ knob: Knob) async throws {
        try await SuiteFixture.with("shibboleth", knobs: [knob]) { suite, browser in
            let start = try await browser.get(suite.readyInfo().sp.secure)
            let ssoLocation = try #require(start.location)
            let sso = try #require(URLComponents(string: ssoLocation))

            // The SSO endpoint's 302: whole, with its Location, closed in order.
            let (redirectBytes, redirectError) = try await FaultToleranceTests.exchangeOffPool(port: try #require(sso.port), Self.request(sso))
            #expect(redirectError == 0, "the 302 was cut: errno \(redirectError)")
            let redirect = try Self.parse(redirectBytes)
            #expect(redirect.status == 302)
            let location = try #require(redirect.headers.first { $0.0 == "location" }?.1)
            let length = redirect.headers.first { $0.0 == "content-length" }.flatMap { Int($0.1) } ?? 0
            #expect(redirect.body.count == length, "the 302's body: \(redirect.body.count) of \(length) bytes")
            let ssoEntry = try #require(suite.log.entries.last { $0.mock == "idp" && $0.response?.status == 302 })
            #expect(ssoEntry.annotations["transport"] == nil)

            // The login page it leads to: cut.
            let cookies = redirect.headers.filter { $0.0 == "set-cookie" }.compactMap { $0.1.split(separator: ";").first.map(String.init) }
            let resolved = try #require(URL(string: location, relativeTo: sso.url)?.absoluteURL)
            let page = try #require(URLComponents(url: resolved, resolvingAgainstBaseURL: true))
            let (bytes, error) = try await FaultToleranceTests.exchangeOffPool(port: try #require(page.port ?? sso.port), Self.request(page, cookies: cookies))
            let entry = try #require(suite.log.entries.last)
            #expect(entry.mock == "idp" && entry.response?.status == 200, "\(entry.request.path): \(entry.response?.status ?? 0)")
            let full = try #require(entry.response).body.count
            #expect(entry.response?.bodyText.contains("j_password") == true, "the login page")
            #expect(entry.annotations["transport"] == "\(knob == .connectionReset ? "reset" : "closed") after \(full / 2) of \(full) body bytes")
            if knob == .truncatedBody {
                let answer = try Self.parse(bytes)
                #expect(answer.headers.contains { $0.0 == "content-length" && $0.1 == "\(full)" })
                #expect(answer.body.count == full / 2)
            } else {
                #expect(error == ECONNRESET)
            }
        }
    }
}
