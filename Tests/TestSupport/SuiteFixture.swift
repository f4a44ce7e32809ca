import Foundation
import MockServers
import SAMLCore

/// Starts the mocks from the repository's MockIdP/ profiles for a test, and drives logins.
public enum SuiteFixture {
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let mockIdP = repository.appendingPathComponent("MockIdP")

    public static func profile(_ name: String, _ modify: (inout IdPProfile) -> Void = { _ in }) throws -> LoadedProfile {
        var loaded = try LoadedProfile.load(named: name, from: mockIdP)
        modify(&loaded.profile)
        // The SP personality and settings the modified profile names.
        try loaded.useSP(personality: loaded.profile.sp.personality ?? SPPersonality.defaultName, settings: [], mockIdP: mockIdP)
        return loaded
    }

    /// Runs `body` with a started suite and a fresh browser; stops both afterwards.
    public static func with(_ profileName: String, knobs: [Knob] = [], modify: (inout IdPProfile) -> Void = { _ in },
                     _ body: (MockSuite, TestBrowser) async throws -> Void) async throws {
        var loaded = try profile(profileName, modify)
        loaded.knobs += knobs
        try await with(loaded: loaded, body)
    }

    /// Runs `body` with a suite started from an already loaded (and perhaps altered) profile,
    /// bound to `host` (loopback by default) and naming `publicHost` in its URLs.
    public static func with(loaded: LoadedProfile, host: String = "127.0.0.1", publicHost: String? = nil,
                            _ body: (MockSuite, TestBrowser) async throws -> Void) async throws {
        PoolWatchdog.start()
        let suite = try await MockSuite.start(profile: loaded, host: host, mockIdPDirectory: mockIdP, publicHost: publicHost)
        let browser = TestBrowser()
        do {
            try await body(suite, browser)
        } catch {
            try? await browser.shutdown()
            await suite.stop()
            throw error
        }
        try await browser.shutdown()
        await suite.stop()
    }

    /// The user as the profile lists it.
    public static func user(_ suite: MockSuite, _ name: String = "alice") -> TestUser {
        suite.environment.profile.profile.user(named: name)!
    }

    /// Walks the IdP's pages from `page` on: the login form (with `user`'s password unless
    /// `password` is given), the second factor, consent, up to the auto-post page, which it
    /// submits; returns the SP's answer to that POST (not followed).
    public static func completeLogin(_ browser: TestBrowser, from page: TestBrowser.Page, user: TestUser,
                              password: String? = nil, consent: Bool = true) async throws -> TestBrowser.Page {
        var current = try await browser.follow(page)
        for _ in 0..<8 {
            let form = current.forms.first
            if let form, form.value("SAMLResponse") != nil {
                return try await browser.submit(current)
            }
            if let form, form.fields.contains(where: { $0.name == "j_username" || $0.name == "username" }) {
                let names = form.fields.contains { $0.name == "j_username" } ? ("j_username", "j_password") : ("username", "password")
                current = try await browser.submit(current, values: [names.0: user.username, names.1: password ?? user.password],
                                                   button: names.0 == "j_username" ? ("_eventId_proceed", "") : nil)
            } else if let form, form.fields.contains(where: { $0.name == "j_tokenNumber" }) {
                current = try await browser.submit(current, values: ["j_tokenNumber": user.secondFactorCode ?? "123456"],
                                                   button: ("_eventId_proceed", ""))
            } else if form != nil, current.body.contains("_shib_idp_consentIds") {
                current = try await browser.submit(
                    current, values: ["_shib_idp_consentOptions": "_shib_idp_rememberConsent"],
                    button: consent ? ("_eventId_proceed", "Accept") : ("_eventId_AttributeReleaseRejected", "Reject"))
            } else {
                return current
            }
            current = try await browser.follow(current)
        }
        throw BrowserError("the login did not end after 8 pages; last page \(current.url) (\(current.status))")
    }

    /// A whole Web SSO login: `/secure`, the IdP, back to the SP; returns the final page.
    public static func webSSO(_ suite: MockSuite, _ browser: TestBrowser, user: String = "alice") async throws -> TestBrowser.Page {
        let start = try await browser.get(suite.readyInfo().sp.secure)
        let acsAnswer = try await completeLogin(browser, from: start, user: self.user(suite, user))
        return try await browser.follow(acsAnswer)
    }

    /// The SP's verdict on the last Response it received: `sp.rejected` or nil when accepted.
    public static func spVerdict(_ suite: MockSuite) -> (rejected: String?, accepted: String?) {
        let acs = suite.log.entries.last { $0.mock == "sp" && $0.request.path.contains("/Shibboleth.sso/SAML2/") }
        return (acs?.annotations["sp.rejected"], acs?.annotations["sp.accepted"])
    }
}
