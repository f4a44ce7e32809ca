import Foundation
import Testing
import TestSupport

/// `scripts/setup-tls.sh` run for real (`--no-trust`, into a throwaway `SAMLH_TLS_DIR`), then
/// read back with openssl: the local CA can vouch for loopback TLS servers and nothing else
/// that its constraints can express (docs/tls.md, issue 36), leaves end with it, and a CA made
/// by an older script is replaced together with what it issued.
@Suite(.serialized) struct TLSSetupScriptTests {
    static let script = SuiteFixture.repository.appendingPathComponent("scripts/setup-tls.sh").path

    /// A new empty directory for the script's material (removed by the caller).
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs the script with `--no-trust` into `directory`; it must succeed.
    static func setUp(_ directory: URL) async throws -> String {
        let outcome = try await ClientProcess.run("env", ["SAMLH_TLS_DIR=\(directory.path)", "bash", script, "--no-trust"])
        #expect(outcome.status == 0, "setup-tls.sh: \(outcome.stdout) \(outcome.stderr)")
        return outcome.stdout
    }

    static func openssl(_ arguments: [String]) async throws -> ClientProcess.Outcome {
        try await ClientProcess.run("openssl", arguments)
    }

    /// notAfter of a certificate, as seconds since 1970.
    static func notAfter(_ pem: URL) async throws -> Date {
        let out = try await openssl(["x509", "-in", pem.path, "-noout", "-enddate"]).stdout
        let text = try #require(out.split(separator: "=", maxSplits: 1).last).trimmingCharacters(in: .whitespacesAndNewlines)
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = TimeZone(identifier: "GMT")
        parser.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        let squeezed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return try #require(parser.date(from: squeezed), "notAfter \(text)")
    }

    /// A leaf signed now by the CA in `directory` with these extensions; returns its path.
    static func leaf(_ directory: URL, name: String, subject: String = "/CN=localhost", san: String,
                     eku: String = "serverAuth") async throws -> URL {
        let work = directory.appendingPathComponent("probe-\(name)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let ext = work.appendingPathComponent("leaf.ext")
        try Data(["basicConstraints = critical, CA:FALSE", "keyUsage = critical, digitalSignature",
                  "extendedKeyUsage = \(eku)", "subjectAltName = \(san)"].joined(separator: "\n").utf8).write(to: ext)
        let request = try await openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                          "-keyout", work.appendingPathComponent("leaf.key").path,
                                          "-out", work.appendingPathComponent("leaf.csr").path, "-subj", subject])
        #expect(request.status == 0, "\(request.stderr)")
        let signed = try await openssl(["x509", "-req", "-in", work.appendingPathComponent("leaf.csr").path,
                                        "-CA", directory.appendingPathComponent("ca.pem").path,
                                        "-CAkey", directory.appendingPathComponent("ca.key").path,
                                        "-set_serial", "0x1234", "-days", "30", "-extfile", ext.path,
                                        "-out", work.appendingPathComponent("leaf.pem").path])
        #expect(signed.status == 0, "\(signed.stderr)")
        return work.appendingPathComponent("leaf.pem")
    }

    static func verify(_ directory: URL, _ leaf: URL, purpose: String? = nil) async throws -> ClientProcess.Outcome {
        try await openssl(["verify"] + (purpose.map { ["-purpose", $0] } ?? [])
                          + ["-CAfile", directory.appendingPathComponent("ca.pem").path, leaf.path])
    }

    @Test func theCAIsConstrainedToLocalhostServerAuthAndTwoYears() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.setUp(directory)
        let ca = directory.appendingPathComponent("ca.pem")
        let text = try await Self.openssl(["x509", "-in", ca.path, "-noout", "-ext", "extendedKeyUsage,nameConstraints"]).stdout
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines == ["X509v3 Extended Key Usage:", "TLS Web Server Authentication",
                          "X509v3 Name Constraints: critical", "Permitted:", "DNS:localhost", "email:.invalid"], "\(text)")
        // 730 days exactly (`openssl x509 -days` counts from the second it was made).
        let start = try await Self.openssl(["x509", "-in", ca.path, "-noout", "-checkend", String(729 * 86400)])
        let end = try await Self.openssl(["x509", "-in", ca.path, "-noout", "-checkend", String(731 * 86400)])
        #expect(start.status == 0 && end.status != 0, "the CA lives 730 days: \(start.stdout) \(end.stdout)")
        // Every leaf the CA issued (the good one, the faults valid now) ends with it at the
        // latest, and is for server authentication only.
        let caEnd = try await Self.notAfter(ca)
        let faults = directory.appendingPathComponent("faults")
        for leaf in [directory.appendingPathComponent("server.pem")]
            + ["wrong-host", "weak-key", "sha1", "missing-intermediate"].map({ faults.appendingPathComponent("\($0)/server.pem") }) {
            #expect(try await Self.notAfter(leaf) <= caEnd, "\(leaf.path) outlives the CA")
            let eku = try await Self.openssl(["x509", "-in", leaf.path, "-noout", "-ext", "extendedKeyUsage"]).stdout
            #expect(eku.contains("TLS Web Server Authentication") && !eku.contains(","), "\(leaf.path): \(eku)")
        }
        let good = try await Self.verify(directory, directory.appendingPathComponent("server.pem"), purpose: "sslserver")
        #expect(good.status == 0, "\(good.stdout) \(good.stderr)")
    }

    @Test func theCARefusesMailboxesNamedSitesAndOtherPurposes() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.setUp(directory)
        // S/MIME: an e-mail address in the SAN, or in the subject's emailAddress (checked by
        // OpenSSL against rfc822Name constraints too).
        for (name, subject, san, eku) in [("smime", "/CN=alice", "email:alice@example.com", "emailProtection"),
                                          ("mail-in-san", "/CN=localhost", "DNS:localhost, email:alice@example.com", "serverAuth"),
                                          ("mail-in-subject", "/CN=localhost/emailAddress=alice@example.com", "DNS:localhost", "serverAuth"),
                                          ("named-site", "/CN=bank.example", "DNS:bank.example", "serverAuth")] {
            let leaf = try await Self.leaf(directory, name: name, subject: subject, san: san, eku: eku)
            let refused = try await Self.verify(directory, leaf)
            #expect(refused.status != 0, "\(name) was accepted: \(refused.stdout)")
            #expect((refused.stdout + refused.stderr).contains("permitted subtree violation"), "\(name): \(refused.stdout) \(refused.stderr)")
        }
        // Purposes: the CA's EKU (serverAuth) limits the chain; a client or S/MIME certificate
        // below it is refused for its purpose even when its own EKU asks for it.
        let client = try await Self.leaf(directory, name: "client", san: "DNS:localhost", eku: "clientAuth")
        #expect(try await Self.verify(directory, client, purpose: "sslclient").status != 0)
        let mail = try await Self.leaf(directory, name: "mail", subject: "/CN=x", san: "email:x@mail.invalid", eku: "emailProtection")
        let smime = try await Self.verify(directory, mail, purpose: "smimesign")
        #expect(smime.status != 0, "\(smime.stdout)")
        // What it still does (docs/tls.md: no IP constraint, BoringSSL refuses them): a server
        // certificate for another IP address. Asserted so the documentation stays true.
        let otherIP = try await Self.leaf(directory, name: "other-ip", subject: "/O=x", san: "IP:10.1.2.3")
        #expect(try await Self.verify(directory, otherIP, purpose: "sslserver").status == 0)
    }

    @Test func aCAFromAnOlderScriptIsReplacedWithWhatItIssued() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.setUp(directory)
        // The shape the script made before issue 36: DNS constraint only, no EKU, 10 years.
        let old = """
            [req]
            distinguished_name = dn
            prompt = no
            x509_extensions = v3_ca
            [dn]
            O = SAMLHarness
            OU = generated on this machine by scripts/setup-tls.sh
            CN = SAMLHarness local test CA
            [v3_ca]
            basicConstraints = critical, CA:TRUE, pathlen:1
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            nameConstraints = critical, permitted;DNS:localhost
            """
        let cnf = directory.appendingPathComponent("ca.cnf")
        try Data((old + "\n").utf8).write(to: cnf)
        let made = try await Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                           "-keyout", directory.appendingPathComponent("ca.key").path,
                                           "-out", directory.appendingPathComponent("ca.pem").path, "-days", "3650", "-config", cnf.path])
        #expect(made.status == 0, "\(made.stderr)")
        let oldPrint = try await Self.openssl(["x509", "-in", directory.appendingPathComponent("ca.pem").path, "-noout", "-fingerprint", "-sha256"]).stdout
        let migrated = try await Self.setUp(directory)
        #expect(migrated.contains("created the local CA") && migrated.contains("replacing"), "\(migrated)")
        #expect(migrated.contains("issued"), "the server certificate follows: \(migrated)")
        #expect(migrated.contains("(expired not-yet-valid wrong-host missing-intermediate weak-key sha1)"),
                "the faults from the local CA follow, the others stay: \(migrated)")
        let newPrint = try await Self.openssl(["x509", "-in", directory.appendingPathComponent("ca.pem").path, "-noout", "-fingerprint", "-sha256"]).stdout
        #expect(newPrint != oldPrint)
        // Idempotent again: a second run makes nothing.
        let again = try await Self.setUp(directory)
        #expect(!again.contains("created") && !again.contains("issued") && !again.contains("made the certificate faults"), "\(again)")

        // A CA whose ca.cnf is today's but whose certificate is not (made by hand, or the
        // file copied over): told by what ca.pem says, replaced too.
        let bare = try await Self.openssl(["req", "-x509", "-new", "-key", directory.appendingPathComponent("ca.key").path,
                                           "-out", directory.appendingPathComponent("ca.pem").path, "-days", "730",
                                           "-subj", "/CN=hand-made", "-addext", "basicConstraints=critical,CA:TRUE"])
        #expect(bare.status == 0, "\(bare.stderr)")
        let replaced = try await Self.setUp(directory)
        #expect(replaced.contains("created the local CA"), "\(replaced)")
    }

    /// The local CA re-signed by its own key with today's extensions but other dates (730 days
    /// from `daysAgo` days ago), through `openssl ca -selfsign` (`req -x509` cannot backdate).
    static func backdate(_ directory: URL, daysAgo: Int) async throws {
        let db = directory.appendingPathComponent("backdate-db")
        try FileManager.default.createDirectory(at: db, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: db) }
        try Data().write(to: db.appendingPathComponent("index.txt"))
        try Data("01\n".utf8).write(to: db.appendingPathComponent("serial"))
        try Data(["[ca]", "default_ca = c", "[c]", "database = \(db.path)/index.txt", "new_certs_dir = \(db.path)",
                  "serial = \(db.path)/serial", "default_md = sha256", "policy = any", "email_in_dn = no", "unique_subject = no",
                  "[any]", "organizationName = optional", "organizationalUnitName = optional", "commonName = supplied"]
            .joined(separator: "\n").utf8).write(to: db.appendingPathComponent("ca.cnf"))
        let stamp = DateFormatter()
        stamp.locale = Locale(identifier: "en_US_POSIX")
        stamp.timeZone = TimeZone(identifier: "UTC")
        stamp.dateFormat = "yyyyMMddHHmmss'Z'"
        let start = Date().addingTimeInterval(-Double(daysAgo) * 86400)
        let csr = db.appendingPathComponent("ca.csr").path
        let cnf = directory.appendingPathComponent("ca.cnf").path
        let key = directory.appendingPathComponent("ca.key").path
        #expect(try await openssl(["req", "-new", "-key", key, "-config", cnf, "-out", csr]).status == 0)
        let signed = try await openssl(["ca", "-batch", "-notext", "-selfsign", "-config", db.appendingPathComponent("ca.cnf").path,
                                        "-keyfile", key, "-extfile", cnf, "-extensions", "v3_ca", "-preserveDN",
                                        "-startdate", stamp.string(from: start),
                                        "-enddate", stamp.string(from: start.addingTimeInterval(730 * 86400)),
                                        "-in", csr, "-out", directory.appendingPathComponent("ca.pem").path])
        #expect(signed.status == 0, "\(signed.stderr)")
    }

    @Test func aCAAboutToEndIsRenewedWithTheLeavesItIssued() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.setUp(directory)
        // Today's shape, 100 days into its life: kept (the faults it signs are re-made, since
        // the certificate changed; the server certificate still chains and is kept).
        try await Self.backdate(directory, daysAgo: 100)
        let kept = try await Self.setUp(directory)
        #expect(!kept.contains("created the local CA"), "\(kept)")
        // 710 days into its 730: 20 left, under the 31-day margin: made again, and the server
        // certificate and the faults it issued with it.
        try await Self.backdate(directory, daysAgo: 710)
        let renewed = try await Self.setUp(directory)
        #expect(renewed.contains("created the local CA") && renewed.contains("issued"), "\(renewed)")
        #expect(renewed.contains("(expired not-yet-valid wrong-host missing-intermediate weak-key sha1)"), "\(renewed)")
        let end = try await Self.openssl(["x509", "-in", directory.appendingPathComponent("ca.pem").path, "-noout",
                                          "-checkend", String(729 * 86400)])
        #expect(end.status == 0, "the new CA has its full 730 days")
    }
}
