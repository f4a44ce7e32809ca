import Foundation

/// `http-basic`, `http-digest`, `http-ntlm` and `proxy`: GET the resource without credentials,
/// answer the server's challenge (RFC 7617 Basic, RFC 7616 Digest, NTLM and Negotiate:
/// ``NTLMHandshake``) on that request only, and —
/// through a proxy — the proxy's `407` with its own credentials (`HTTPSession.send`).
struct HTTPAuthFlow {
    let context: FlowContext

    func run() async throws -> ClientResult {
        let configuration = context.configuration
        var request = HTTPRequest(url: configuration.startURL)
        if context.behaviour.sendCredentialsBeforeChallenge, let username = configuration.username {
            // Bug variant: credentials before any challenge.
            request.authorization = Challenge.basicCredentials(username: username, password: configuration.password ?? "")
        }
        var response = try await context.http.follow(request)
        if response.status == 401 {
            response = try await ChallengeResponder(http: context.http, configuration: configuration, budget: context.budget,
                                                    onlyFor: Origin(configuration.startURL))
                .answer(response) ?? response
        }
        let details = ["final_url": response.url.absoluteString, "final_status": String(response.status)]
        guard response.status == 200 else {
            let proxyWords = response.status == 407 ? " (proxy: \(response.header("Proxy-Authenticate") ?? ""))" : ""
            throw ClientFailure("\(response.errorSummary)\(proxyWords) at \(response.url.absoluteString)", resource: response.text)
        }
        return ClientResult(outcome: .success, resource: response.text, details: details)
    }
}
