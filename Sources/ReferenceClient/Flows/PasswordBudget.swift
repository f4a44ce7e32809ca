import Foundation

/// Counts password submissions and stops before one too many in a row
/// (``ClientBehaviour/maxPasswordSubmissions``): a wrong password is re-challenged forever by
/// many IdPs, and only the client can end that loop. A submission that answers a fresh
/// challenge (the first of a login, an IdP that asks again on purpose) starts the count over;
/// one that answers a refusal of the previous one adds to it.
final class PasswordBudget: Sendable {
    private let limit: Int?
    private let state = Locked((total: 0, inARow: 0))

    init(limit: Int?) {
        self.limit = limit
    }

    /// Password submissions in all.
    var count: Int { state.withLock { $0.total } }

    /// Records one submission; throws instead when it would be one too many in a row.
    /// `refused`: the server is answering the previous submission with another challenge.
    /// `lastAnswer` is the server's words for that refusal.
    func spend(refused: Bool = true, lastAnswer: @autoclosure () -> String) throws {
        let inARow = state.withLock { value -> Int in
            value.inARow = refused ? value.inARow + 1 : 1
            return value.inARow
        }
        if let limit, inARow > limit {
            throw ClientFailure("password refused: gave up after \(limit) password submission\(limit == 1 ? "" : "s") "
                + "(last answer: \(lastAnswer()))")
        }
        state.withLock { $0.total += 1 }
    }
}

/// Answers `401` challenges (RFC 9110 §11.6.1) on the request that was challenged — so
/// credentials go only to the origin that asked — with Digest (SHA-256 preferred) or Basic.
/// A Digest `stale=true` gets a fresh nonce without counting a password submission.
struct ChallengeResponder {
    let http: HTTPSession
    let configuration: ClientConfiguration
    let budget: PasswordBudget
    /// The origin the user gave the credentials for, when they are for one server (the
    /// HTTP-auth flows: the start URL's); a challenge from another origin — after a redirect —
    /// is another protection space (RFC 9110 §11.5) and is not answered with them.
    var onlyFor: Origin? = nil

    /// Nil when `response` is not a challenge; else the answer to the last retry.
    /// `credentialsSent`: the challenged request already carried the credentials, so the
    /// challenge refuses them (it counts as a refusal, not a fresh challenge).
    func answer(_ response: HTTPResponse, credentialsSent: Bool = false) async throws -> HTTPResponse? {
        guard response.status == 401, !Challenge.parse(response.header("WWW-Authenticate") ?? "").isEmpty else { return nil }
        guard let username = configuration.username, let password = configuration.password else {
            throw ClientFailure("\(response.errorSummary): the server asks for credentials and none were given")
        }
        var current = response
        var digest: DigestAuthenticator?
        var lastSpace: String? = credentialsSent
            ? "\(Origin(response.request.url)?.description ?? "") \(Challenge.parse(response.header("WWW-Authenticate") ?? "").first?.parameters["realm"] ?? "")"
            : nil
        while current.status == 401 {
            let challenges = Challenge.parse(current.header("WWW-Authenticate") ?? "")
            if let onlyFor, let origin = Origin(current.request.url), origin != onlyFor {
                throw ClientFailure("\(current.summaryWithChallenge) from \(origin): the credentials were given for \(onlyFor) and are not offered to another host")
            }
            // A refusal is a new challenge from the protection space just answered (origin
            // and realm); a redirect may bring a challenge from another space, a fresh one.
            let space = "\(Origin(current.request.url)?.description ?? "") \(challenges.first?.parameters["realm"] ?? "")"
            let answered = space == lastSpace
            lastSpace = space
            var request = current.request
            if let scheme = NTLMHandshake.scheme(in: challenges) {
                // Windows authentication first, as a browser prefers it: one handshake is one
                // password submission.
                try budget.spend(refused: answered, lastAnswer: current.summaryWithChallenge)
                current = try await NTLMHandshake(http: http, behaviour: http.behaviour, username: username, password: password,
                                                  configuredDomain: configuration.parameters["DOMAIN"]).run(request, scheme: scheme)
                continue
            } else if let offered = DigestAuthenticator.best(of: challenges) {
                let stale = digest != nil && offered.parameters["stale"]?.lowercased() == "true"
                if !stale { try budget.spend(refused: answered, lastAnswer: current.summaryWithChallenge) }
                var authenticator = DigestAuthenticator(challenge: offered)
                request.authorization = authenticator.authorization(method: request.method, url: request.url,
                                                                    username: username, password: password)
                digest = authenticator
            } else if challenges.contains(where: { $0.scheme == "basic" }) {
                try budget.spend(refused: answered, lastAnswer: current.summaryWithChallenge)
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
