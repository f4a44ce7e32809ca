import ArgumentParser
import Foundation
import SAMLCore

struct VerifyResponseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-response",
        abstract: "Strict SP-side validation of a SAML Response.",
        discussion: """
        FILE holds the Response as XML, as its base64 value (line-wrapped or not), as a form \
        body or an HTML auto-submit page, or is - for standard input.
        Exit 0 and one line `valid: nameid=<NameID exactly as read> attributes=<JSON>`, or \
        exit 1 and one line `invalid: <reason-code>: <explanation>`; exit 2 on a usage error \
        (unreadable certificate, bad option).
        """
    )

    @Argument(help: "The Response (file path, or - for standard input).")
    var file: String

    @Option(help: "PEM certificate (or public key) of the IdP: the only key trusted.")
    var idpCert: [String]

    @Option(help: "The IdP's entityID (expected Issuer).")
    var idpEntityID: String

    @Option(help: "This SP's entityID (expected Audience).")
    var spEntityID: String

    @Option(help: "This SP's AssertionConsumerService URL (expected Destination and Recipient).")
    var acsURL: String

    @Option(help: "ID of the AuthnRequest this Response answers; omit for IdP-initiated (unsolicited) SSO.")
    var requestID: String?

    @Option(help: "Validate as of this instant (ISO 8601), instead of now.")
    var now: String?

    @Option(help: "Clock skew allowed, in seconds.")
    var skew: Double = 180

    @Option(help: "PEM private key of the SP, to decrypt an EncryptedAssertion (repeatable).")
    var spKey: [String] = []

    @Option(help: "Which signature is required: either, assertion, response, both.")
    var require: String = "either"

    @Flag(help: "Accept rsa-sha1 / sha1 (a deprecated algorithm, refused by default).")
    var allowSHA1 = false

    @Flag(help: "Accept a Response without InResponseTo even when --request-id is given.")
    var allowUnsolicited = false

    func run() throws {
        let config: SPValidator.Configuration
        do {
            config = try configuration()
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let loaded: MessageInput.Loaded
        do {
            loaded = try MessageInput.decode(try MessageInput.read(path: file), source: file == "-" ? "standard input" : file)
        } catch let failure as MessageInput.Failure {
            print("invalid: \(failure.code): \(failure.message)")
            throw ExitCode(1)
        }
        switch SPValidator(configuration: config).validate(loaded.xml) {
        case .success(let result):
            print("valid: nameid=\(result.nameID.value) attributes=\(Self.attributesJSON(result.attributes))")
        case .failure(let failure):
            print("invalid: \(failure)")
            throw ExitCode(1)
        }
    }

    private func configuration() throws -> SPValidator.Configuration {
        guard !idpCert.isEmpty else { throw ValidationError("--idp-cert is required") }
        let keys = try idpCert.map { path -> PublicKey in
            let text = try MessageInput.read(path: path, limit: 1 << 20)
            do { return try PublicKey(pem: text) } catch { throw ValidationError("--idp-cert \(path): \(error)") }
        }
        let decryption = try spKey.map { path -> PrivateKey in
            let text = try MessageInput.read(path: path, limit: 1 << 20)
            do { return try PrivateKey(pem: text) } catch { throw ValidationError("--sp-key \(path): \(error)") }
        }
        var clock: SAMLClock = SystemClock()
        if let now {
            do { clock = FixedClock(try SAMLDateTime.date(from: now)) } catch {
                throw ValidationError("--now \(now) is not an ISO 8601 instant such as 2030-01-01T00:00:00Z")
            }
        }
        guard skew >= 0, skew.isFinite else { throw ValidationError("--skew must be a non-negative number of seconds") }
        guard let requirement = SPValidator.SignatureRequirement(rawValue: require) else {
            throw ValidationError("--require must be one of either, assertion, response, both")
        }
        return SPValidator.Configuration(
            idpEntityID: idpEntityID, idpKeys: keys, spEntityID: spEntityID, acsURL: acsURL, requestID: requestID,
            allowUnsolicited: allowUnsolicited, clock: clock, skew: skew, allowSHA1: allowSHA1,
            signatureRequirement: requirement, decryptionKeys: decryption)
    }

    /// Attributes as one-line JSON: {"FriendlyName or Name": ["value", …]}, keys sorted.
    static func attributesJSON(_ attributes: [Attribute]) -> String {
        var map: [String: [String]] = [:]
        for a in attributes { map[a.friendlyName ?? a.name, default: []].append(contentsOf: a.stringValues) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(map)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
