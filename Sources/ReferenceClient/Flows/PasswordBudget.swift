import Foundation

/// Counts password submissions and stops the run before one too many
/// (``ClientBehaviour/maxPasswordSubmissions``): a wrong password is re-challenged forever
/// by many IdPs, and only the client can end that loop.
final class PasswordBudget: Sendable {
    private let limit: Int?
    private let used = Locked(0)

    init(limit: Int?) {
        self.limit = limit
    }

    var count: Int { used.withLock { $0 } }

    /// Records one submission; throws instead when the limit is reached. `lastAnswer` is the
    /// server's words for the previous refusal.
    func spend(lastAnswer: @autoclosure () -> String) throws {
        let count = used.withLock { value -> Int in
            value += 1
            return value
        }
        if let limit, count > limit {
            used.withLock { $0 -= 1 }
            throw ClientFailure("password refused: gave up after \(limit) password submissions (last answer: \(lastAnswer()))")
        }
    }
}

/// Answers `401` challenges (RFC 9110 §11.6.1) on the request that was challenged — so
/// credentials go only to the origin that asked — with Digest (SHA-256 preferred) or Basic.
/// A Digest `stale=true` gets a fresh nonce without counting a password submission.
struct ChallengeResponder {
    let http: HTTPSession
    let configuration: ClientConfiguration
    let budget: PasswordBudget

    /// Nil when `response` is not a challenge; else the answer to the last retry.
    func answer(_ response: HTTPResponse) async throws -> HTTPResponse? {
        guard response.status == 401, !Challenge.parse(response.header("WWW-Authenticate") ?? "").isEmpty else { return nil }
        guard let username = configuration.username, let password = configuration.password else {
            throw ClientFailure("\(response.errorSummary): the server asks for credentials and none were given")
        }
        var current = response
        var digest: DigestAuthenticator?
        while current.status == 401 {
            let challenges = Challenge.parse(current.header("WWW-Authenticate") ?? "")
            var request = current.request
            if let offered = DigestAuthenticator.best(of: challenges) {
                let stale = digest != nil && offered.parameters["stale"]?.lowercased() == "true"
                if !stale { try budget.spend(lastAnswer: current.summaryWithChallenge) }
                var authenticator = DigestAuthenticator(challenge: offered)
                request.authorization = authenticator.authorization(method: request.method, url: request.url,
                                                                    username: username, password: password)
                digest = authenticator
            } else if challenges.contains(where: { $0.scheme == "basic" }) {
                try budget.spend(lastAnswer: current.summaryWithChallenge)
                request.authorization = Challenge.basicCredentials(username: username, password: password)
            } else {
                throw ClientFailure("\(current.errorSummary): no supported authentication scheme in '\(current.header("WWW-Authenticate") ?? "")'")
            }
            current = try await http.follow(request)
        }
        return current
    }
}

extension HTTPResponse {
    /// "HTTP 401 (WWW-Authenticate: …)" for a challenge.
    var summaryWithChallenge: String {
        "HTTP \(status)" + (header("WWW-Authenticate").map { " (WWW-Authenticate: \($0))" } ?? "")
    }
}
