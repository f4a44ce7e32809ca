import ArgumentParser
import Foundation
import Harness
import enum SAMLCore.PrivateFile

/// `samlharness import-har FILE --out Scenarios/recorded/NAME.yaml [--redact]`: a browser HAR
/// or a SAML-tracer export → a `replay` scenario.
struct ImportHARCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-har",
        abstract: "Turn a browser HAR 1.2 or a SAML-tracer JSON export into a replay scenario.",
        discussion: """
        Keeps the login chain (documents, redirects, form posts; not images, styles, scripts, \
        fonts), decodes every SAMLRequest/SAMLResponse, turns dynamic values (SAML IDs, \
        InResponseTo, RelayState, timestamps, cookies, tickets, CSRF tokens) into variables, and \
        writes a scenario that `samlharness serve --scenario FILE` replays on loopback. With \
        --redact, passwords, tokens, cookie values, session IDs and personal attributes are \
        removed and listed (never their values). Prints what it could not recover. \
        Exit 0 when written, 1 when the file cannot be imported, 2 on a usage error. \
        See docs/recorded-chains.md.
        """)

    @Argument(help: "The HAR (.har, Chrome or Firefox) or SAML-tracer export (.json).")
    var file: String

    @Option(help: "The scenario to write: a .yaml path whose name (without .yaml) becomes the scenario id.")
    var out: String

    @Flag(help: "Remove passwords, tokens, cookie values, session IDs and personal attributes, and list them.")
    var redact = false

    @Flag(inversion: .prefixedNo, help: ImportHARCommand.resignHelp)
    var resign: Bool?

    @Flag(help: "Overwrite --out when it exists.")
    var force = false

    @Flag(help: "Also list the exchanges left out and why.")
    var verbose = false

    var scenarioID: String { Self.scenarioID(out: out) }

    static let resignHelp = ArgumentHelp("Re-time and re-sign the SAML Responses with the harness test key at replay "
        + "(default: when a recorded message was signed).")

    static func scenarioID(out: String) -> String {
        URL(fileURLWithPath: out).deletingPathExtension().lastPathComponent
    }

    func validate() throws { try Self.validateOut(out, force: force) }

    /// `--out` names a new (or `--force`d) `.yaml` whose name is a scenario id.
    static func validateOut(_ out: String, force: Bool) throws {
        guard out.hasSuffix(".yaml") else { throw ValidationError("--out must name a .yaml file "
            + "(Scenarios/recorded/NAME.yaml)") }
        let id = scenarioID(out: out)
        let valid = id.range(of: "^[a-z0-9][a-z0-9._-]{2,95}$", options: .regularExpression) != nil
        guard valid else {
            throw ValidationError("--out: `\(id)` is not a scenario id (3–96 characters: lowercase letters, "
                + "digits, `.`, `_`, `-`)")
        }
        if FileManager.default.fileExists(atPath: out), !force {
            throw ValidationError("--out \(out) exists; pass --force to overwrite it")
        }
    }

    func run() throws {
        let result: ChainImporter.Result
        do {
            result = try ChainImporter.importFile(at: URL(fileURLWithPath: file),
                                                  options: .init(scenarioID: scenarioID, redact: redact, resign: resign))
        } catch let error as RecordedImportError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        // Unredacted, the scenario keeps the recording's passwords and tokens: private to this user.
        try Self.write(result, from: file, to: out, verbose: verbose, privately: !redact)
    }

    /// Writes the imported scenario to `out` (`privately`: mode 0600 from its creation, for a
    /// scenario that keeps passwords and tokens) and prints what was imported, left out, warned
    /// about and redacted.
    static func write(_ result: ChainImporter.Result, from file: String, to out: String, verbose: Bool, privately: Bool) throws {
        let chain = result.chain
        let yaml = try RecordedScenarioWriter.yaml(result.scenario)
        do {
            let url = URL(fileURLWithPath: out)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if privately {
                try PrivateFile.write(yaml, to: url.path)
            } else {
                try Data(yaml.utf8).write(to: url)
            }
        } catch {
            FileHandle.standardError.write(Data("error: cannot write \(out): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
        var lines: [String] = []
        lines.append("imported \(chain.entries.count) exchanges of \(file) (\(result.skipped.count) left out) over "
                     + chain.origins.map { "\($0.name)=\($0.url)" }.joined(separator: ", "))
        lines.append("messages: " + (chain.messages.isEmpty ? "none"
            : chain.messages.map { "\($0.name) (\($0.binding.rawValue), entry \($0.entry))" }.joined(separator: ", ")))
        lines.append("variables: \(chain.variables.count); re-sign: \(chain.resign ? "yes (harness test key)" : "no")")
        if verbose { lines += result.skipped.map { "left out: \($0)" } }
        lines += result.warnings.map { "warning: \($0)" }
        if let redactions = chain.redactions {
            lines += redactions.map { redaction in
                "redacted: \(redaction.category.rawValue) "
                    + (redaction.entry.map { "entry \($0) " } ?? "") + redaction.field
                    + (redaction.placeholder.map { " → \($0)" } ?? "")
            }
            lines.append("redacted \(redactions.count) item(s)")
        }
        lines.append("wrote \(out)")
        print(lines.joined(separator: "\n"))
    }
}
