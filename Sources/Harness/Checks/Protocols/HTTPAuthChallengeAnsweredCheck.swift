import Foundation
import MockServers

/// `httpauth.challenge-answered`: every 401/407 challenge is answered, once, in a scheme the
/// server offered (RFC 9110 §11.6, §11.7; RFC 7617; RFC 7616).
struct HTTPAuthChallengeAnsweredCheck: Check {
    static let id = "httpauth.challenge-answered"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let entries = context.entries
        let challenged = entries.enumerated().filter { !HTTPAuthTraffic.challenges($0.element).isEmpty }
        guard !challenged.isEmpty else {
            return .notApplicable("no exchange of the run was answered with a 401 or 407 challenge")
        }
        var problems: [Evidence] = []
        var answers: [Evidence] = []
        for (index, challenge) in challenged {
            guard let space = HTTPAuthTraffic.space(of: challenge) else { continue }
            let offered = HTTPAuthTraffic.challenges(challenge).map(HTTPAuthTraffic.scheme)
            let sentBefore = HTTPAuthTraffic.credentials(challenge)
            let next = entries[(index + 1)...].first { HTTPAuthTraffic.space(of: $0) == space }
            guard let next else {
                if sentBefore == nil {
                    problems.append(ProtocolTraffic.evidence(challenge, "the challenge (\(offered.joined(separator: ", "))) for \(space) was never answered",
                                                             excerpt: HTTPAuthTraffic.challenges(challenge).joined(separator: "\n")))
                }
                continue
            }
            guard let answer = HTTPAuthTraffic.credentials(next) else {
                if sentBefore == nil {
                    problems.append(ProtocolTraffic.evidence(next, "after the challenge of #\(challenge.sequence) the client asked again without credentials",
                                                             excerpt: ProtocolTraffic.describe(next)))
                }
                continue
            }
            let scheme = HTTPAuthTraffic.scheme(answer)
            guard offered.contains(where: { $0.caseInsensitiveCompare(scheme) == .orderedSame }) else {
                problems.append(ProtocolTraffic.evidence(next, "the challenge of #\(challenge.sequence) offered \(offered.joined(separator: ", ")); the client answered with \(scheme)",
                                                         excerpt: HTTPAuthTraffic.credentialLine(next)))
                continue
            }
            if HTTPAuthTraffic.refusedAsWrong(challenge), let sentBefore, sameCredentials(sentBefore, answer, challenge, next) {
                problems.append(ProtocolTraffic.evidence(next, "the credentials refused as wrong at #\(challenge.sequence) were sent again (the same user and password)",
                                                         excerpt: HTTPAuthTraffic.credentialLine(next)))
                continue
            }
            answers.append(ProtocolTraffic.evidence(next, "answers the \(offered.joined(separator: ", ")) challenge of #\(challenge.sequence) with \(scheme)"))
        }
        if !problems.isEmpty {
            return .fail("\(problems.count) challenge(s) not answered once in an offered scheme", problems)
        }
        guard !answers.isEmpty else {
            return .notApplicable("the challenges of the run were refusals the client rightly did not answer again")
        }
        return .pass("\(answers.count) challenge(s) answered once in a scheme the server offered", answers)
    }

    /// Basic (and proxy) credentials are the same when the field is; Digest ones when the same
    /// user is refused as wrong again (a new nonce makes every field differ).
    private func sameCredentials(_ before: String, _ after: String, _ refused: TrafficEntry, _ next: TrafficEntry) -> Bool {
        if HTTPAuthTraffic.scheme(after).lowercased() == "digest" {
            let user = HTTPAuthResult.Key.user
            return HTTPAuthTraffic.refusedAsWrong(next) && refused.annotations[user] != nil
                && refused.annotations[user] == next.annotations[user]
        }
        return before == after
    }
}
