import AsyncHTTPClient
import Foundation
import MockServers
import NIOCore
import NIOHTTP1
import SAMLCore

/// One virtual user's complete Web SSO login through the mocks, over loopback HTTP: the SP's
/// redirect, the IdP's flow redirect, the login form, consent, the auto-post to the ACS and
/// the protected page, with its own cookie jar. Used by `samlharness load`.
struct LoadDriver: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Outcome: Sendable {
        let requests: Int
        let seconds: Double
        let secret: String
    }

    let client: HTTPClient
    let secureURL: String
    let user: TestUser

    final class Jar: @unchecked Sendable {
        var cookies: [String: [String: String]] = [:]  // host → name → value
    }

    func login() async throws -> Outcome {
        let started = ContinuousClock.now
        let jar = Jar()
        var requests = 0
        func send(_ method: HTTPMethod, _ url: String, form: String? = nil) async throws -> (Int, [(String, String)], String) {
            requests += 1
            var request = HTTPClientRequest(url: url)
            request.method = method
            let host = URLComponents(string: url).map { "\($0.host ?? ""):\($0.port ?? 80)" } ?? ""
            if let cookies = jar.cookies[host], !cookies.isEmpty {
                request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
            }
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: form))
            }
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = String(buffer: try await response.body.collect(upTo: 16 << 20))
            for value in response.headers["Set-Cookie"] {
                let pair = value.split(separator: ";").first.map(String.init) ?? ""
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let name = String(pair[..<eq])
                if value.contains("Max-Age=0") {
                    jar.cookies[host]?[name] = nil
                } else {
                    jar.cookies[host, default: [:]][name] = String(pair[pair.index(after: eq)...])
                }
            }
            return (Int(response.status.code), response.headers.map { ($0.name, $0.value) }, body)
        }
        func location(_ headers: [(String, String)], base: String) throws -> String {
            guard let value = headers.first(where: { $0.0.lowercased() == "location" })?.1 else {
                throw Failure(description: "a redirect without Location from \(base)")
            }
            return URL(string: value, relativeTo: URL(string: base))?.absoluteString ?? value
        }
        var url = secureURL
        var (status, headers, body) = try await send(.GET, url)
        for _ in 0..<12 {
            if [301, 302, 303].contains(status) {
                url = try location(headers, base: url)
                (status, headers, body) = try await send(.GET, url)
                continue
            }
            guard status == 200 else { throw Failure(description: "\(url) answered \(status)") }
            guard let form = HTMLFormParser.forms(in: body).first else {
                guard let secret = Self.secret(in: body) else { throw Failure(description: "no form and no secret at \(url)") }
                return Outcome(requests: requests, seconds: seconds(ContinuousClock.now - started), secret: secret)
            }
            var pairs = form.fields.filter { !["submit", "button", "radio", "checkbox"].contains($0.type) }.map { ($0.name, $0.value) }
            if form.value("j_password") != nil || form.fields.contains(where: { $0.name == "j_password" }) {
                pairs = pairs.filter { $0.0 != "j_username" && $0.0 != "j_password" }
                pairs += [("j_username", user.username), ("j_password", user.password), ("_eventId_proceed", "")]
            } else if body.contains("_shib_idp_consentIds") {
                pairs += [("_shib_idp_consentOptions", "_shib_idp_doNotRememberConsent"), ("_eventId_proceed", "Accept")]
            }
            let action = URL(string: form.action ?? url, relativeTo: URL(string: url))?.absoluteString ?? url
            url = action
            (status, headers, body) = try await send(.POST, action, form: QueryParameter.formEncoded(pairs))
        }
        throw Failure(description: "the login did not end after 12 pages (last: \(url))")
    }

    static func secret(in body: String) -> String? {
        guard let range = body.range(of: "SECRET-") else { return nil }
        return String(body[range.lowerBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" })
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
