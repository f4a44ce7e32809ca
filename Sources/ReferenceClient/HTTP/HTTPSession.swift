import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's URLSession, one per run, with redirects, cookies and deadlines under the
/// client's own control.
///
/// URLSession traps handled here:
/// - it follows redirects by itself, turning a 302 after a POST into a GET (fine) but also
///   carrying headers you set (an `Authorization`) to wherever the redirect goes, and
///   following `https` → `http`. ``RedirectRefusal`` stops every redirect, and ``follow(_:)``
///   decides each hop (RFC 9110 §15.4: 301/302/303 → GET without body; 307/308 keep method
///   and body), at most 20 hops.
/// - cookie storage is process-wide by default: see ``CookieJar``.
/// - `timeoutIntervalForRequest` is an idle timeout, not a deadline: every request gets
///   `min(perRequest, time left)` and the run checks its own deadline between requests.
final class HTTPSession: Sendable {
    /// The forward proxy to use, and its credentials (sent only after its 407).
    struct Proxy: Sendable {
        var url: URL
        var username: String?
        var password: String?
        /// The Windows domain for an NTLM proxy (`SAMLH_DOMAIN`).
        var domain: String?
    }

    let cookies: CookieJar
    let behaviour: ClientBehaviour
    let deadline: Date
    let maxRedirects = 20
    let perRequestTimeout: Double
    private let session: URLSession
    private let configuration: URLSessionConfiguration
    private let delegate = RedirectRefusal()
    private let proxy: Proxy?
    private let unverifiedTLS: (any UnverifiedTLSTransport)?
    /// Carries every request URLSession would (``HTTPTransport``); nil: URLSession.
    private let transport: (any HTTPTransport)?
    private let state = Locked(State())

    private struct State {
        var proxyAuthorization: String?
        var exchanges = 0
        /// Origins whose self-signed certificate the `trust-self-signed` variant accepted.
        var selfSignedAccepted: Set<String> = []
    }

    /// - Parameter requestTimeout: seconds to wait for one answer (`SAMLH_REQUEST_TIMEOUT`);
    ///   nil: half the time left, between 1 and 10 s.
    init(behaviour: ClientBehaviour, deadline: Date, requestTimeout: Double? = nil, proxy: Proxy? = nil,
         unverifiedTLS: (any UnverifiedTLSTransport)? = nil, transport: (any HTTPTransport)? = nil) {
        self.behaviour = behaviour
        self.deadline = deadline
        self.proxy = proxy
        self.unverifiedTLS = unverifiedTLS
        self.transport = transport
        self.cookies = CookieJar(enabled: behaviour.keepCookies)
        let left = deadline.timeIntervalSinceNow
        self.perRequestTimeout = requestTimeout.map { min($0, max(left, 0.05)) } ?? max(1, min(10, left / 2))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = perRequestTimeout
        if let proxy, let host = proxy.url.host {
            // Apple platforms honour these keys; see docs/reference-client.md for Linux.
            configuration.connectionProxyDictionary = [
                "HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": proxy.url.port ?? 80,
            ]
        }
        self.configuration = configuration
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Releases the session (URLSession keeps its delegate until invalidated).
    func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// How many HTTP exchanges were made.
    var exchanges: Int { state.withLock { $0.exchanges } }

    /// One exchange: the jar's cookies out, `Set-Cookie` in, and the proxy's 407 answered
    /// once with its credentials.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = try await exchange(request)
        guard response.status == 407, let proxy, let username = proxy.username,
              state.withLock({ $0.proxyAuthorization == nil }) else { return response }
        let offered = Challenge.parse(response.header("Proxy-Authenticate") ?? "")
        if offered.contains(where: { $0.scheme == "ntlm" }) {
            // NTLM at the proxy: the three legs on this connection to the proxy, each request
            // carrying its message in Proxy-Authorization. The proxy keeps the connection
            // authenticated afterwards; later requests carry nothing.
            let domain = username.contains("\\") ? "" : (proxy.domain ?? "")
            let handshake = NTLMHandshake(http: self, behaviour: behaviour, username: username, password: proxy.password ?? "",
                                          configuredDomain: domain)
            return try await handshake.runAtProxy(request) { authorization in
                self.state.withLock { $0.proxyAuthorization = authorization }
                defer { self.state.withLock { $0.proxyAuthorization = nil } }
                return try await self.exchange(request)
            }
        }
        if offered.contains(where: { $0.scheme == "basic" }) {
            let credentials = Challenge.basicCredentials(username: username, password: proxy.password ?? "")
            state.withLock { $0.proxyAuthorization = credentials }
            response = try await exchange(request)
        }
        return response
    }

    /// Sends `request` and follows redirects (at most 20) as ``HTTPSession`` describes.
    /// Stops at a redirect to a non-HTTP scheme (an app callback) and returns it.
    func follow(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = try await send(request)
        var hops = 0
        while let target = response.redirectTarget {
            guard target.scheme == "http" || target.scheme == "https" else { return response }
            hops += 1
            if hops > maxRedirects {
                throw ClientFailure("too many redirects (more than \(maxRedirects)); last Location \(target.absoluteString)")
            }
            let from = response.request
            if behaviour.refuseHTTPSDowngrade, from.url.scheme == "https", target.scheme == "http" {
                throw ClientFailure("refused redirect from https to http: \(target.absoluteString)")
            }
            var next = HTTPRequest(url: target, headers: from.headers.filter { $0.name.lowercased() == "accept" })
            if response.status == 307 || response.status == 308 {
                next.method = from.method
                next.body = from.body
                next.headers = from.headers
            }
            // NTLM and Negotiate tokens answer one challenge on one connection: never carried on.
            let oneTime = from.authorization.map { ["ntlm", "negotiate"].contains(Challenge.parse($0).first?.scheme ?? "") } ?? false
            if from.authorization != nil, !oneTime, !behaviour.credentialsOnlyToChallengingOrigin || Origin(from.url) == Origin(target) {
                next.authorization = from.authorization
            } else if oneTime, !behaviour.ntlmTokensOneTime {
                next.authorization = from.authorization  // the bug: the token follows the redirect anywhere
            }
            response = try await send(next)
        }
        return response
    }

    /// What came back for one URLRequest.
    private struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// One URLSession data task, cancelled when the run's task is (the deadline).
    ///
    /// URLSession trap (Linux): a `401`/`407` with a challenge header never reaches the
    /// caller — the task waits on its authentication-challenge path (`.performDefaultHandling`
    /// hangs, `.useCredential` without a credential crashes). ``RedirectRefusal`` records the
    /// challenged response's status and headers and cancels the task; this method turns that
    /// cancellation back into the 401/407 answer (without its body), which the client then
    /// answers itself (Digest included, which Linux URLSession does not implement).
    ///
    /// `seconds` (and a quarter second) after the start the exchange ends as `.timedOut`
    /// whatever URLSession does: its `timeoutInterval` is an idle timer of FoundationNetworking's
    /// libcurl driver, and the per-request limit (`SAMLH_REQUEST_TIMEOUT`) is this client's
    /// promise. The abandoned task is cancelled, not waited for.
    private func load(_ request: URLRequest, within seconds: TimeInterval, freshConnection: Bool = false) async throws -> Answer {
        // A session of its own has a connection pool of its own: the request goes out on a new
        // connection (the `ntlm-new-connection` bug variant's AUTHENTICATE).
        let session = freshConnection ? URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil) : self.session
        defer { if freshConnection { session.finishTasksAndInvalidate() } }
        let box = Locked<URLSessionDataTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, Error>) in
                let resumed = Locked(false)
                let finish: @Sendable (Result<Answer, Error>) -> Bool = { result in
                    let first = resumed.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(with: result) }
                    return first
                }
                let delegate = self.delegate
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        if let challenged = box.withLock({ $0 }).flatMap({ delegate.takeChallenge(for: $0.taskIdentifier) }) {
                            _ = finish(.success(Answer(status: challenged.status, headers: challenged.headers, body: Data())))
                        } else {
                            _ = finish(.failure(error))
                        }
                    } else if let http = response as? HTTPURLResponse {
                        var headers: [String: String] = [:]
                        for (name, value) in http.allHeaderFields {
                            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                        }
                        _ = finish(.success(Answer(status: http.statusCode, headers: headers, body: data ?? Data())))
                    } else {
                        _ = finish(.failure(URLError(.badServerResponse)))
                    }
                }
                box.withLock { $0 = task }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds) + 0.25) {
                    if finish(.failure(URLError(.timedOut))) { task.cancel() }
                }
            }
        } onCancel: {
            box.withLock { $0 }?.cancel()
        }
    }

    private func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw ClientFailure("timed out before \(request.method) \(request.url.absoluteString)") }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = min(perRequestTimeout, remaining)
        urlRequest.httpShouldHandleCookies = false
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if let cookie = cookies.header(for: request.url) { urlRequest.setValue(cookie, forHTTPHeaderField: "Cookie") }
        if let authorization = request.authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let proxyAuthorization = state.withLock({ $0.proxyAuthorization }) {
            urlRequest.setValue(proxyAuthorization, forHTTPHeaderField: "Proxy-Authorization")
        }
        urlRequest.httpBody = request.body
        // The same fields in the order the client set them, for a transport that keeps it.
        var ordered = request.headers.filter { !["cookie", "authorization", "proxy-authorization"].contains($0.name.lowercased()) }
        for name in ["Cookie", "Authorization", "Proxy-Authorization"] {
            if let value = urlRequest.value(forHTTPHeaderField: name) { ordered.append((name, value)) }
        }
        state.withLock { $0.exchanges += 1 }
        let answer: Answer
        do {
            if let unverified = try await unverifiedTransport(for: request.url, timeout: urlRequest.timeoutInterval) {
                answer = try await sendUnverified(urlRequest, over: unverified)
            } else {
                do {
                    answer = try await plain(urlRequest, headers: ordered, freshConnection: request.freshConnection)
                } catch where Self.isCertificateFailure(error) && behaviour.serverTrust == .trustSelfSigned {
                    // The bug: verification failed; if the chain is one self-signed
                    // certificate, take it anyway (and from now on for this origin).
                    guard let unverified = unverifiedTLS,
                          let chain = try? await unverified.presentedChain(of: request.url, timeout: urlRequest.timeoutInterval),
                          chain.count == 1, chain[0].subject == chain[0].issuer else { throw error }
                    state.withLock { _ = $0.selfSignedAccepted.insert(Self.origin(of: request.url)) }
                    answer = try await sendUnverified(urlRequest, over: unverified)
                }
            }
        } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
            throw ClientFailure("timed out during \(request.method) \(request.url.absoluteString)")
        } catch let error as URLError where error.code == .timedOut {
            throw ClientFailure("timed out waiting for \(request.method) \(request.url.absoluteString)")
        } catch let failure as TransportFailure where failure.kind == .timedOut {
            throw ClientFailure("timed out waiting for \(request.method) \(request.url.absoluteString)")
        } catch let failure as TransportFailure {
            throw ClientFailure("\(Self.plainWords(failure.kind)): \(request.method) \(request.url.absoluteString) failed: \(failure.detail)")
        } catch let error as URLError {
            throw ClientFailure("\(Self.plainWords(error)): \(request.method) \(request.url.absoluteString) failed: "
                + "\(error.localizedDescription) (URLError \(error.code.rawValue))")
        }
        cookies.store(setCookie: answer.headers["set-cookie"], from: request.url)
        return HTTPResponse(request: request, status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// One exchange over the plain transport: the supplied ``HTTPTransport``, else URLSession.
    private func plain(_ request: URLRequest, headers: [(name: String, value: String)], freshConnection: Bool) async throws -> Answer {
        guard let transport, let url = request.url, transport.carries(url) else {
            return try await load(request, within: request.timeoutInterval, freshConnection: freshConnection)
        }
        let answer = try await transport.send(TransportRequest(method: request.httpMethod ?? "GET", url: url, headers: headers,
                                                               body: request.httpBody, timeout: request.timeoutInterval,
                                                               freshConnection: freshConnection))
        return Answer(status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// The unverified transport when the behaviour's trust bug applies to `url` (https, and
    /// `trust-all`, or `trust-self-signed` for an origin already accepted); nil otherwise.
    private func unverifiedTransport(for url: URL, timeout: TimeInterval) async throws -> (any UnverifiedTLSTransport)? {
        guard url.scheme?.lowercased() == "https", behaviour.serverTrust != .system else { return nil }
        guard let unverifiedTLS else {
            throw ClientFailure("the `\(behaviour.serverTrust.rawValue)` variant needs an unverified TLS transport (samlh-reference-client has one)")
        }
        switch behaviour.serverTrust {
        case .system: return nil
        case .trustAll: return unverifiedTLS
        case .trustSelfSigned:
            return state.withLock { $0.selfSignedAccepted.contains(Self.origin(of: url)) } ? unverifiedTLS : nil
        }
    }

    private func sendUnverified(_ request: URLRequest, over transport: any UnverifiedTLSTransport) async throws -> Answer {
        guard let url = request.url else { throw URLError(.badURL) }
        let headers = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        do {
            let (status, fields, body) = try await transport.send(method: request.httpMethod ?? "GET", url: url, headers: headers,
                                                                  body: request.httpBody, timeout: request.timeoutInterval)
            return Answer(status: status, headers: fields, body: body)
        } catch {
            throw ClientFailure("connection error: \(request.httpMethod ?? "GET") \(url.absoluteString) failed: \(error)")
        }
    }

    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port ?? (url.scheme == "https" ? 443 : 80))"
    }

    /// A failure of the server's certificate, from either transport.
    static func isCertificateFailure(_ error: any Error) -> Bool {
        if let failure = error as? TransportFailure { return failure.kind == .certificateRefused }
        guard let error = error as? URLError else { return false }
        return isCertificateFailure(error)
    }

    /// A failure of the server's certificate (FoundationNetworking on Linux reports libcurl's
    /// CURLE_PEER_FAILED_VERIFICATION as an unknown URLError carrying curl's words).
    static func isCertificateFailure(_ error: URLError) -> Bool {
        if [.serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid].contains(error.code) { return true }
        let words = error.localizedDescription.lowercased()
        return words.contains("certificate") || words.contains("ssl: no alternative")
    }

    /// The same words for a ``TransportFailure``.
    static func plainWords(_ kind: TransportFailure.Kind) -> String {
        switch kind {
        case .certificateRefused: "TLS: the server's certificate was refused"
        case .tls: "TLS handshake failed"
        case .closed: "connection closed by the server without an answer"
        case .cutOff: "connection closed by the server before the whole answer arrived"
        case .reset: "connection reset by the server"
        case .refused: "connection refused or host not found"
        case .timedOut: "timed out"
        case .other: "connection error"
        }
    }

    /// What went wrong with the connection, in words a user (and a log search) understands;
    /// URLSession's own descriptions ("Empty reply from server") vary by platform.
    static func plainWords(_ error: URLError) -> String {
        if isCertificateFailure(error) { return "TLS: the server's certificate was refused" }
        if error.localizedDescription.contains("SSL") { return "TLS handshake failed" }
        return switch error.code {
        case .badServerResponse, .networkConnectionLost, .zeroByteResource:
            "connection closed by the server without an answer"
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed:
            "connection refused or host not found"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
            "TLS connection failed"
        default:
            "connection error"
        }
    }
}

/// Refuses every redirect, so the 3xx answer comes back to ``HTTPSession/follow(_:)``, and
/// hands every 401/407 back to the client (see `HTTPSession.load`).
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    struct Challenged: Sendable {
        var status: Int
        var headers: [String: String]
    }

    private let challenged = Locked<[Int: Challenged]>([:])

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        if let response = challenge.failureResponse as? HTTPURLResponse {
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            let id = task.taskIdentifier
            challenged.withLock { $0[id] = Challenged(status: response.statusCode, headers: headers) }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// The challenged answer recorded for task `id`, removed.
    func takeChallenge(for id: Int) -> Challenged? {
        challenged.withLock { $0.removeValue(forKey: id) }
    }
}

/// A value behind a lock (this library targets iOS 16, before `Synchronization.Mutex`).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
