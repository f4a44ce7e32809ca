import Foundation
import MockServers
import SAMLCore

/// Credentials go only after a challenge for that protection space, not up front. A
/// recommendation, like its proxy twin (``NoPreemptiveProxyCredentialsCheck``): RFC 9110
/// §11.6.2 lets a user agent authenticate "usually, but not necessarily, after receiving a 401",
/// and widely used libraries send Basic up front by documented design; the loader refuses it
/// as `required` (``CheckDescriptor/onlyRecommended``). RFC 7617 §2.2 (a space covers the
/// challenged URI's directory and below); CFNetwork protection-space semantics.
struct NoPreemptiveCredentialsCheck: Check {
    static let id = "security.no-preemptive-credentials"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var challenged: [(origin: String, directory: String)] = []
        var evidence: [Evidence] = []
        for entry in MessageTraffic.clientEntries(context.entries) {
            let origin = MessageTraffic.destinationOrigin(entry)
            let path = MessageTraffic.destinationPath(entry)
            if let authorization = entry.request.header("Authorization") {
                guard challenged.contains(where: { $0.origin == origin && path.hasPrefix($0.directory) }) else {
                    let nearest = challenged.first { $0.origin == origin }
                    return .fail("#\(entry.sequence) sent Authorization to \(origin)\(path) before any 401 challenge for that space"
                                 + (nearest.map { " (the challenge of \($0.origin) covered \($0.directory) only)" } ?? ""),
                                 [MessageTraffic.evidence(entry, "credentials up front", excerpt: "Authorization: " + authorization)])
                }
                evidence.append(MessageTraffic.evidence(entry, "Authorization after a challenge"))
            }
            if entry.response?.status == 401, entry.response?.header("WWW-Authenticate") != nil {
                challenged.append((origin, Self.directory(of: path)))
            }
        }
        guard !evidence.isEmpty else { return .notApplicable("the client sent no Authorization in this run") }
        return .pass("credentials went only after a challenge for their space (\(evidence.count) request(s))", evidence)
    }

    /// RFC 7617 §2.2: "all paths at or deeper than the last symbolic element in the path
    /// field of the Request-URI".
    static func directory(of path: String) -> String {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        guard let slash = bare.lastIndex(of: "/") else { return "/" }
        return String(bare[...slash])
    }
}

/// Proxy-Authorization only after a 407 from the proxy. A recommendation: RFC 9110 §11.7.2
/// does not forbid sending credentials up front to the proxy the user configured, and curl,
/// python-requests and wget all do; but a proxy that would not have asked (or a proxy the
/// client was pointed at by the environment) then sees them needlessly.
struct NoPreemptiveProxyCredentialsCheck: Check {
    static let id = "security.no-preemptive-proxy-credentials"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var challenged = false
        var sent = 0
        for entry in MessageTraffic.clientEntries(context.entries) where entry.mock == "proxy" {
            if let value = entry.request.header("Proxy-Authorization") {
                sent += 1
                guard challenged else {
                    return .fail("#\(entry.sequence) sent Proxy-Authorization to the proxy before any 407 from it",
                                 [MessageTraffic.evidence(entry, "proxy credentials up front", excerpt: "Proxy-Authorization: " + value)])
                }
            }
            if entry.response?.status == 407 { challenged = true }
        }
        guard sent > 0 else { return .notApplicable("the client sent no Proxy-Authorization in this run") }
        return .pass("Proxy-Authorization went only after the proxy's 407 (\(sent) request(s))")
    }
}

/// Credentials and the IdP's cookies never go to another host after a redirect.
/// RFC 9110 §11.6.1; CVE-2018-1000007 (curl), CVE-2023-32681 (requests).
struct NoCredentialsToOtherHostCheck: Check {
    static let id = "security.no-credentials-to-other-host"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        // The owners of the user's credentials are the protection spaces that asked for them
        // (RFC 9110 §11.6.1): every origin that answered 401 with a challenge in this run, and
        // the IdP's ECP endpoint, which SAML ECP has the client authenticate to (saml-ecp-v2.0
        // §2.3.4; it may answer 401 first or not). Never "whoever received them first": a
        // client that sends them to the SP first and then to the IdP leaks them to the SP.
        //
        // Where the user named the protected page itself (http-basic, http-digest, a proxied
        // one), the credentials are for that origin alone: another origin a redirect leads to
        // is another protection space (RFC 9110 §11.5), and answering its challenge with them
        // hands the password to a host the user never named — what curl refuses since
        // CVE-2018-1000007 and python-requests since CVE-2023-32681.
        let named = Self.namedProtectedOrigin(context)
        let spaces = named.isEmpty ? Set(entries.compactMap { entry -> String? in
            guard entry.response?.status == 401, entry.response?.header("WWW-Authenticate") != nil else { return nil }
            return MessageTraffic.destinationOrigin(entry)
        }).union(ECPTraffic.idpRequests(context, after: -1).map(MessageTraffic.destinationOrigin)) : named
        var owners: [String: String] = [:]  // another scheme's credentials (Bearer…) → the origin they went to first
        var sent = 0
        for entry in entries {
            let origin = MessageTraffic.destinationOrigin(entry)
            guard let authorization = entry.request.header("Authorization") else { continue }
            sent += 1
            let scheme = HTTPAuthTraffic.scheme(authorization).lowercased()
            if scheme == "basic" || scheme == "digest" {
                guard spaces.contains(origin) else {
                    let asked = spaces.sorted()
                    let challenged = entries.contains { $0.sequence < entry.sequence && $0.response?.status == 401
                        && MessageTraffic.destinationOrigin($0) == origin }
                    if !named.isEmpty, challenged {
                        return .fail("#\(entry.sequence) answered the challenge of \(origin) with the credentials the user gave for \(asked.joined(separator: ", ")): another origin is another protection space",
                                     [MessageTraffic.evidence(entry, "credentials for one origin to another", excerpt: "Authorization: \(authorization)")])
                    }
                    return .fail("#\(entry.sequence) sent the user's \(scheme.capitalized) credentials to \(origin), which never asked for them"
                                 + (asked.isEmpty ? " (no server challenged in this run)" : " (only \(asked.joined(separator: ", ")) challenged)"),
                                 [MessageTraffic.evidence(entry, "credentials to a host that never challenged", excerpt: "Authorization: \(authorization)")])
                }
                continue
            }
            if let owner = owners[authorization], owner != origin, !spaces.contains(origin) {
                return .fail("the credentials sent to \(owner) went to \(origin) in #\(entry.sequence), which never asked for them",
                             [MessageTraffic.evidence(entry, "credentials to another host", excerpt: "Authorization: \(authorization)")])
            }
            owners[authorization] = owners[authorization] ?? origin
        }
        // The IdP's cookies: by host (RFC 6265 §8.5: no port isolation).
        let records = CookieTraffic.records(entries).filter { ["idp", "cas", "adfs"].contains($0.entry.mock) }
        for entry in entries {
            let host = MessageTraffic.destinationHost(entry)
            for cookie in entry.request.cookies {
                guard let record = records.last(where: { $0.entry.sequence < entry.sequence && $0.name == cookie.name && $0.value == cookie.value })
                else { continue }
                sent += 1
                if !record.applies(toHost: host, path: "/") && record.host != host {
                    return .fail("the \(record.entry.mock) cookie `\(cookie.name)` of #\(record.entry.sequence) went to the other host \(host) in #\(entry.sequence)",
                                 [MessageTraffic.evidence(entry, "IdP cookie to another host")])
                }
            }
        }
        guard sent > 0 else { return .notApplicable("the client sent no credentials or IdP cookies in this run") }
        return .pass("credentials and IdP cookies stayed with the hosts they belong to (\(sent) sent)")
    }
}

extension NoCredentialsToOtherHostCheck {
    /// The origin the user gave the credentials for, when the start URL is an HTTP-auth
    /// protected page (http-basic, http-digest, a proxied one): sending them there unasked is
    /// preemptive (security.no-preemptive-credentials), not a leak to another host. In the
    /// SAML flows the start URL is the SP's, which the credentials are never for.
    static func namedProtectedOrigin(_ context: CheckContext) -> Set<String> {
        guard let start = URLParts(context.target.start) else { return [] }
        // Known from the scenario even when no request reached it (a proxy that refused
        // every request with 407): the HTTP-auth flows start at the protected page.
        if MessageTraffic.startsAtProtectedPage(context.scenario) { return [start.origin] }
        guard MessageTraffic.receivers(context.entries)[start.origin] == "auth" else { return [] }
        return [start.origin]
    }
}

/// An https→http redirect is refused rather than followed with credentials or tokens.
/// RFC 6797 §12.1; OWASP ASVS 9.1.1.
struct NoHTTPSDowngradeCheck: Check {
    static let id = "security.no-https-downgrade"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        var secure = 0
        for (index, entry) in entries.enumerated() {
            let from = MessageTraffic.destination(entry)
            guard let location = MessageTraffic.redirectLocation(entry) else { continue }
            let wasSecure = from.lowercased().hasPrefix("https://") || URLParts(entry.request.header("Referer") ?? "")?.scheme == "https"
                || (context.target.start.lowercased().hasPrefix("https://") && index == 0)
            guard wasSecure || location.lowercased().hasPrefix("https://") else { continue }
            secure += 1
            guard wasSecure, location.lowercased().hasPrefix("http://"),
                  let follow = entries[(index + 1)...].first(where: { MessageTraffic.requested($0, location) }) else { continue }
            // RFC 6797 §8.1.1: an IP-literal host is never a Known HSTS Host, so following the
            // redirect is no HSTS failure there; only what went over http is judged — a
            // cookie the server marked Secure (RFC 6265 §5.4), Authorization, a token.
            if let host = URLParts(location)?.host, Self.isIPLiteral(host) {
                let secureNames = Set(CookieTraffic.records(Array(entries[...index])).filter(\.secure).map(\.name))
                let leaked = follow.request.cookies.filter { secureNames.contains($0.name) }.map(\.name)
                if follow.request.header("Authorization") != nil || !leaked.isEmpty {
                    return .fail("the https→http redirect of #\(entry.sequence) was followed in #\(follow.sequence) with \(leaked.isEmpty ? "Authorization" : "the Secure cookie(s) \(leaked.joined(separator: ", "))")",
                                 [MessageTraffic.evidence(entry, "downgrading redirect", excerpt: location), MessageTraffic.evidence(follow, "followed over http")])
                }
                continue
            }
            let carried = ["Authorization", "Cookie"].filter { follow.request.header($0) != nil }
            if !carried.isEmpty || follow.request.query.contains(where: { ["access_token", "ticket"].contains($0.name) }) {
                return .fail("the https→http redirect of #\(entry.sequence) was followed in #\(follow.sequence) with \(carried.isEmpty ? "a token in the URL" : carried.joined(separator: " and "))",
                             [MessageTraffic.evidence(entry, "downgrading redirect", excerpt: location), MessageTraffic.evidence(follow, "followed over http")])
            }
        }
        guard secure > 0 else { return .notApplicable("no https URL took part in this run (the mocks serve http on loopback)") }
        return .pass("no https→http redirect was followed with credentials or tokens")
    }
}

extension NoHTTPSDowngradeCheck {
    /// An IPv4 or IPv6 literal (`127.0.0.1`, `[::1]`): RFC 6797 §8.1.1 keeps it out of HSTS.
    static func isIPLiteral(_ host: String) -> Bool {
        if host.hasPrefix("[") || host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// Passwords, tickets and tokens never travel in a URL where the protocol does not put them.
/// RFC 9110 §4.2.4 (userinfo deprecated); OWASP ASVS 3.1.1.
struct NoCredentialsInURLCheck: Check {
    static let id = "security.no-credentials-in-url"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = MessageTraffic.clientEntries(context.entries)
        let password = Credentials(context).password
        let tokens = entries.compactMap { entry -> String? in
            guard let location = entry.response?.header("Location") else { return nil }
            return URLParts(MessageTraffic.resolve(location, against: MessageTraffic.destination(entry)))?.query.first(named: "access_token")?.value
        }
        var sentSecrets = 0
        for entry in entries {
            if let userinfo = entry.request.target.range(of: "://"),
               entry.request.target[userinfo.upperBound...].prefix(while: { $0 != "/" }).contains("@") {
                return .fail("#\(entry.sequence) carries userinfo credentials in its URL", [MessageTraffic.evidence(entry, "user:password@ in the URL")])
            }
            if let forms = password.flatMap(SecretForms.init), forms.find(in: entry) != nil {
                sentSecrets += 1
                // The URL on its own: a request may carry the password in Basic and its query.
                if let found = forms.findInURL(entry) {
                    return .fail("the password travels in \(found.place) of #\(entry.sequence) (\(found.encoding))",
                                 [MessageTraffic.evidence(entry, "password in the URL", excerpt: entry.request.path)])
                }
            }
            for token in tokens where token.count >= 8 {
                if entry.request.header("Authorization")?.contains(token) == true { sentSecrets += 1 }
                if entry.request.target.contains(token) || (entry.request.queryValue("access_token") == token) {
                    return .fail("the bearer token travels in the URL of #\(entry.sequence)", [MessageTraffic.evidence(entry, "token in the URL")])
                }
            }
        }
        guard sentSecrets > 0 else { return .notApplicable("the client sent no password or token in this run") }
        return .pass("\(sentSecrets) credential-bearing request(s), none with the secret in its URL")
    }
}

/// The password goes to the IdP (or the challenging server) only, never to the SP or the
/// application. SAML 2.0 Profiles §4.1 (the SP never sees credentials).
struct PasswordOnlyToIdPCheck: Check {
    static let id = "security.password-only-to-idp"
    static let credentialServers: Set<String> = ["idp", "auth", "cas", "adfs", "proxy"]

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        guard let password = Credentials(context).password, password.utf8.count >= 3 else {
            return .notApplicable("the scenario gives the client no password to look for")
        }
        guard let forms = SecretForms(password) else {
            return .notApplicable("the scenario gives the client no password to look for")
        }
        let entries = MessageTraffic.clientEntries(context.entries)
        var receivers = MessageTraffic.receivers(context.entries)
        // The HTTP-auth page the scenario starts at is the login server for its password, even
        // when the proxy let nothing through to it.
        if MessageTraffic.startsAtProtectedPage(context.scenario), let start = URLParts(context.target.start),
           receivers[start.origin] == nil {
            receivers[start.origin] = "auth"
        }
        var evidence: [Evidence] = []
        for entry in entries {
            guard let found = forms.find(in: entry) else { continue }
            // Through a proxy the receiver is the origin the request was headed for: the proxy
            // relays what it does not consume (RFC 9110 §7.6), the user's password included.
            // The proxy consumes Proxy-Authorization (RFC 9110 §11.7.2); a password there went
            // to the proxy, whatever origin the request was headed for.
            let proxied = MessageTraffic.isProxied(entry)
            let receiver = found.place.contains("Proxy-Authorization") ? entry.mock
                : proxied ? (receivers[MessageTraffic.destinationOrigin(entry)] ?? "origin behind the proxy")
                : (receivers[MessageTraffic.destinationOrigin(entry)] ?? entry.mock)
            // The CAS mock serves its protected application on the same listener (`/app/`):
            // that is the application, not the login server.
            let app = receiver == "cas" && MessageTraffic.destinationPath(entry).hasPrefix(CASServer.Path.app)
            let how = "\(found.place), \(found.encoding)" + (proxied ? ", through the proxy" : "")
            if app {
                return .fail("the password went to the CAS-protected application in #\(entry.sequence) (\(how))",
                             [MessageTraffic.evidence(entry, "password in \(how)")])
            }
            guard Self.credentialServers.contains(receiver) else {
                return .fail("the password went to the \(receiver) in #\(entry.sequence) (\(how))",
                             [MessageTraffic.evidence(entry, "password in \(how)")])
            }
            evidence.append(MessageTraffic.evidence(entry, "password to the \(receiver) in \(how)"))
        }
        guard !evidence.isEmpty else {
            return .notApplicable("the client never sent the password in this run (looked for in every encoding: "
                                  + forms.forms.map(\.encoding).joined(separator: ", ") + "; raw, percent-encoded, XML-escaped, inside Basic)")
        }
        return .pass("the password went only to the login server (\(evidence.count) time(s))", evidence)
    }
}

/// Proxy-Authorization goes to the proxy that asked, never to the origin server.
/// RFC 9110 §11.7.2.
struct ProxyCredentialsOnlyToProxyCheck: Check {
    static let id = "security.proxy-credentials-only-to-proxy"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var toProxy = 0
        // The proxy's credentials put into the origin's Authorization are sent to the origin
        // just the same (the confusion proxy.basic-origin describes).
        if let forms = context.target.parameters["PROXY_PASSWORD"].flatMap(SecretForms.init) {
            for entry in MessageTraffic.clientEntries(context.entries) {
                guard let basic = Credentials.basicCredentials(entry.request.header("Authorization")),
                      forms.encoding(of: basic.password) != nil || forms.forms.contains(where: { SecretForms.contains(basic.password, $0.bytes) })
                else { continue }
                let origin = MessageTraffic.destinationOrigin(entry)
                return .fail("#\(entry.sequence) sent the proxy's password in the Authorization meant for the origin \(origin)",
                             [MessageTraffic.evidence(entry, "proxy credentials in the origin's Authorization")])
            }
        }
        for entry in MessageTraffic.clientEntries(context.entries) where entry.request.header("Proxy-Authorization") != nil {
            guard entry.mock == "proxy" else {
                return .fail("#\(entry.sequence) sent Proxy-Authorization straight to the \(entry.mock) origin",
                             [MessageTraffic.evidence(entry, "proxy credentials to the origin")])
            }
            toProxy += 1
        }
        guard toProxy > 0 else { return .notApplicable("the client sent no Proxy-Authorization in this run") }
        return .pass("Proxy-Authorization went only to the proxy (\(toProxy) request(s))")
    }
}
