import Foundation
import MockServers

/// How the HTTP-authentication checks read the traffic: which exchanges are challenges, which
/// protection space a request belongs to, and the credentials it carried.
enum HTTPAuthTraffic {
    /// A protection space as the traffic shows it (RFC 9110 §11.5: realm + canonical root URI).
    struct Space: Hashable, CustomStringConvertible {
        /// `proxy` for the forward proxy's own space, else the origin server's mock.
        var mock: String
        var origin: String
        /// The realm (HTTP-auth mock), or the path that challenged (other mocks).
        var scope: String

        var isProxy: Bool { mock == "proxy" }
        var description: String { isProxy ? "proxy \(origin)" : "\(origin) \(scope)" }
    }

    /// The space a request is in: the proxy's for proxy exchanges; the annotated realm for the
    /// HTTP-auth mock; the path for any other origin (an IdP's Basic-protected endpoint).
    static func space(of entry: TrafficEntry) -> Space? {
        switch entry.mock {
        case "proxy":
            return Space(mock: "proxy", origin: entry.request.origin, scope: "")
        case "auth":
            guard let realm = entry.annotations[HTTPAuthResult.Key.realm] else { return nil }
            // The host the client asked for (`localhost:PORT`), not the listening address.
            return Space(mock: "auth", origin: MessageTraffic.destinationOrigin(entry), scope: "realm \"\(realm)\"")
        default:
            return Space(mock: entry.mock, origin: MessageTraffic.destinationOrigin(entry), scope: entry.request.path)
        }
    }

    /// The challenge fields of an answer: `Proxy-Authenticate` of a 407 from the proxy,
    /// `WWW-Authenticate` of a 401 from an origin (a 401 the proxy relays is the origin's,
    /// judged at the origin's own exchange). Empty when the answer is no challenge.
    static func challenges(_ entry: TrafficEntry) -> [String] {
        guard let response = entry.response else { return [] }
        if entry.mock == "proxy" {
            return response.status == 407 ? response.headers(named: "Proxy-Authenticate") : []
        }
        return response.status == 401 ? response.headers(named: "WWW-Authenticate") : []
    }

    /// The credentials field of a request for its space.
    static func credentials(_ entry: TrafficEntry) -> String? {
        entry.request.header(entry.mock == "proxy" ? "Proxy-Authorization" : "Authorization")
    }

    /// The credentials of `entry` as a header line (`Authorization: Basic …`): evidence quotes
    /// them with the field's name, which the report's masking keys on.
    static func credentialLine(_ entry: TrafficEntry) -> String? {
        let name = entry.mock == "proxy" ? "Proxy-Authorization" : "Authorization"
        return entry.request.header(name).map { "\(name): \($0)" }
    }

    /// The auth-scheme token a field starts with.
    static func scheme(_ field: String) -> String {
        String(field.drop { $0 == " " }.prefix { $0 != " " && $0 != "," })
    }

    /// Whether the server refused the credentials as wrong (not merely stale or missing).
    static func refusedAsWrong(_ entry: TrafficEntry) -> Bool {
        guard credentials(entry) != nil, !challenges(entry).isEmpty else { return false }
        if entry.mock == "proxy" { return true }
        if let result = entry.annotations[HTTPAuthResult.Key.result] {
            return result == HTTPAuthResult.wrongCredentials.rawValue
        }
        return entry.annotations["idp.login"] == "bad-password" || entry.annotations["idp.login"] == nil
    }

    /// Whether the exchange authenticated: the mock accepted the credentials it carried.
    static func succeeded(_ entry: TrafficEntry) -> Bool {
        guard credentials(entry) != nil else { return false }
        switch entry.mock {
        case "proxy": return entry.annotations[ForwardProxyMock.Key.result] == ForwardProxyMock.Result.forwarded.rawValue
        case "auth": return entry.annotations[HTTPAuthResult.Key.result] == HTTPAuthResult.ok.rawValue
        default: return entry.annotations["idp.login"] == "ok"
        }
    }

    /// A Digest challenge's parameters (RFC 7616 §3.3), or nil for another scheme.
    static func digestChallenge(_ field: String) -> AuthParameters? {
        guard let parsed = try? AuthParameters.parse(field, expectToken68: false), parsed.isScheme("Digest") else { return nil }
        return parsed
    }
}
