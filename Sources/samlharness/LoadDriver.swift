import Foundation
import MockServers
import NIOCore
import NIOHTTP1
import SAMLCore

/// One virtual user's complete login through the mocks, over loopback HTTP, with its own
/// cookie jar. Used by `samlharness load`.
/// - Web SSO: the SP's redirect, the IdP's flow redirect, the login form, consent, the
///   auto-post to the ACS and the protected page (its per-session secret).
/// - ECP: the PAOS request from the SP, the SOAP AuthnRequest to the IdP with HTTP Basic, the
///   Response posted to the SP's ECP consumer, the protected page.
/// - CAS REST: a TGT, a service ticket, its validation (the CAS user must come back).
/// - HTTP Basic: the challenge, the answer, the page's secret.
struct LoadDriver: Sendable {
    enum Flow: String, CaseIterable, Sendable, Codable {
        case webSSO = "web-sso"
        case ecp
        case casREST = "cas-rest"
        case httpBasic = "http-basic"
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Outcome: Sendable {
        let requests: Int
        let seconds: Double
        let secret: String
    }

    /// What one login of a load run ended with, and which flow it was.
    struct Finished: Sendable {
        let flow: Flow
        let result: Result<Outcome, any Error>
    }

    let client: LoadHTTPClient
    let flow: Flow
    let ready: ReadyInfo
    let user: TestUser
    var secureURL: String { ready.sp.secure }

    final class Jar: @unchecked Sendable {
        var cookies: [String: [String: String]] = [:]  // host → name → value
    }

    func login() async throws -> Outcome {
        switch flow {
        case .webSSO: try await webSSOLogin()
        case .ecp: try await ecpLogin()
        case .casREST: try await casRESTLogin()
        case .httpBasic: try await basicLogin()
        }
    }

    /// One login's HTTP: a cookie jar, a request count, redirects not followed.
    final class Session: @unchecked Sendable {
        let client: LoadHTTPClient
        let jar = Jar()
        var requests = 0

        init(client: LoadHTTPClient) {
            self.client = client
        }

        func send(_ method: HTTPMethod, _ url: String, body: String? = nil, contentType: String = "application/x-www-form-urlencoded",
                  headers extra: [(String, String)] = []) async throws -> (Int, [(String, String)], String) {
            requests += 1
            var headers: [(String, String)] = []
            let endpoint = try LoadHTTPClient.split(url)
            let host = endpoint.authority
            if let cookies = jar.cookies[host], !cookies.isEmpty {
                headers.append(("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")))
            }
            headers += extra
            if body != nil { headers.append(("Content-Type", contentType)) }
            // At most 16 MiB of body (the client's limit).
            let response = try await client.execute(method, endpoint, headers: headers, body: body.map { Array($0.utf8) })
            for (name, value) in response.headers where name.lowercased() == "set-cookie" {
                let pair = value.split(separator: ";").first.map(String.init) ?? ""
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let name = String(pair[..<eq])
                if LoadDriver.find("Max-Age=0", in: value) != nil {
                    jar.cookies[host]?[name] = nil
                } else {
                    jar.cookies[host, default: [:]][name] = String(pair[pair.index(after: eq)...])
                }
            }
            return (response.status, response.headers, String(buffer: response.body))
        }
    }

    func webSSOLogin() async throws -> Outcome {
        let started = ContinuousClock.now
        let session = Session(client: client)
        func send(_ method: HTTPMethod, _ url: String, form: String? = nil) async throws -> (Int, [(String, String)], String) {
            try await session.send(method, url, body: form)
        }
        var requests: Int { session.requests }
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
            if let password = form.fields.first(where: { $0.type == "password" })?.name {
                // A login form, whichever product drew it: the password field by its type, the
                // user name in the first text field before it (Shibboleth's j_username,
                // SimpleSAMLphp's username, AD FS's UserName, CAS's username).
                let fieldsBefore = form.fields.prefix { $0.name != password }
                let username = fieldsBefore.last { ["text", "email"].contains($0.type) }?.name ?? "username"
                pairs = pairs.filter { $0.0 != username && $0.0 != password }
                pairs += [(username, user.username), (password, user.password)]
                if password == "j_password" { pairs.append(("_eventId_proceed", "")) }
            } else if form.fields.contains(where: { $0.name == "_shib_idp_consentIds" }) {
                pairs += [("_shib_idp_consentOptions", "_shib_idp_doNotRememberConsent"), ("_eventId_proceed", "Accept")]
            }
            let action = URL(string: form.action ?? url, relativeTo: URL(string: url))?.absoluteString ?? url
            url = action
            (status, headers, body) = try await send(.POST, action, form: QueryParameter.formEncoded(pairs))
        }
        throw Failure(description: "the login did not end after 12 pages (last: \(url))")
    }

    static let paosType = "application/vnd.paos+xml"
    static let paos = "ver=\"urn:liberty:paos:2003-08\";\"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp\""

    /// saml-ecp-v2.0 §2.3: PAOS request, SOAP to the IdP, the Response to the consumer URL.
    func ecpLogin() async throws -> Outcome {
        let started = ContinuousClock.now
        let session = Session(client: client)
        let ecpHeaders = [("Accept", "text/html; \(Self.paosType)"), ("PAOS", Self.paos)]
        let (status, _, paosRequest) = try await session.send(.GET, secureURL, headers: ecpHeaders)
        guard status == 200, let authnRequest = Self.element("Body", in: paosRequest, inner: true) else {
            throw Failure(description: "ecp: the SP answered \(status) without a PAOS request")
        }
        let relayState = Self.element("RelayState", in: Self.element("Header", in: paosRequest, inner: true) ?? "", inner: false)
        let basic = "Basic " + Data("\(user.username):\(user.password)".utf8).base64EncodedString()
        let (idpStatus, _, idpAnswer) = try await session.send(.POST, ready.idp.ecp, body: Self.envelope(nil, authnRequest),
                                                               contentType: "text/xml; charset=utf-8",
                                                               headers: [("Authorization", basic)])
        guard idpStatus == 200, let response = Self.element("Body", in: idpAnswer, inner: true),
              let acs = Self.attribute("AssertionConsumerServiceURL", in: idpAnswer) else {
            throw Failure(description: "ecp: the IdP answered \(idpStatus) without a Response")
        }
        let (acsStatus, headers, _) = try await session.send(.POST, acs, body: Self.envelope(relayState, response),
                                                             contentType: Self.paosType, headers: ecpHeaders)
        var target = secureURL
        if [302, 303].contains(acsStatus), let location = headers.first(where: { $0.0.lowercased() == "location" })?.1 {
            target = URL(string: location, relativeTo: URL(string: acs))?.absoluteString ?? location
        } else if acsStatus != 200 {
            throw Failure(description: "ecp: the SP's consumer answered \(acsStatus)")
        }
        let (pageStatus, _, page) = try await session.send(.GET, target)
        guard pageStatus == 200, let secret = Self.secret(in: page) else {
            throw Failure(description: "ecp: \(target) answered \(pageStatus) without the secret")
        }
        return Outcome(requests: session.requests, seconds: seconds(ContinuousClock.now - started), secret: secret)
    }

    /// Apereo CAS REST: TGT, service ticket, CAS 3 validation.
    func casRESTLogin() async throws -> Outcome {
        let started = ContinuousClock.now
        let session = Session(client: client)
        let credentials = QueryParameter.formEncoded([("username", user.username), ("password", user.password)])
        let (status, headers, _) = try await session.send(.POST, ready.cas.tickets, body: credentials, headers: [("Accept", "text/plain")])
        guard status == 201, let tgt = headers.first(where: { $0.0.lowercased() == "location" })?.1 else {
            throw Failure(description: "cas-rest: the TGT request answered \(status)")
        }
        let service = ready.cas.service
        let (stStatus, _, ticket) = try await session.send(.POST, tgt, body: QueryParameter.formEncoded([("service", service)]))
        guard stStatus == 200, ticket.hasPrefix("ST-") else { throw Failure(description: "cas-rest: the ST request answered \(stStatus)") }
        let validate = ready.cas.p3ServiceValidate + "?" + QueryParameter.formEncoded([("service", service), ("ticket", ticket)])
        let (vStatus, _, answer) = try await session.send(.GET, validate)
        guard vStatus == 200, answer.contains("<cas:user>\(user.username)</cas:user>") else {
            throw Failure(description: "cas-rest: the validation answered \(vStatus) without the user")
        }
        return Outcome(requests: session.requests, seconds: seconds(ContinuousClock.now - started), secret: ticket)
    }

    /// RFC 7617: the challenge, then the answer in UTF-8.
    func basicLogin() async throws -> Outcome {
        let started = ContinuousClock.now
        let session = Session(client: client)
        let (status, headers, _) = try await session.send(.GET, ready.auth.basic)
        guard status == 401, headers.contains(where: { $0.0.lowercased() == "www-authenticate" }) else {
            throw Failure(description: "http-basic: no challenge (\(status))")
        }
        let basic = "Basic " + Data("\(user.username):\(user.password)".utf8).base64EncodedString()
        let (pageStatus, _, page) = try await session.send(.GET, ready.auth.basic, headers: [("Authorization", basic)])
        guard pageStatus == 200, let range = page.range(of: #"id="secret">"#) else {
            throw Failure(description: "http-basic: the answer got \(pageStatus) without the secret")
        }
        let secret = String(page[range.upperBound...].prefix { $0 != "<" })
        return Outcome(requests: session.requests, seconds: seconds(ContinuousClock.now - started), secret: secret)
    }

    static func envelope(_ header: String?, _ body: String) -> String {
        let soap = "http://schemas.xmlsoap.org/soap/envelope/"
        return "<S:Envelope xmlns:S=\"\(soap)\">" + (header.map { "<S:Header>\($0)</S:Header>" } ?? "") + "<S:Body>\(body)</S:Body></S:Envelope>"
    }

    /// The first element named `local` (any prefix): its content (`inner`) or the whole element.
    static func element(_ local: String, in xml: String, inner: Bool) -> String? {
        guard let open = xml.range(of: #"<([A-Za-z_][\w.-]*:)?"# + local + #"[\s>/]"#, options: .regularExpression) else { return nil }
        let prefix = xml[open].dropFirst().dropLast().dropLast(local.count)
        guard let openEnd = xml[open.lowerBound...].firstIndex(of: ">"),
              let close = xml.range(of: "</\(prefix)\(local)>", range: openEnd..<xml.endIndex) else { return nil }
        return inner ? String(xml[xml.index(after: openEnd)..<close.lowerBound]) : String(xml[open.lowerBound..<close.upperBound])
    }

    static func attribute(_ name: String, in xml: String) -> String? {
        guard let range = xml.range(of: name + #"=""#) else { return nil }
        return String(xml[range.upperBound...].prefix { $0 != "\"" })
    }

    static func secret(in body: String) -> String? {
        guard let start = find("SECRET-", in: body) else { return nil }
        let bytes = body.utf8[start...].prefix {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where `needle` first occurs in `haystack`, by bytes (memchr and memcmp): the load client searches
    /// every page it reads, and Foundation's `range(of:)` (UTF-16 bridging through
    /// CoreFoundation) was its largest single cost.
    static func find(_ needle: String, in haystack: String) -> String.Index? {
        var haystack = haystack
        var needle = needle
        let offset: Int? = haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard let first = n.first, n.count <= h.count else { return nil }
                var at = 0
                let last = h.count - n.count
                while at <= last {
                    // memchr to the next candidate, then compare the rest.
                    guard let base = h.baseAddress,
                          let hit = memchr(base + at, Int32(first), last - at + 1) else { return nil }
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + index, n.baseAddress!, n.count) == 0 { return index }
                    at = index + 1
                }
                return nil
            }
        }
        return offset.map { haystack.utf8.index(haystack.utf8.startIndex, offsetBy: $0) }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
