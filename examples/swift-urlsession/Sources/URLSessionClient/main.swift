// HTTP Basic with URLSession, as an app does it: a client for `samlharness run` (flow http-basic).
//   swift build --package-path examples/swift-urlsession
//   samlharness run --client examples/swift-urlsession/.build/debug/URLSessionClient --filter flow:http-basic
//
// The app never builds an Authorization header: it asks without credentials and answers the
// challenge of the server it was given (SAMLH_START_URL's host and port) in the task delegate,
// once per challenge. It follows redirects itself, one task per hop, so every hop meets its own
// server's challenge, and a challenge from another host a redirect leads to is not answered:
// the user's credentials are for the server they were given for (RFC 9110 §11.5; curl since
// CVE-2018-1000007). FoundationNetworking on Linux re-sends a task's *original* request after a
// challenge, so a redirect after it would loop: hence one task per hop.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let env = ProcessInfo.processInfo.environment
if let ca = env["SAMLH_CA_FILE"], !ca.isEmpty {
    // Linux: FoundationNetworking (libcurl) trusts this PEM instead of the system store.
    // On Apple platforms a test CA goes into the keychain (or a delegate checks it).
    setenv("URLSessionCertificateAuthorityInfoFile", ca, 1)
}

final class Delegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let credential = URLCredential(user: env["SAMLH_USERNAME"] ?? "", password: env["SAMLH_PASSWORD"] ?? "",
                                   persistence: .forSession)
    var refused: String?  // why we gave up on a challenge, for the report

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let space = challenge.protectionSpace
        let passwordSchemes = [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest]
        guard passwordSchemes.contains(space.authenticationMethod) else {
            return completionHandler(.performDefaultHandling, nil)  // server trust (Apple): the system's checks
        }
        // (FoundationNetworking on Linux never asks for Digest: its 401 comes back as the answer.)
        if let start = URL(string: env["SAMLH_START_URL"] ?? ""),
           space.host != start.host || space.port != (start.port ?? (start.scheme == "https" ? 443 : 80)) {
            refused = "HTTP 401 from \(space.host):\(space.port): the credentials are for \(start.host ?? ""), not offered to another host"
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        if challenge.previousFailureCount == 0 {
            completionHandler(.useCredential, credential)
        } else {  // our answer was refused and the server asks again: stop, never loop on a password
            refused = "HTTP 401 from \(space.host):\(space.port): the credentials were refused (realm \(space.realm ?? ""))"
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    // Every redirect comes back to the loop below as it is.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

struct Result: Encodable {
    var outcome: String
    var resource: String?
    var error: String?
}

let delegate = Delegate()
let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
var url = URL(string: env["SAMLH_START_URL"] ?? "")!
var result = Result(outcome: "failure", error: "more than 10 redirects from \(url)")
do {
    for _ in 0..<10 {
        var request = URLRequest(url: url)
        request.timeoutInterval = Double(env["SAMLH_REQUEST_TIMEOUT"] ?? "") ?? 10
        let (body, answer) = try await session.data(for: request)
        let response = answer as! HTTPURLResponse
        if (300..<400).contains(response.statusCode), let location = response.value(forHTTPHeaderField: "Location"),
           let next = URL(string: location, relativeTo: url)?.absoluteURL {
            if url.scheme == "https" && next.scheme == "http" {
                result.error = "refused the https to http redirect to \(next)"
                break
            }
            url = next
            continue
        }
        let text = String(decoding: body, as: UTF8.self)
        result = response.statusCode == 200
            ? Result(outcome: "success", resource: text)
            : Result(outcome: "failure", error: "HTTP \(response.statusCode) at \(url): \(text.prefix(300))")
        break
    }
} catch {
    // The words matter: say what failed (the password, a timeout, the certificate, the connection).
    let reason = (error as? URLError).map { "URLError \($0.code.rawValue): \($0.localizedDescription)" } ?? "\(error)"
    result = Result(outcome: "failure", error: delegate.refused ?? reason)
}
try JSONEncoder().encode(result).write(to: URL(fileURLWithPath: env["SAMLH_RESULT_FILE"] ?? "result.json"))
exit(result.outcome == "success" ? 0 : 1)
