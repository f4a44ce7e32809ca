import Foundation
import MockServers
import SAMLCore

/// The RequestSecurityTokens of an AD FS active run (WS-Trust 1.3 and Feb 2005 on the
/// `usernamemixed` endpoints), read with SAMLCore's hardened parser.
enum WSTrustTraffic {
    static let soap12 = "http://www.w3.org/2003/05/soap-envelope"
    static let addressing = ["http://www.w3.org/2005/08/addressing", "http://schemas.xmlsoap.org/ws/2004/08/addressing"]
    static let wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
    static let wsu = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
    static let policy = ["http://schemas.xmlsoap.org/ws/2004/09/policy", "http://www.w3.org/ns/ws-policy"]
    static let trust13 = "http://docs.oasis-open.org/ws-sx/ws-trust/200512"
    static let trust2005 = "http://schemas.xmlsoap.org/ws/2005/02/trust"

    /// The requests to a usernamemixed endpoint.
    static func requests(_ entries: [TrafficEntry]) -> [TrafficEntry] {
        entries.filter { entry in
            let path = entry.request.path.lowercased()
            return entry.mock == "adfs" && entry.request.method == "POST" && path.hasPrefix("/adfs/services/trust/")
                && path.hasSuffix("/usernamemixed")
        }
    }

    /// Whether the endpoint is the Feb 2005 one.
    static func is2005(_ entry: TrafficEntry) -> Bool { entry.request.path.lowercased().contains("/2005/") }

    /// The `wsa:Action` an RST to this endpoint carries.
    static func issueAction(_ entry: TrafficEntry) -> String {
        is2005(entry) ? trust2005 + "/RST/Issue" : trust13 + "/RST/Issue"
    }

    /// The first child in any of `namespaces`.
    static func child(_ element: XMLElement?, _ name: String, _ namespaces: [String]) -> XMLElement? {
        guard let element else { return nil }
        for namespace in namespaces { if let found = element.firstChild(name, namespace) { return found } }
        return nil
    }

    /// The raw bytes around `wsse:Password` (what the client wrote), for evidence.
    static func passwordExcerpt(_ body: String) -> String {
        guard let start = body.range(of: "Password") else { return ProtocolTraffic.excerpt(body, limit: 300) }
        let from = body.index(start.lowerBound, offsetBy: -20, limitedBy: body.startIndex) ?? body.startIndex
        let to = body.index(start.upperBound, offsetBy: 120, limitedBy: body.endIndex) ?? body.endIndex
        return String(body[from..<to])
    }

    /// The AD FS error number in a fault's reason (`ID3242`, `MSIS3127`…).
    static func reasonCode(_ body: String) -> String? {
        guard let range = body.range(of: #"(ID|MSIS)[0-9]{4}"#, options: .regularExpression) else { return nil }
        return String(body[range])
    }
}
