import Foundation
import Testing
@testable import SAMLCore

/// Runs the built `samlharness` binary (it sits beside the test bundle in the build folder).
enum CLI {
    static var binary: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("samlharness").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return dir.appendingPathComponent("samlharness").path
    }

    static func run(_ arguments: [String], stdin: String? = nil) async throws -> ExternalTool.Outcome {
        try await ExternalTool.run(binary, arguments, stdin: stdin)
    }

    static func verifyArgs(_ file: String, at instant: Date = ValidatorFixture.issued.addingTimeInterval(10)) -> [String] {
        ["verify-response", file, "--idp-cert", TestKeys.url("idp-cert.pem").path,
         "--idp-entity-id", ValidatorFixture.idp, "--sp-entity-id", ValidatorFixture.sp, "--acs-url", ValidatorFixture.acs,
         "--request-id", "_req1", "--now", SAMLDateTime.string(from: instant)]
    }
}

@Suite struct CLITests {
    let f: ValidatorFixture
    init() throws { f = try ValidatorFixture() }

    @Test func binaryIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: CLI.binary), "build with `swift build --build-tests` first: \(CLI.binary)")
    }

    @Test func verifyResponseAcceptsXMLFile() async throws {
        let file = try ExternalTool.temporaryFile(try f.response())
        defer { try? FileManager.default.removeItem(at: file) }
        let out = try await CLI.run(CLI.verifyArgs(file.path))
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout == "valid: nameid=alice@example.org attributes={\"mail\":[\"alice@example.org\"]}\n")
    }

    @Test func verifyResponseAcceptsLineWrappedBase64OnStdin() async throws {
        let base64 = SAMLBase64.encode(Array(try f.response().utf8), wrappingAt: 76, lineEnding: "\n")
        #expect(base64.contains("\n"))
        let out = try await CLI.run(CLI.verifyArgs("-"), stdin: base64)
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.hasPrefix("valid: nameid=alice@example.org"))
    }

    @Test func verifyResponseRefusesWithReasonCode() async throws {
        let tampered = try f.response().replacingOccurrences(of: ">alice@example.org<", with: ">admin@example.org<")
        let file = try ExternalTool.temporaryFile(tampered)
        defer { try? FileManager.default.removeItem(at: file) }
        let out = try await CLI.run(CLI.verifyArgs(file.path))
        #expect(out.status == 1)
        #expect(out.stdout.hasPrefix("invalid: signature.invalid: "))
        #expect(out.stdout.split(separator: "\n").count == 1)
        let late = try await CLI.run(CLI.verifyArgs(file.path, at: ValidatorFixture.issued.addingTimeInterval(3600)))
        #expect(late.status == 1)
        let fresh = try ExternalTool.temporaryFile(try f.response())
        defer { try? FileManager.default.removeItem(at: fresh) }
        let expired = try await CLI.run(CLI.verifyArgs(fresh.path, at: ValidatorFixture.issued.addingTimeInterval(3600)))
        #expect(expired.stdout.hasPrefix("invalid: subject-confirmation.expired: "))
    }

    @Test func verifyResponseUsageErrorsExitTwo() async throws {
        let file = try ExternalTool.temporaryFile(try f.response())
        defer { try? FileManager.default.removeItem(at: file) }
        var args = CLI.verifyArgs(file.path)
        args[3] = "/nonexistent/cert.pem"
        let out = try await CLI.run(args)
        #expect(out.status == 2)
        #expect(out.stderr.contains("/nonexistent/cert.pem"))
        let missing = try await CLI.run(["verify-response", file.path])
        #expect(missing.status == 2)
    }

    @Test func verifyResponseRefusesHostileAndHugeInput() async throws {
        let xxe = try ExternalTool.temporaryFile(#"<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>"#)
        defer { try? FileManager.default.removeItem(at: xxe) }
        let out = try await CLI.run(CLI.verifyArgs(xxe.path))
        #expect(out.status == 1)
        #expect(out.stdout.hasPrefix("invalid: xml.refused: xml.doctype-refused"))
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-big-\(UUID().uuidString).xml")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 50 * 1024 * 1024)
        try handle.close()
        defer { try? FileManager.default.removeItem(at: big) }
        let huge = try await CLI.run(CLI.verifyArgs(big.path))
        #expect(huge.status == 1)
        #expect(huge.stdout.hasPrefix("invalid: input.too-large"))
    }

    @Test func decodeExplainsPlusAsSpace() async throws {
        let result = try EncodingEdgeCaseResponse.make(factory: f.factory(), login: f.login(), clock: ValidatorFixture.clock, seed: 5)
        let damaged = result.base64.replacingOccurrences(of: "+", with: " ")
        let out = try await CLI.run(["decode", damaged, "--binding", "post", "--expected", result.base64])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("<samlp:Response"))
        #expect(out.stdout.contains("encoding.plus-as-space"))
    }

    @Test func decodeRedirectURL() async throws {
        let request = AuthnRequest.make(issuer: ValidatorFixture.sp, destination: "https://idp.example.org/idp/profile/SAML2/Redirect/SSO",
                                        assertionConsumerServiceURL: ValidatorFixture.acs, clock: ValidatorFixture.clock,
                                        ids: SeededIDGenerator(seed: 1))
        let url = try RedirectBinding.url(destination: "https://idp.example.org/idp/profile/SAML2/Redirect/SSO",
                                          message: Array(request.xml().utf8), kind: .request, relayState: "/secure?a=b")
        let out = try await CLI.run(["decode", url])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("AuthnRequest"))
        #expect(out.stdout.contains("RelayState: /secure?a=b"))
        #expect(out.stdout.contains("encoding: clean"))
    }

    @Test func keysWritesLoadablePEM() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        for algorithm in ["rsa2048", "ec-p256"] {
            let out = try await CLI.run(["keys", "--algorithm", algorithm, "--cn", "test-\(algorithm)", "--name", algorithm, "--out-dir", dir.path])
            #expect(out.status == 0, "\(out.stderr)")
            let key = try PrivateKey(contentsOf: dir.appendingPathComponent("\(algorithm)-key.pem"))
            let cert = try Certificate(contentsOf: dir.appendingPathComponent("\(algorithm)-cert.pem"))
            #expect(cert.subject == "CN=test-\(algorithm)")
            #expect(cert.publicKey.isSameKey(as: key.publicKey))
        }
        let again = try await CLI.run(["keys", "--name", "rsa2048", "--out-dir", dir.path])
        #expect(again.status == 2)
    }
}
