import Foundation
import SAMLCore

/// What a successful validation establishes: the ticket, and the proxy-granting ticket's IOU
/// when a pgtUrl was given.
struct CASAssertion: Sendable {
    let ticket: CASServiceTicket
    var proxyGrantingTicketIOU: String?

    var user: TestUser { ticket.authentication.user }
}

/// The `cas:serviceResponse` documents of CAS protocol 3.0 §2.5–§2.7 (Appendix A schema), in
/// XML or, with `format=JSON`, the JSON shape Apereo CAS 5+ writes. Every value is escaped.
enum CASServiceResponse {
    static let namespace = "http://www.yale.edu/tp/cas"

    enum Format: Sendable {
        case xml, json

        /// CAS protocol 3.0 §2.5.1 `format`: `XML` (default) or `JSON`, case-insensitive.
        init(_ parameter: String?) {
            self = parameter?.uppercased() == "JSON" ? .json : .xml
        }
    }

    /// Element names CAS can write as `cas:NAME`; others are left out of `cas:attributes`
    /// (a URN-named attribute would make the document ill-formed).
    static func isElementName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0) }
    }

    /// The CAS 3 attributes: the user's, then those Apereo CAS adds about the authentication.
    static func attributes(for assertion: CASAssertion) -> [(String, [String])] {
        let authentication = assertion.ticket.authentication
        var all = assertion.user.attributes.filter { isElementName($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        all.append(("authenticationDate", [SAMLDateTime.string(from: authentication.instant, precision: .milliseconds)]))
        all.append(("credentialType", ["UsernamePasswordCredential"]))
        all.append(("isFromNewLogin", [assertion.ticket.fromNewLogin ? "true" : "false"]))
        all.append(("longTermAuthenticationRequestTokenUsed", ["false"]))
        all.append(("successfulAuthenticationHandlers", ["AcceptUsersAuthenticationHandler"]))
        return all
    }

    // MARK: - Validation

    /// `cas:authenticationSuccess`: user, attributes (CAS 3 only, `withAttributes`), the
    /// PGT IOU, the proxy chain.
    static func success(_ assertion: CASAssertion, withAttributes: Bool, format: Format) -> MockResponse {
        let attributes = withAttributes ? attributes(for: assertion) : []
        let proxies = assertion.ticket.proxies
        switch format {
        case .json:
            let body = JSONSuccess(serviceResponse: .init(authenticationSuccess: .init(
                user: assertion.user.username, proxyGrantingTicket: assertion.proxyGrantingTicketIOU,
                proxies: proxies.isEmpty ? nil : proxies,
                attributes: withAttributes ? Dictionary(attributes, uniquingKeysWith: { a, _ in a }) : nil)))
            return .json(body, contentType: "application/json;charset=UTF-8")
        case .xml:
            var w = XMLWriter()
            w.open("cas:serviceResponse", ["xmlns:cas": namespace])
            w.raw("\n    ")
            w.open("cas:authenticationSuccess")
            w.raw("\n        ")
            w.element("cas:user", text: assertion.user.username)
            if withAttributes {
                w.raw("\n        ")
                w.open("cas:attributes")
                for (name, values) in attributes {
                    for value in values {
                        w.raw("\n            ")
                        w.element("cas:" + name, text: value)
                    }
                }
                w.raw("\n        ")
                w.close("cas:attributes")
            }
            if let iou = assertion.proxyGrantingTicketIOU {
                w.raw("\n        ")
                w.element("cas:proxyGrantingTicket", text: iou)
            }
            if !proxies.isEmpty {
                w.raw("\n        ")
                w.open("cas:proxies")
                for proxy in proxies {
                    w.raw("\n            ")
                    w.element("cas:proxy", text: proxy)
                }
                w.raw("\n        ")
                w.close("cas:proxies")
            }
            w.raw("\n    ")
            w.close("cas:authenticationSuccess")
            w.raw("\n")
            w.close("cas:serviceResponse")
            w.raw("\n")
            return .xml(w.output, contentType: "application/xml;charset=UTF-8")
        }
    }

    /// `cas:authenticationFailure code="…"` with the description as its text. Apereo CAS
    /// answers validation failures with 200 OK.
    static func failure(_ failure: CASFailure, format: Format) -> MockResponse {
        document(failure: failure, element: "authenticationFailure", format: format)
    }

    // MARK: - Proxy

    /// CAS protocol 3.0 §2.7.2 `cas:proxySuccess`.
    static func proxySuccess(_ proxyTicket: String, format: Format) -> MockResponse {
        switch format {
        case .json:
            return .json(JSONProxySuccess(serviceResponse: .init(proxySuccess: .init(proxyTicket: proxyTicket))),
                         contentType: "application/json;charset=UTF-8")
        case .xml:
            var w = XMLWriter()
            w.open("cas:serviceResponse", ["xmlns:cas": namespace])
            w.raw("\n    ")
            w.open("cas:proxySuccess")
            w.raw("\n        ")
            w.element("cas:proxyTicket", text: proxyTicket)
            w.raw("\n    ")
            w.close("cas:proxySuccess")
            w.raw("\n")
            w.close("cas:serviceResponse")
            w.raw("\n")
            return .xml(w.output, contentType: "application/xml;charset=UTF-8")
        }
    }

    static func proxyFailure(_ failure: CASFailure, format: Format) -> MockResponse {
        document(failure: failure, element: "proxyFailure", format: format)
    }

    private static func document(failure: CASFailure, element: String, format: Format) -> MockResponse {
        switch format {
        case .json:
            let inner = JSONFailure.Failure(code: failure.code.rawValue, description: failure.description)
            let body = element == "proxyFailure"
                ? JSONFailure(serviceResponse: .init(authenticationFailure: nil, proxyFailure: inner))
                : JSONFailure(serviceResponse: .init(authenticationFailure: inner, proxyFailure: nil))
            return .json(body, contentType: "application/json;charset=UTF-8")
        case .xml:
            var w = XMLWriter()
            w.open("cas:serviceResponse", ["xmlns:cas": namespace])
            w.raw("\n    ")
            w.element("cas:" + element, ["code": failure.code.rawValue], text: failure.description)
            w.raw("\n")
            w.close("cas:serviceResponse")
            w.raw("\n")
            return .xml(w.output, contentType: "application/xml;charset=UTF-8")
        }
    }

    // MARK: - JSON shapes (Apereo CAS `CasJsonServiceResponse`)

    struct JSONSuccess: Encodable {
        struct Body: Encodable { let authenticationSuccess: Success }
        struct Success: Encodable {
            let user: String
            let proxyGrantingTicket: String?
            let proxies: [String]?
            let attributes: [String: [String]]?
        }
        let serviceResponse: Body
    }

    struct JSONFailure: Encodable {
        struct Failure: Encodable {
            let code: String
            let description: String
        }
        struct Body: Encodable {
            let authenticationFailure: Failure?
            let proxyFailure: Failure?
        }
        let serviceResponse: Body
    }

    struct JSONProxySuccess: Encodable {
        struct Body: Encodable { let proxySuccess: Success }
        struct Success: Encodable { let proxyTicket: String }
        let serviceResponse: Body
    }
}
