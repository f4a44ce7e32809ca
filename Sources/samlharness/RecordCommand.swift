import ArgumentParser
import Foundation
import Harness
import Recording
import enum SAMLCore.PrivateFile

extension RecordingProxy.Others: ExpressibleByArgument {}

/// `samlharness record --allow-host HOST --out Scenarios/recorded/NAME.yaml`: a recording
/// forward proxy for a device or app that has no DevTools; on SIGINT/SIGTERM it writes the HAR
/// and, through `import-har`'s importer, the replay scenario.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a real login through a forward proxy (TLS intercepted for allowed hosts); write the HAR and the replay scenario.",
        discussion: """
        Point a device, simulator, emulator or app at the proxy (HTTP and HTTPS proxy \
        HOST:PORT), log in, then press Ctrl-C (SIGINT) or send SIGTERM: the HAR 1.2 file is written \
        (unredacted, mode 0600) and imported into a replay scenario (--out, redacted unless \
        --no-redact), exactly as `import-har` would. Only --allow-host hosts are intercepted and \
        recorded; others are tunnelled untouched (--others tunnel, the default on loopback) or refused \
        (--others refuse). Listening beyond loopback (--listen 0.0.0.0:8080), other hosts are always \
        refused, so are loopback, private and link-local destinations (--allow-private-destinations \
        allows those), and the proxy asks a password (--proxy-user, else one made for the session and \
        printed). \
        HTTPS is intercepted with leaves from the recording CA (--ca-dir, made on first use; trust \
        its ca.pem on the device, and remove it afterwards). The real servers' certificates are \
        verified against the system trust store: a failure is answered 502, recorded and \
        reported (--insecure-upstream forwards anyway, marked). Prints a JSON ready line on \
        stdout, one line per recorded exchange on stderr. Exit 0 when the scenario is written, \
        1 when nothing could be imported, 2 on a usage error. See docs/recording.md.
        """)

    @Option(name: .customLong("allow-host"),
            help: ArgumentHelp("A host to intercept and record: idp.example.org, idp.example.org:8443, *.example.org "
                + "(repeatable; at least one).", valueName: "pattern"))
    var allowHost: [String] = []

    @Option(help: "The scenario to write: a .yaml path whose name (without .yaml) becomes the scenario id.")
    var out: String

    @Option(help: ArgumentHelp("Where the proxy listens. Loopback by default; 0.0.0.0:8080 lets a phone on the "
        + "network use it (and anyone else there: then other hosts and private destinations are refused and a "
        + "proxy password is asked).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @Option(name: .customLong("ca-dir"),
            help: ArgumentHelp("The recording CA's directory (ca.pem, ca.key); made on first use. "
                + "Default: $XDG_DATA_HOME/samlharness/recording-ca.", valueName: "dir"))
    var caDir: String?

    @Option(help: ArgumentHelp("Where to write the HAR (unredacted, mode 0600). "
        + "Default: $XDG_DATA_HOME/samlharness/recordings/NAME.har.", valueName: "file"))
    var har: String?

    @Flag(name: .customLong("no-redact"),
          help: "Keep passwords, tokens, cookie values, session IDs and personal attributes in the scenario (redacted by default).")
    var noRedact = false

    @Flag(inversion: .prefixedNo, help: ImportHARCommand.resignHelp)
    var resign: Bool?

    @Flag(help: "Overwrite --out when it exists.")
    var force = false

    @Flag(name: .customLong("insecure-upstream"),
          help: "Forward to servers whose certificate fails verification (each such exchange is marked; the problem is still reported).")
    var insecureUpstream = false

    @Option(name: .customLong("upstream-ca"),
            help: ArgumentHelp("PEM certificates to trust for the real servers, beside the system store.", valueName: "file"))
    var upstreamCA: String?

    @Option(help: ArgumentHelp("What to do with hosts not allowed: tunnel (untouched, unrecorded; the default on loopback) "
        + "or refuse (403; always when listening beyond loopback).", valueName: "tunnel|refuse"))
    var others: RecordingProxy.Others?

    @Option(name: .customLong("proxy-user"),
            help: ArgumentHelp("Ask clients for this user and password (Proxy-Authorization: Basic; 407 without). Beyond "
                + "loopback one is made for the session when not given.", valueName: "user:password"))
    var proxyUser: String?

    @Flag(name: .customLong("no-proxy-password"),
          help: "Beyond loopback, ask no proxy password (for a device whose proxy settings take none). Anyone who can reach the port can then record through it.")
    var noProxyPassword = false

    @Flag(name: .customLong("allow-private-destinations"),
          help: "Beyond loopback, still reach loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local and CGNAT addresses: an IdP on a private network.")
    var allowPrivateDestinations = false

    @Option(name: .customLong("max-body-mib"),
            help: ArgumentHelp("The largest request or response body recorded (larger requests get 413, larger answers 502).",
                               valueName: "MiB"))
    var maxBodyMiB = 64

    @Flag(help: "Also list the exchanges the import left out and why.")
    var verbose = false

    var patterns: [HostPattern] { (try? allowHost.map(HostPattern.init)) ?? [] }

    var listenAddress: (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    var scenarioID: String { ImportHARCommand.scenarioID(out: out) }

    var harPath: String {
        har ?? RecordingCA.defaultDirectory.deletingLastPathComponent()
            .appendingPathComponent("recordings/\(scenarioID).har").path
    }

    func validate() throws {
        guard !allowHost.isEmpty else {
            throw ValidationError("--allow-host: name at least one host to record (e.g. --allow-host idp.example.org "
                + "--allow-host sp.example.org); nothing else is intercepted")
        }
        for text in allowHost {
            do { _ = try HostPattern(text) } catch let invalid as HostPattern.Invalid { throw ValidationError(invalid.description) }
        }
        guard (1...1024).contains(maxBodyMiB) else { throw ValidationError("--max-body-mib \(maxBodyMiB): expected 1–1024") }
        guard let (host, _) = listenAddress else {
            throw ValidationError("--listen \(listen): expected HOST:PORT (127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080)")
        }
        let beyondLoopback = RecordingProxy.Options(host: host, allow: []).listensBeyondLoopback
        if others == .tunnel, beyondLoopback {
            throw ValidationError("--others tunnel with --listen \(listen): a proxy reachable from the network would let anyone "
                + "there reach any host through this machine; beyond loopback, hosts outside --allow-host are refused "
                + "(add --allow-host for each host the login needs, or listen on 127.0.0.1)")
        }
        if let proxyUser {
            do { _ = try ProxyCredentials(proxyUser) } catch let invalid as ProxyCredentials.Invalid {
                throw ValidationError(invalid.description)
            }
            if noProxyPassword { throw ValidationError("--proxy-user and --no-proxy-password: give one or the other") }
        }
        try ImportHARCommand.validateOut(out, force: force)
        if FileManager.default.fileExists(atPath: harPath), !force {
            throw ValidationError("--har \(harPath) exists; pass --force to overwrite it, or name another with --har")
        }
        if let upstreamCA, !FileManager.default.isReadableFile(atPath: upstreamCA) {
            throw ValidationError("--upstream-ca \(upstreamCA): no such readable file")
        }
    }

    func run() async throws {
        let signals = TerminationSignals()
        let directory = caDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? RecordingCA.defaultDirectory
        let ca: RecordingCA
        do {
            ca = try RecordingCA.loadOrCreate(at: directory)
        } catch {
            Self.stderr("error: \(error)")
            throw ExitCode(1)
        }
        if ca.created {
            Self.stderr("made the recording CA \(ca.certificateURL.path) (SHA-256 \(ca.fingerprintSHA256)); its key stays in "
                + "\(ca.keyURL.path) (mode 0600). Trust ca.pem on the device (docs/recording.md); remove it afterwards.")
        }
        let (host, port) = listenAddress!
        var options = RecordingProxy.Options(host: host, port: port, allow: patterns, others: others ?? .tunnel,
                                             insecureUpstream: insecureUpstream, upstreamCAFile: upstreamCA,
                                             maxBodyBytes: maxBodyMiB << 20, allowPrivateDestinations: allowPrivateDestinations)
        // Beyond loopback a password always, unless the user says the device cannot give one.
        options.credentials = try proxyUser.map(ProxyCredentials.init)
            ?? (options.listensBeyondLoopback && !noProxyPassword ? .random() : nil)
        let proxy: RecordingProxy
        let bound: (host: String, port: Int)
        do {
            proxy = try RecordingProxy(options: options, ca: ca, report: { Self.stderr($0) })
            bound = try await proxy.start()
        } catch {
            Self.stderr("error: cannot start the proxy on \(listen): \(error)")
            throw ExitCode(1)
        }
        let displayHost = bound.host.contains(":") ? "[\(bound.host)]" : bound.host
        let proxyURL = "http://\(displayHost):\(bound.port)"
        let effectiveOthers = options.effectiveOthers
        var ready: [String: Any] = [
            "event": "ready", "proxy": proxyURL, "ca": ca.certificateURL.path, "ca_sha256": ca.fingerprintSHA256,
            "leaf_spki_sha256": ca.leafSPKISHA256, "allow": patterns.map(\.description), "others": effectiveOthers.rawValue,
            "har": harPath, "out": out, "beyond_loopback": options.listensBeyondLoopback,
            "private_destinations": options.listensBeyondLoopback && !options.allowPrivateDestinations ? "refused" : "allowed",
        ]
        if let credentials = options.credentials {
            ready["proxy_user"] = credentials.user
            ready["proxy_password"] = credentials.password
        }
        let line = try JSONSerialization.data(withJSONObject: ready, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(line + Data("\n".utf8))
        Self.stderr("recording through \(proxyURL) (HTTP and HTTPS proxy); intercepting \(patterns.map(\.description).joined(separator: ", ")); "
            + "other hosts are \(effectiveOthers == .tunnel ? "tunnelled untouched" : "refused"). The CA for devices: \(proxyURL)/ca.crt "
            + "(or http://samlharness.record/ through the proxy). Ctrl-C stops and writes \(out).")
        if let credentials = options.credentials {
            Self.stderr("proxy user \(credentials.user), password \(credentials.password)"
                + (proxyUser == nil ? " (made for this session; --proxy-user USER:PASSWORD to choose one)" : "")
                + ": give them in the device's proxy settings.")
        }
        if options.listensBeyondLoopback {
            Self.stderr("listening on \(bound.host), beyond loopback: hosts outside --allow-host are refused"
                + (options.allowPrivateDestinations
                    ? "; loopback, private and link-local destinations are NOT refused (--allow-private-destinations)"
                    : ", and so are loopback, private and link-local destinations (--allow-private-destinations allows them)")
                + (options.credentials == nil ? "; warning: no proxy password (--no-proxy-password): anyone who can reach this port can record through it" : ""))
        }

        let signal = await signals.wait()
        Self.stderr("\(signal): stopping; writing the recording")
        await proxy.stop()
        try finish(proxy)
    }

    private func finish(_ proxy: RecordingProxy) throws {
        let summary = proxy.summary
        let count = proxy.log.entries.count
        let harURL = URL(fileURLWithPath: harPath)
        do {
            let data = try proxy.harJSON(version: HarnessVersion.current)
            let directory = harURL.deletingLastPathComponent()
            // A folder made for it is 0700; a folder of the user's own choosing keeps its mode.
            if !FileManager.default.fileExists(atPath: directory.path) { try PrivateFile.makeDirectory(directory.path) }
            try PrivateFile.write(data, to: harURL.path)
        } catch {
            Self.stderr("error: cannot write the HAR \(harURL.path): \(error)")
            throw ExitCode(1)
        }
        var lines = ["recorded \(count) exchange(s) → \(harURL.path) (unredacted, mode 0600)"]
        lines += summary.recorded.sorted { $0.key < $1.key }.map { "  recorded \($0.value) with \($0.key)" }
        lines += summary.passedThrough.sorted { $0.key < $1.key }.map { "  passed through unrecorded: \($0.key) (\($0.value)×)" }
        lines += summary.refused.sorted { $0.key < $1.key }.map { "  refused: \($0.key) (\($0.value)×)" }
        lines += summary.refusedDestinations.sorted { $0.key < $1.key }.map {
            "  refused: \($0.key): \($0.value) (beyond loopback; --allow-private-destinations allows it)"
        }
        if summary.unauthenticated > 0 {
            lines.append("  asked for the proxy password: \(summary.unauthenticated) request(s) without it (answered 407)")
        }
        lines += summary.upstreamCertificateProblems.sorted { $0.key < $1.key }.map {
            "  UPSTREAM CERTIFICATE FAILED: \($0.key): \($0.value)"
                + (insecureUpstream ? " (forwarded anyway: --insecure-upstream)" : " (answered 502, recorded)")
        }
        lines += summary.upstreamFailures.sorted { $0.key < $1.key }.map { "  upstream failed: \($0.key): \($0.value)" }
        lines += summary.clientRefusedCertificate.sorted { $0.key < $1.key }.map {
            "  the client refused the proxy's certificate for \($0.key): trust \(proxy.ca.certificateURL.path) on it"
        }
        print(lines.joined(separator: "\n"))
        guard count > 0 else {
            Self.stderr("error: nothing was recorded: no request reached an allowed host ("
                + patterns.map(\.description).joined(separator: ", ") + "); no scenario written")
            throw ExitCode(1)
        }
        let result: ChainImporter.Result
        do {
            result = try ChainImporter.importFile(at: harURL, options: .init(scenarioID: scenarioID, redact: !noRedact, resign: resign))
        } catch let error as RecordedImportError {
            Self.stderr("error: the recording \(harURL.path) could not be imported: \(error)")
            throw ExitCode(1)
        }
        try ImportHARCommand.write(result, from: harURL.path, to: out, verbose: verbose, privately: true)
    }

    static func stderr(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// `samlharness recording-ca show|remove`: the recording CA outside a recording.
struct RecordingCACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recording-ca",
        abstract: "Show (making it if missing) or remove the CA `samlharness record` intercepts HTTPS with.",
        subcommands: [Show.self, Remove.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the recording CA's path, SHA-256 fingerprint, validity and PEM (made on first use).")

        @Option(name: .customLong("ca-dir"), help: ArgumentHelp("The CA's directory.", valueName: "dir"))
        var caDir: String?

        func run() throws {
            let directory = caDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? RecordingCA.defaultDirectory
            let ca: RecordingCA
            do {
                ca = try RecordingCA.loadOrCreate(at: directory)
            } catch {
                RecordCommand.stderr("error: \(error)")
                throw ExitCode(1)
            }
            let day = Date.ISO8601FormatStyle().year().month().day()
            print("""
            certificate: \(ca.certificateURL.path)\(ca.created ? " (made now)" : "")
            key: \(ca.keyURL.path) (never printed)
            subject: \(ca.certificate.subject)
            sha256: \(ca.fingerprintSHA256)
            valid: \(ca.certificate.notValidBefore.formatted(day)) to \(ca.certificate.notValidAfter.formatted(day))
            \(ca.certificatePEM.trimmingCharacters(in: .whitespacesAndNewlines))
            """)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete ca.pem and ca.key (then remove the CA from every device that trusts it: docs/recording.md).")

        @Option(name: .customLong("ca-dir"), help: ArgumentHelp("The CA's directory.", valueName: "dir"))
        var caDir: String?

        func run() throws {
            let directory = caDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? RecordingCA.defaultDirectory
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("ca.cnf").path) {
                RecordCommand.stderr("error: \(directory.path) is the harness's local test CA (scripts/setup-tls.sh made it); "
                    + "remove that one with `bash scripts/setup-tls.sh --uninstall`")
                throw ExitCode(1)
            }
            do {
                if try RecordingCA.remove(at: directory) {
                    print("removed the recording CA in \(directory.path); now remove it from every device and store that trusts it "
                        + "(docs/recording.md, \"Removing the CA\")")
                } else {
                    print("no recording CA in \(directory.path)")
                }
            } catch {
                RecordCommand.stderr("error: cannot remove \(directory.path): \(error.localizedDescription)")
                throw ExitCode(1)
            }
        }
    }
}
