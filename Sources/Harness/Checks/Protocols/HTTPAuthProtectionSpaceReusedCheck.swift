import Foundation
import MockServers

/// `httpauth.protection-space-reused`: once a protection space accepted credentials, later
/// requests in it carry them without a new challenge (RFC 7617 §2.2; RFC 7616 §3.6).
struct HTTPAuthProtectionSpaceReusedCheck: Check {
    static let id = "httpauth.protection-space-reused"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        var firstSuccess: [HTTPAuthTraffic.Space: TrafficEntry] = [:]
        var problems: [Evidence] = []
        var reused: [Evidence] = []
        for entry in context.entries where entry.mock == "auth" || entry.mock == "proxy" {
            guard let space = HTTPAuthTraffic.space(of: entry) else { continue }
            if let success = firstSuccess[space], inScope(entry, of: success) {
                if HTTPAuthTraffic.credentials(entry) == nil {
                    if !HTTPAuthTraffic.challenges(entry).isEmpty {
                        problems.append(ProtocolTraffic.evidence(
                            entry, "\(space) accepted credentials at #\(success.sequence), yet this request went without them and was challenged again",
                            excerpt: ProtocolTraffic.describe(entry)))
                    }
                } else {
                    reused.append(ProtocolTraffic.evidence(entry, "credentials reused in \(space) (first accepted at #\(success.sequence))"))
                }
            }
            if firstSuccess[space] == nil, HTTPAuthTraffic.succeeded(entry) { firstSuccess[space] = entry }
        }
        if !problems.isEmpty {
            return .fail("\(problems.count) request(s) in an authenticated protection space were sent without its credentials", problems)
        }
        guard !reused.isEmpty else {
            return .notApplicable(firstSuccess.isEmpty
                ? "no protection space accepted credentials in this run"
                : "the run made no further request to a protection space after it accepted credentials")
        }
        return .pass("\(reused.count) later request(s) reused the protection space's credentials without a new challenge", reused)
    }

    /// RFC 7617 §2.2: Basic credentials cover the directory of the accepted URI and below; a
    /// Digest space without `domain` is the whole origin (RFC 7616 §3.3); the proxy's is every
    /// request through it.
    private func inScope(_ entry: TrafficEntry, of success: TrafficEntry) -> Bool {
        guard entry.mock == "auth" else { return true }
        if success.annotations[HTTPAuthResult.Key.scheme]?.lowercased() == "digest" { return true }
        let path = success.request.path
        let directory = path.hasSuffix("/") ? path : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
        return entry.request.path.hasPrefix(directory)
    }
}
