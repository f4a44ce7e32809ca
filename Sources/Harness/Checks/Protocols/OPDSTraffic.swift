import Foundation
import MockServers
import SAMLCore

/// The circulation manager's side of an OPDS SAML run: the authentication document's
/// `authenticate` links, the tokens its callback handed out, its protected requests.
enum OPDSTraffic {
    static let samlAuthType = "http://librarysimplified.org/authtype/SAML-2.0"

    /// The `authenticate` hrefs of every authentication document served.
    static func authenticateLinks(_ entries: [TrafficEntry]) -> [String] {
        var hrefs: [String] = []
        for entry in entries where entry.mock == "cm" && entry.request.path == "/authentication_document" {
            guard let body = entry.response?.body, entry.response?.status == 200,
                  let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                  let flows = object["authentication"] as? [[String: Any]] else { continue }
            for flow in flows where flow["type"] as? String == samlAuthType {
                for link in flow["links"] as? [[String: Any]] ?? [] where link["rel"] as? String == "authenticate" {
                    if let href = link["href"] as? String { hrefs.append(href) }
                }
            }
        }
        return hrefs
    }

    /// The bearer tokens the callback redirected with (`redirect_uri?access_token=…`), with the
    /// exchange that issued each.
    static func issuedTokens(_ entries: [TrafficEntry]) -> [(token: String, entry: TrafficEntry)] {
        entries.compactMap { entry in
            guard entry.mock == "cm", entry.annotations["cm.accepted"] != nil,
                  let location = entry.response?.header("Location"),
                  let query = location.split(separator: "?", maxSplits: 1).last,
                  let token = QueryParameter.parse(String(query.prefix { $0 != "#" })).first(named: "access_token")?.value
            else { return nil }
            return (token, entry)
        }
    }

    /// Whether a request is a bearer-protected circulation call: loans, borrow or fulfil.
    static func isProtected(_ entry: TrafficEntry) -> Bool {
        guard entry.mock == "cm" else { return false }
        let path = entry.request.path
        return path == "/loans" || path == "/loans/" || (path.hasPrefix("/works/") && (path.hasSuffix("/borrow") || path.contains("/fulfill/")))
    }

    /// Whether a request belongs to a fulfilment: the fulfil call or its delivery chain.
    static func isFulfilment(_ entry: TrafficEntry) -> Bool {
        entry.mock == "cm" && (entry.request.path.contains("/fulfill/") || entry.request.path.hasPrefix("/delivery/"))
    }
}
