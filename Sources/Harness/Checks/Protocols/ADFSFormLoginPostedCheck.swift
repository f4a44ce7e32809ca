import Foundation
import MockServers

/// `adfs.form-login-posted`: the forms sign-in is posted with UserName, Password and AuthMethod,
/// and the MSISAuth cookies it sets come back (AD FS forms authentication).
struct ADFSFormLoginPostedCheck: Check {
    static let id = "adfs.form-login-posted"

    static let required = ["UserName", "Password", "AuthMethod"]
    static let cookies = ["MSISAuth", "MSISAuthenticated"]

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let adfs = context.entries.filter { $0.mock == "adfs" }
        let posts = adfs.filter { $0.request.method == "POST" && $0.annotations["adfs.login"] != nil }
        guard !posts.isEmpty else { return .notApplicable("the client never posted the AD FS sign-in form") }
        var problems: [Evidence] = []
        var fine: [Evidence] = []
        for post in posts {
            let fields = post.request.formFields
            let missing = Self.required.filter { name in !fields.contains { $0.name == name } }
            if !missing.isEmpty {
                problems.append(ProtocolTraffic.evidence(post, "the sign-in post lacks \(missing.joined(separator: ", "))",
                                                         excerpt: fields.map(\.name).joined(separator: "&")))
                continue
            }
            if let method = post.request.formValue("AuthMethod"), method != "FormsAuthentication" {
                problems.append(ProtocolTraffic.evidence(post, "AuthMethod is `\(method)`, not the form's FormsAuthentication"))
                continue
            }
            fine.append(ProtocolTraffic.evidence(post, "posted UserName, Password and AuthMethod (\(post.annotations["adfs.login"] ?? ""))"))
            guard post.annotations["adfs.login"] == "ok", post.response.map({ [301, 302, 303].contains($0.status) }) == true else { continue }
            guard let next = adfs.first(where: { $0.sequence > post.sequence }) else {
                problems.append(ProtocolTraffic.evidence(post, "signed in, but the redirect back to AD FS was never followed"))
                continue
            }
            let missingCookies = Self.cookies.filter { next.request.cookie($0) == nil }
            if missingCookies.isEmpty {
                fine.append(ProtocolTraffic.evidence(next, "MSISAuth and MSISAuthenticated sent back"))
            } else {
                problems.append(ProtocolTraffic.evidence(next, "the next request to AD FS lacks \(missingCookies.joined(separator: ", ")) set at #\(post.sequence)",
                                                         excerpt: next.request.headers(named: "Cookie").joined(separator: "; ")))
            }
        }
        if !problems.isEmpty {
            return .fail("the AD FS forms sign-in was not posted or followed as the page asks", problems)
        }
        return .pass("the sign-in form was posted whole and the MSISAuth cookies were kept", fine)
    }
}
