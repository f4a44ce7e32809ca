import Foundation
import MockServers
import enum SAMLCore.PrivateFile

/// The Kerberos realm a scenario's client logs in from (`options.kerberos`): the directory
/// `scripts/setup-kerberos.sh start DIR` made, named by `SAMLH_KERBEROS` — the same variable
/// the mocks read their keytab from (MockServers' `KerberosAcceptor`). The runner gets the
/// scenario's user a TGT with MIT's `kinit` (the password on its standard input, never on a
/// command line), as a desktop joined to the domain holds one after the Windows login.
public struct KerberosRealm: Sendable {
    public let directory: URL
    public var configuration: URL { directory.appendingPathComponent("krb5.conf") }

    public static let realm = KerberosAcceptor.realm

    /// Why a Kerberos scenario is skipped without a realm (or in a build without Kerberos).
    public static let missing = KerberosAcceptor.isAvailable
        ? "needs a Kerberos realm: run `bash scripts/setup-kerberos.sh start DIR` and set SAMLH_KERBEROS=DIR (docs/ntlm.md, Kerberos)"
        : "needs Kerberos, and " + KerberosAcceptor.unavailable

    /// The realm `SAMLH_KERBEROS` names, when its `krb5.conf` is there and this build reads
    /// Kerberos (``KerberosAcceptor/isAvailable``).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> KerberosRealm? {
        guard KerberosAcceptor.isAvailable, let path = environment["SAMLH_KERBEROS"], !path.isEmpty else { return nil }
        let realm = KerberosRealm(directory: URL(fileURLWithPath: path))
        return FileManager.default.fileExists(atPath: realm.configuration.path) ? realm : nil
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The realm's own password for `user` (`DIR/users.tsv`, written by setup-kerberos.sh from
    /// the `windows` profile): the domain password a desktop user typed at the Windows login,
    /// which another profile's password for the same name (AD FS's) need not be.
    func password(of user: String) -> String? {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("users.tsv"), encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            if fields.count == 2, fields[0] == user { return String(fields[1]) }
        }
        return nil
    }

    /// Runs `kinit user@EXAMPLE.ORG` into `cache` with the realm's password for the user (else
    /// `password`); the variables that point a client at the cache. kinit runs on a thread of its
    /// own (``ClientProcessRunner``), bounded by `timeout`, reading the password from a file of
    /// mode 0600 beside the cache (removed at once): no pipe to break, no password on a command line.
    public func ticket(user: String, password given: String, cache: URL, timeout: TimeInterval = 30) async throws -> [String: String] {
        let password = password(of: user) ?? given
        let variables = ["KRB5_CONFIG": configuration.path, "KRB5CCNAME": "FILE:" + cache.path]
        guard let kinit = ["/usr/bin/kinit", "/usr/local/bin/kinit"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "a Kerberos scenario needs MIT's kinit (Debian: krb5-user; bash scripts/setup-kerberos.sh install)")
        }
        let input = cache.deletingLastPathComponent().appendingPathComponent(cache.lastPathComponent + ".in")
        do {
            try PrivateFile.write(password + "\n", to: input.path)
        } catch {
            throw Failure(description: "cannot write kinit's input beside \(cache.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: input) }
        let principal = "\(user)@\(Self.realm)"
        let environment = ProcessInfo.processInfo.environment.merging(variables) { _, new in new }
        let outcome = await ClientProcessRunner().run(
            command: "exec \(ClientProcessRunner.shellQuoted(kinit)) \(ClientProcessRunner.shellQuoted(principal))",
            directory: nil, environment: environment, timeout: timeout, stdinFile: input.path)
        guard outcome.status == 0, !outcome.timedOut else {
            let said = (outcome.launchError ?? (outcome.stderr + outcome.stdout))
                .replacingOccurrences(of: "Password for \(principal): ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
            let why = outcome.timedOut ? "no answer within \(Int(timeout)) s" : said
            throw Failure(description: "kinit \(principal) failed in the realm \(directory.path): \(why)")
        }
        return variables
    }
}
