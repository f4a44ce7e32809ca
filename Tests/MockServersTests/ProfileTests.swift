import TestSupport
import Foundation
import MockServers
import Testing

@Suite struct ProfileTests {
    @Test func everyProfileInMockIdPLoads() throws {
        let names = MockIdPDirectory.profileNames(in: SuiteFixture.mockIdP)
        #expect(names.count >= 4)
        for required in ["shibboleth", "shibboleth-basic", "simplesamlphp", "generic"] {
            #expect(names.contains(required))
        }
        for name in names {
            let loaded = try LoadedProfile.load(named: name, from: SuiteFixture.mockIdP)
            #expect(loaded.name == name)
            #expect(!loaded.profile.users.isEmpty)
            #expect(!loaded.profile.description.isEmpty)
        }
    }

    @Test func sharedUsersHaveHardPasswords() throws {
        let users = try LoadedProfile.load(named: "shibboleth", from: SuiteFixture.mockIdP).profile.users
        for character in ["+", "=", "&", "%", " "] {
            #expect(users.contains { $0.password.contains(character) }, "no password with \(character)")
        }
        #expect(users.contains { $0.password.unicodeScalars.contains { !$0.isASCII } })
    }

    func write(_ yaml: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString)/bad")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys = directory.deletingLastPathComponent().appendingPathComponent("keys")
        try FileManager.default.copyItem(at: SuiteFixture.mockIdP.appendingPathComponent("keys"), to: keys)
        let file = directory.appendingPathComponent("profile.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func error(loading yaml: String) throws -> ConfigurationError? {
        do {
            _ = try LoadedProfile.load(file: try write(yaml))
            return nil
        } catch let error as ConfigurationError {
            return error
        }
    }

    static let user = "users: [{username: u, password: p}]\n"

    @Test func aMisspeltKeyIsNamedWithItsLine() throws {
        let error = try #require(try error(loading: "name: bad\nidp:\n  login: form\n  second_factr: true\n" + Self.user))
        #expect(error.line == 4)
        #expect(error.message.contains("second_factr"))
        #expect(error.file.hasSuffix("profile.yaml"))
    }

    @Test func aWrongTypeSaysWhatWasExpected() throws {
        let error = try #require(try error(loading: "name: bad\nidp:\n  lockout_after: many\n" + Self.user))
        #expect(error.line == 3)
        #expect(error.message.contains("idp.lockout_after"))
    }

    @Test func aBadEnumValueAndABadKnobAreRefused() throws {
        let login = try #require(try error(loading: "name: bad\nidp:\n  login: telepathy\n" + Self.user))
        #expect(login.message.contains("idp.login"))
        let knob = try #require(try error(loading: "name: bad\nknobs: [wrong-audiance]\n" + Self.user))
        #expect(knob.message.contains("unknown knob `wrong-audiance`"))
    }

    @Test func brokenYAMLAndAliasesAreRefusedWithALine() throws {
        let syntax = try #require(try error(loading: "name: bad\nidp: [unclosed\n"))
        #expect(syntax.line != nil)
        #expect(syntax.message.contains("not valid YAML"))
        let alias = try #require(try error(loading: "name: &a bad\ndescription: *a\n" + Self.user))
        #expect(alias.line == 2)
    }

    @Test func anUnknownProfileListsTheKnownOnes() {
        do {
            _ = try LoadedProfile.load(named: "keycloak", from: SuiteFixture.mockIdP)
            Issue.record("loaded a profile that does not exist")
        } catch {
            #expect("\(error)".contains("known profiles: "))
            #expect("\(error)".contains("shibboleth"))
        }
    }
}

@Suite(.serialized) struct TrafficLogExportTests {
    @Test func everyExchangeIsLoggedInOrderAndExportsAsHAR() async throws {
        try await SuiteFixture.with("shibboleth") { suite, browser in
            suite.log.currentRun = "run-1"
            _ = try await SuiteFixture.webSSO(suite, browser)
            let entries = suite.log.entries
            #expect(entries.count == browser.history.count)
            #expect(entries.map(\.sequence) == Array(0..<entries.count))
            #expect(entries.allSatisfy { $0.run == "run-1" })
            #expect(Set(entries.map(\.mock)) == ["sp", "idp"])
            let har = try JSONSerialization.jsonObject(with: try suite.log.harJSON()) as? [String: Any]
            let log = try #require(har?["log"] as? [String: Any])
            #expect(log["version"] as? String == "1.2")
            let harEntries = try #require(log["entries"] as? [[String: Any]])
            #expect(harEntries.count == entries.count)
            let post = try #require(harEntries.first { ($0["request"] as? [String: Any])?["method"] as? String == "POST" && ((($0["request"] as? [String: Any])?["url"] as? String)?.contains("SAML2/POST") ?? false) })
            let postData = try #require((post["request"] as? [String: Any])?["postData"] as? [String: Any])
            #expect((postData["params"] as? [[String: String]])?.contains { $0["name"] == "SAMLResponse" } == true)
        }
    }
}
