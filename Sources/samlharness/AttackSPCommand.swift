import ArgumentParser
import AsyncHTTPClient
import Foundation
import Harness
import MockServers
import NIOCore
import SAMLCore

struct AttackSPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attack-sp",
        abstract: "Deliver the attack catalog (XSW1–8, comment injection, signature exclusion…) to a real SP's ACS and report what it accepted.",
        discussion: """
        The mock IdP (in-process, signing with the profile's IdP key) builds a valid Response \
        and one forged Response per attack, and posts each to the SP's HTTP-POST ACS as a \
        browser would, following the SP's redirects (same origin only) with a fresh cookie jar. \
        An answer whose body matches --success-pattern (and not --failure-pattern, status < 400) \
        counts as a login. An attack that forges an identity is ACCEPTED only when the SP logged \
        in the forged identity: --identity-pattern, --session-url and --sp-log tell who was \
        logged in (without them, the final page is searched); a login as the signed subject is \
        ignored-forgery, an unknown one inconclusive. Acceptances a product documents as its \
        default (--sp-product; Shibboleth SP is detected by its cookie) are reported as policy, \
        with the setting that changes them. The baseline must be accepted first. Responses are \
        unsolicited (IdP-initiated): the SP must accept those at this ACS.
        Exit 0: every attack rejected, ignored, or accepted as a documented policy; 1: some attack \
        ACCEPTED or inconclusive (or policy, with --fail-on-policy); 2: usage or configuration \
        error, the baseline was refused, or an identity source does not show the baseline's user. \
        See docs/attack-sp.md.
        """
    )

    @Option(help: "The SP's metadata (EntityDescriptor or EntitiesDescriptor): its entityID and HTTP-POST ACS.")
    var metadata: String?

    @Option(help: "The SP's HTTP-POST AssertionConsumerService URL (instead of --metadata).")
    var acs: String?

    @Option(name: .customLong("sp-entity-id"), help: "The SP's entityID (the Audience); with --metadata, picks one SP of an aggregate.")
    var spEntityID: String?

    @Option(help: "Regular expression the SP's page after a successful login matches (e.g. 'Welcome|Logout').")
    var successPattern: String?

    @Option(help: "Regular expression of the SP's error page; a match is a rejection whatever else matches.")
    var failurePattern: String?

    @Option(help: "Regular expression over the page after login whose first capture group is the logged-in user (e.g. 'REMOTE_USER=([^<\\s]+)').")
    var identityPattern: String?

    @Option(name: .customLong("session-url"), help: "A page of the SP (same origin as the ACS) showing the session's NameID and attributes, fetched with the post's cookies (Shibboleth SP: BASE/Shibboleth.sso/Session with showAttributeValues=\"true\").")
    var sessionURL: String?

    @Option(name: .customLong("sp-log"), help: "A log file of the SP naming each login (Shibboleth SP: transaction.log); the lines written during each post are read.")
    var spLog: String?

    @Option(name: .customLong("sp-product"), help: "The SP's product, for its documented default policies: \(SPProduct.allCases.map(\.rawValue).joined(separator: ", ")), or none (default: detected; Shibboleth SP by its _shibsession_ cookie).")
    var spProduct: String?

    @Flag(name: .customLong("fail-on-policy"), help: "Exit 1 also when an attack is accepted as a product's documented policy.")
    var failOnPolicy = false

    @Option(help: "Only these attack ids (comma-separated or repeated).")
    var only: [String] = []

    @Option(name: .customLong("json-out"), help: "Also write the report as JSON to this file.")
    var jsonOut: String?

    @Option(name: .customLong("json"), help: .hidden)
    var deprecatedJSON: String?

    /// `--json-out`, or the older `--json FILE` (deprecated: `--json` alone means JSON on
    /// standard output elsewhere, as in `list --json`).
    var json: String? {
        if let deprecatedJSON {
            FileHandle.standardError.write(Data("note: `--json FILE` is deprecated; use `--json-out FILE`\n".utf8))
            return deprecatedJSON
        }
        return jsonOut
    }

    @Option(help: "RelayState posted with every Response (the SP's target after login).")
    var relayState: String?

    @Option(name: .customLong("idp-entity-id"), help: "The IdP entityID the Responses are issued by (the SP must trust it).")
    var idpEntityID = "https://idp.samlharness.test/idp/shibboleth"

    @Option(name: .customLong("idp-metadata-out"), help: "Write the mock IdP's metadata (entityID, signing certificate) here for the SP to trust; alone, write it and exit.")
    var idpMetadataOut: String?

    @Option(help: "The IdP profile whose keys sign (a folder of MockIdP/).")
    var profile = "shibboleth"

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory (default: found above the working directory).")
    var mockIdPDirectory: String?

    @Option(help: "The attacker's own account: the NameID of the valid Responses.")
    var nameid = "alice@example.org"

    @Option(name: .customLong("victim-nameid"), help: "The identity the forged Responses claim.")
    var victimNameID = "admin@example.org"

    @Option(help: "Seconds allowed for each HTTP request.")
    var timeout: Int64 = 10

    @Option(help: "Redirects followed after each POST (same origin as the ACS only).")
    var maxRedirects = 10

    @Flag(help: "List the attacks (id, description, reference) and exit.")
    var list = false

    func validate() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be 1…300 seconds") }
        guard (0...50).contains(maxRedirects) else { throw ValidationError("--max-redirects must be 0…50") }
        if list || (idpMetadataOut != nil && metadata == nil && acs == nil) { return }
        guard (metadata == nil) != (acs == nil) else { throw ValidationError("give exactly one of --metadata FILE or --acs URL") }
        if acs != nil, spEntityID == nil { throw ValidationError("--acs needs --sp-entity-id (the SP's entityID, expected as Audience)") }
        guard successPattern != nil else { throw ValidationError("--success-pattern is required: what the SP's page shows after a login") }
        if let spProduct, spProduct != "none", SPProduct(rawValue: spProduct) == nil {
            throw ValidationError("--sp-product must be one of \(SPProduct.allCases.map(\.rawValue).joined(separator: ", ")), none")
        }
    }

    func run() async throws {
        if list {
            for attack in AttackCatalog.all { print("\(attack.id)\t\(attack.summary)\t\(attack.reference)") }
            return
        }
        do {
            try await attack()
        } catch let error as AttackSPError {
            FileHandle.standardError.write(Data("attack-sp: \(error)\n".utf8))
            throw ExitCode(2)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("attack-sp: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    func attack() async throws {
        let directory = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
        var loaded = try LoadedProfile.load(named: profile, from: directory)
        loaded.profile.idp.entityID = idpEntityID
        loaded.knobs = []
        let certificatePath = loaded.profile.directory.map { URL(fileURLWithPath: loaded.profile.idp.certificate, relativeTo: $0).standardizedFileURL.path }
            ?? loaded.profile.idp.certificate
        if let idpMetadataOut {
            let environment = MockEnvironment(profile: loaded)
            environment.setBaseURL(Self.origin(of: idpEntityID) ?? "https://idp.samlharness.test", for: "idp")
            do {
                try Data(MockIdP.metadataXML(environment: environment).utf8).write(to: URL(fileURLWithPath: idpMetadataOut))
            } catch {
                throw AttackSPError.usage("cannot write --idp-metadata-out \(idpMetadataOut): \(error.localizedDescription)")
            }
            if metadata == nil && acs == nil {
                print("wrote the mock IdP's metadata (\(idpEntityID)) to \(idpMetadataOut)")
                return
            }
        }
        let target = try resolveTarget()
        FileHandle.standardError.write(Data("""
        attack-sp: the SP must trust IdP \(idpEntityID) signing with \(certificatePath)\(idpMetadataOut.map { " (metadata: \($0))" } ?? "")
        attack-sp: posting to \(target.acsURL) as SP \(target.spEntityID)

        """.utf8))
        let attacks = only.isEmpty ? AttackCatalog.all : try AttackSPRunner.select(only)
        let material = AttackMaterial(
            idpEntityID: idpEntityID, spEntityID: target.spEntityID, acsURL: target.acsURL,
            nameID: nameid, victimNameID: victimNameID,
            signer: XMLSigner(key: loaded.idpKey, certificate: loaded.idpCertificate),
            attackerSigner: XMLSigner(key: loaded.otherKey, certificate: loaded.otherCertificate))
        let identity = try AttackIdentitySources(identityPattern: identityPattern, sessionURL: sessionURL, spLog: spLog,
                                                 acsURL: target.acsURL)
        let judge = try AttackJudge(successPattern: successPattern ?? "", failurePattern: failurePattern)
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(timeout), read: .seconds(timeout))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let runner = AttackSPRunner(
            target: target, material: material, attacks: attacks,
            judge: judge,
            browser: AttackBrowser(transport: ClientTransport(client: client, timeout: .seconds(timeout)), maxRedirects: maxRedirects),
            relayState: relayState,
            identity: identity,
            product: spProduct.flatMap(SPProduct.init(rawValue:)), detectProduct: spProduct == nil)
        let report: AttackReport
        do {
            report = try await runner.run()
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        print(report.table(), terminator: "")
        if let json {
            do { try report.json().write(to: URL(fileURLWithPath: json)) } catch {
                throw AttackSPError.usage("cannot write --json-out \(json): \(error.localizedDescription)")
            }
        }
        let status = report.exitCode(failOnPolicy: failOnPolicy)
        if status != 0 { throw ExitCode(status) }
    }

    func resolveTarget() throws -> AttackTarget {
        if let acs {
            return try AttackTarget(acsURL: acs, spEntityID: spEntityID ?? "")
        }
        let path = metadata ?? ""
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 << 20 else {
            throw AttackSPError.usage("cannot read --metadata \(path) (missing, unreadable or over 16 MiB)")
        }
        return try AttackTarget.fromMetadata(Array(data), source: path, entityID: spEntityID)
    }

    static func origin(of url: String) -> String? {
        guard let c = URLComponents(string: url), let scheme = c.scheme, let host = c.host else { return nil }
        return "\(scheme)://\(host)\(c.port.map { ":\($0)" } ?? "")"
    }
}

/// `attack-sp`'s HTTP: AsyncHTTPClient, redirects left to ``AttackBrowser``, bounded in time
/// and in body size.
struct ClientTransport: AttackHTTPTransport {
    let client: HTTPClient
    let timeout: TimeAmount

    func send(_ request: AttackHTTPRequest) async throws -> AttackHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        let response = try await client.execute(outgoing, timeout: timeout)
        let body = try await response.body.collect(upTo: 8 << 20)
        return AttackHTTPResponse(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                                  body: Array(buffer: body))
    }
}
