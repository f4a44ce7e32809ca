// FoundationNetworking on Linux (Swift 6.3.1, libcurl 7.88.1) dies by SIGSEGV inside
// libdispatch when servers reset connections mid-body (issue 37): the reference client's
// `web-sso.idp-connection-reset` crash, without the harness. Each iteration does what the
// reference client does in that scenario: one URLSession (redirects refused by the
// delegate), GET the SP (302 to the IdP), GET the IdP (302 to itself, on the kept-alive
// connection), GET the login page (headers with the full Content-Length, half the body, TCP
// RST), `finishTasksAndInvalidate`. The crashing thread is libdispatch's manager thread:
//   _dispatch_event_loop_drain ← _dispatch_mgr_invoke ← _dispatch_mgr_thread
// reading an epoll muxnote that was already freed (its memory reused by a Swift closure).
//   bash scripts/repro/check-urlsession-reset-crash.sh
// Usage: urlsession-reset-crash SP_URL IDP_URL ITERATIONS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// One data task with the reference client's own deadline (HTTPSession.load): the task is
/// cancelled if it has not finished a quarter second after its timeout.
func load(_ session: URLSession, _ url: URL, within seconds: Double) async -> String {
    await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
        let lock = NSLock()
        nonisolated(unsafe) var resumed = false
        let finish: @Sendable (String) -> Bool = { outcome in
            lock.lock()
            defer { lock.unlock() }
            if resumed { return false }
            resumed = true
            continuation.resume(returning: outcome)
            return true
        }
        var request = URLRequest(url: url)
        request.timeoutInterval = seconds
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                _ = finish("error \((error as? URLError)?.code.rawValue ?? 0)")
            } else {
                _ = finish("status \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data?.count ?? 0) bytes")
            }
        }
        task.resume()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 0.25) {
            if finish("deadline") { task.cancel() }
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let sp = URL(string: arguments[1]), let idp = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: urlsession-reset-crash SP_URL IDP_URL [ITERATIONS]\n".utf8))
    exit(2)
}
let iterations = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
let configuration = URLSessionConfiguration.ephemeral
configuration.timeoutIntervalForRequest = 5
var outcomes: [String: Int] = [:]
for _ in 0..<iterations {
    let session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    _ = await load(session, sp, within: 5)
    _ = await load(session, idp, within: 5)
    let login = await load(session, URL(string: idp.absoluteString + "?execution=e1s1")!, within: 5)
    outcomes[login, default: 0] += 1
    session.finishTasksAndInvalidate()
}
print(outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
