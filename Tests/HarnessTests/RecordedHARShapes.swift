import Foundation
import SAMLCore
@testable import Harness

/// Small hand-made recordings of one SP-initiated login, in the shapes browsers write:
/// Chrome (`_resourceType`, lowercase HTTP/2 header names and pseudo-headers, base64 bodies,
/// redirects without `content.text`) and Firefox (`comment`s, `postData.params` URL-encoded,
/// mixed-case headers, no `_resourceType`).
enum RecordedHARShapes {
    static let sp = "https://sp.example.org"
    static let idp = "https://idp.example.edu:8443"
    static let requestID = "_5f1a2b3c4d5e6f708192a3b4c5d6e7f8"
    static let relayState = "cookie:1a2b3c4d5e6f"
    static let issueInstant = "2025-03-14T09:26:53Z"

    static var authnRequest: String {
        "<samlp:AuthnRequest xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" xmlns:saml=\"urn:oasis:names:tc:SAML:2.0:assertion\" "
            + "ID=\"\(requestID)\" Version=\"2.0\" IssueInstant=\"\(issueInstant)\" Destination=\"\(idp)/sso\" "
            + "AssertionConsumerServiceURL=\"\(sp)/acs\"><saml:Issuer>\(sp)/sp</saml:Issuer></samlp:AuthnRequest>"
    }

    /// An unsigned Response (so the chain is served as recorded, not re-signed) with
    /// timestamps at -120, -5, 0 and +300 seconds from its IssueInstant.
    static var response: String {
        """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="_r0000000000000000000000000000001" InResponseTo="\(requestID)" Version="2.0" IssueInstant="\(issueInstant)" \
        Destination="\(sp)/acs"><saml:Issuer>\(idp)/idp</saml:Issuer><samlp:Status><samlp:StatusCode \
        Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status><saml:Assertion Version="2.0" \
        ID="_a0000000000000000000000000000001" IssueInstant="\(issueInstant)"><saml:Issuer>\(idp)/idp</saml:Issuer>\
        <saml:Subject><saml:NameID>jdoe@example.edu</saml:NameID><saml:SubjectConfirmation \
        Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="2025-03-14T09:31:53Z" \
        Recipient="\(sp)/acs" InResponseTo="\(requestID)"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions \
        NotBefore="2025-03-14T09:26:48Z" NotOnOrAfter="2025-03-14T09:31:53Z"><saml:AudienceRestriction><saml:Audience>\(sp)/sp\
        </saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="2025-03-14T09:24:53Z" \
        SessionIndex="_s0000000000000000000000000000001"><saml:AuthnContext><saml:AuthnContextClassRef>\
        urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>\
        </saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="displayName"><saml:AttributeValue>Jane Doe\
        </saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion></samlp:Response>
        """
    }

    static var redirectLocation: String {
        (try? RedirectBinding.url(destination: "\(idp)/sso", message: Array(authnRequest.utf8), kind: .request,
                                  relayState: relayState)) ?? ""
    }

    static var autoPost: String {
        PostBinding.autoSubmitForm(action: "\(sp)/acs", message: Array(response.utf8), kind: .response, relayState: relayState)
    }

    static var acsForm: String {
        PostBinding.formBody(message: Array(response.utf8), kind: .response, relayState: relayState)
    }

    static let welcome = "<html><body><h1>Welcome Jane Doe</h1><p>Signed in as jdoe@example.edu</p></body></html>"
    static let sessionCookie = "JSESSIONID=9F8E7D6C5B4A39281706F5E4D3C2B1A0"

    /// One exchange as a HAR entry.
    static func entry(_ method: String, _ url: String, chrome: Bool, requestHeaders: [(String, String)] = [],
                      postText: String? = nil, status: Int, headers: [(String, String)] = [], body: String? = nil,
                      resourceType: String = "document") -> [String: Any] {
        func names(_ pairs: [(String, String)]) -> [[String: String]] {
            pairs.map { ["name": chrome ? $0.0.lowercased() : $0.0, "value": $0.1] }
        }
        var requestHeaderList = names([("User-Agent", chrome ? "Chrome/122" : "Firefox/124")] + requestHeaders)
        if chrome, let parsed = URLComponents(string: url) {
            requestHeaderList.insert(["name": ":authority", "value": parsed.host ?? ""], at: 0)
            requestHeaderList.insert(["name": ":method", "value": method], at: 0)
        }
        var request: [String: Any] = ["method": method, "url": url, "httpVersion": chrome ? "http/2.0" : "HTTP/1.1",
                                      "headers": requestHeaderList, "cookies": [], "queryString": [],
                                      "headersSize": -1, "bodySize": postText?.utf8.count ?? 0]
        if let postText {
            var post: [String: Any] = ["mimeType": "application/x-www-form-urlencoded", "text": postText]
            if !chrome {
                post["params"] = postText.split(separator: "&").map { pair -> [String: String] in
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    return ["name": parts[0], "value": parts.count > 1 ? parts[1] : ""]
                }
            }
            request["postData"] = post
        }
        var content: [String: Any] = ["size": body?.utf8.count ?? 0,
                                      "mimeType": body == nil ? "x-unknown" : "text/html; charset=utf-8"]
        if let body {
            if chrome {
                content["text"] = Data(body.utf8).base64EncodedString()
                content["encoding"] = "base64"
            } else {
                content["text"] = body
            }
        }
        var responseHeaders = headers
        if body != nil { responseHeaders.append(("Content-Type", "text/html; charset=utf-8")) }
        responseHeaders.append(("Date", "Fri, 14 Mar 2025 09:26:53 GMT"))
        var entry: [String: Any] = [
            "startedDateTime": "2025-03-14T09:26:53.000Z", "time": 12.5, "cache": [:],
            "timings": ["send": 0.1, "wait": 10.0, "receive": 2.4],
            "request": request,
            "response": ["status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                         "headers": names(responseHeaders), "content": content,
                         "redirectURL": headers.first { $0.0 == "Location" }?.1 ?? "", "headersSize": -1, "bodySize": -1],
        ]
        if chrome {
            entry["_resourceType"] = resourceType
            entry["_initiator"] = ["type": "other"]
            entry["_priority"] = "VeryHigh"
        } else {
            entry["comment"] = "recorded by Firefox"
            entry["pageref"] = "page_1"
        }
        return entry
    }

    /// The login: GET /app → 302 to the IdP; the IdP's auto-post page; POST /acs → 302 /app
    /// with a session cookie; GET /app → the welcome page. Chrome also fetched a logo.
    static func har(chrome: Bool) -> Data {
        var entries = [
            entry("GET", "\(sp)/app", chrome: chrome, status: 302, headers: [("Location", redirectLocation)]),
            entry("GET", redirectLocation, chrome: chrome, status: 200, body: autoPost),
            entry("POST", "\(sp)/acs", chrome: chrome, requestHeaders: [("Origin", idp)], postText: acsForm, status: 302,
                  headers: [("Location", "\(sp)/app"),
                            ("Set-Cookie", "\(sessionCookie); Path=/; Domain=.example.org; Secure; HttpOnly; SameSite=None")]),
            entry("GET", "\(sp)/app", chrome: chrome, requestHeaders: [("Cookie", sessionCookie)], status: 200, body: welcome),
        ]
        if chrome {
            entries.insert(entry("GET", "\(idp)/logo.png", chrome: true, status: 200, resourceType: "image"), at: 2)
        }
        var log: [String: Any] = ["version": "1.2", "entries": entries,
                                  "creator": ["name": chrome ? "WebInspector" : "Firefox", "version": chrome ? "537.36" : "124.0"]]
        if !chrome { log["pages"] = [["id": "page_1", "title": "login", "startedDateTime": "2025-03-14T09:26:53.000Z",
                                      "pageTimings": [:], "comment": "the login"]] }
        return (try? JSONSerialization.data(withJSONObject: ["log": log])) ?? Data()
    }
}
