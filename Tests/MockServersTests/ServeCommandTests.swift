import TestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `samlharness serve` as a user runs it: the ready line, the endpoints, SIGTERM.
@Suite struct ServeCommandTests {
    static var binary: URL { HarnessBinary.url }

    @Test func printsOneReadyLineAndStopsOnSIGTERM() async throws {
        let serve = try await ServeProcess.start(["--profile", "shibboleth-basic", "--knob", "wrong-audience",
                                                  "--mockidp-dir", SuiteFixture.mockIdP.path])
        defer { serve.terminate() }
        let ready = serve.ready
        #expect(ready["event"] as? String == "ready")
        #expect(ready["profile"] as? String == "shibboleth-basic")
        #expect(ready["knobs"] as? [String] == ["wrong-audience"])
        let sp = try #require(ready["sp"] as? [String: String])
        let users = try #require(ready["users"] as? [[String: String]])
        #expect(users.first?["username"] == "alice")
        #expect((ready["startup_ms"] as? Double).map { $0 > 0 } == true)
        // The SP answers on the advertised URL.
        let metadataText = try #require(sp["metadata"])
        let metadataURL = try #require(URL(string: metadataText))
        let (data, _) = try await URLSession.shared.data(from: metadataURL)
        #expect(String(decoding: data, as: UTF8.self).contains("SPSSODescriptor"))
        // CAS, AD FS and the circulation manager answer on their advertised URLs too.
        let cas = try #require(ready["cas"] as? [String: String])
        let adfs = try #require(ready["adfs"] as? [String: Any])
        let cm = try #require(ready["cm"] as? [String: String])
        #expect(cas["tickets"]?.hasSuffix("/cas/v1/tickets") == true)
        #expect(adfs["usernamemixed_13"] as? String != nil)
        for (url, expected) in [(adfs["federation_metadata"] as? String, "EntityDescriptor"),
                                (cm["authentication_document"], "http://librarysimplified.org/authtype/SAML-2.0"),
                                (cas["service"], "Central Authentication Service")] {
            let target = try #require(url.flatMap(URL.init(string:)))
            let (body, answer) = try await URLSession.shared.data(from: target)
            #expect((answer as? HTTPURLResponse)?.statusCode == 200, "\(target)")
            #expect(String(decoding: body, as: UTF8.self).contains(expected), "\(target)")
        }
        #expect(await serve.stop().status == 0)  // SIGTERM
    }

    @Test func anUnknownProfileExitsTwoNamingIt() async throws {
        let outcome = try await ClientProcess.run(Self.binary.path, ["serve", "--profile", "nope", "--mockidp-dir", SuiteFixture.mockIdP.path])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("no profile `nope`"))
    }

    @Test func aBadKnobIsAUsageError() async throws {
        let outcome = try await ClientProcess.run(Self.binary.path, ["serve", "--knob", "clock-skew=later"])
        #expect(outcome.status == 2)
    }
}

/// `serve --sp-metadata URL` of a server that accepts the connection and never answers: serve
/// gives up after its deadline with an error naming the URL, instead of never starting.
@Suite struct ServeMetadataDeadlineTests {
    @Test func aMetadataServerThatNeverAnswersIsAnErrorNotAHang() async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(bound == 0 && listen(fd, 8) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        // The kernel completes the handshake from the backlog; nothing ever reads or answers.
        let url = "http://127.0.0.1:\(port)/Shibboleth.sso/Metadata"
        let outcome = try await HarnessBinary.run(["serve", "--port", "0", "--sp-metadata", url,
                                                   "--mockidp-dir", SuiteFixture.mockIdP.path], timeout: 60)
        #expect(outcome.status != 0 && outcome.stdout.isEmpty, "\(outcome.stdout)")
        #expect(outcome.stderr.contains("\(url): --sp-metadata: no complete answer within 15 s"), "\(outcome.stderr)")
    }
}
