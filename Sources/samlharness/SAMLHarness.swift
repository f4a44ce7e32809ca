import ArgumentParser
import Foundation
import Harness
import SAMLCore

@main
struct SAMLHarnessCommand: AsyncParsableCommand {
    /// The verbs in the order a newcomer needs them: judge a client, reproduce by hand, look
    /// into a message, then the tools around them. Conventions across verbs: scenario paths are
    /// positional (`list PATH…`, `run PATH…`); `--filter` selects, and a selection that matches
    /// nothing is a usage error (exit 2); `--json` prints JSON on standard output, `--json-out
    /// FILE` writes it to a file; `--time-scale F` multiplies every deliberate wait by F.
    static let configuration = CommandConfiguration(
        commandName: "samlharness",
        abstract: "SAML protocol conformance and test harness.",
        discussion: "Start with `samlharness run --builtin reference` (the catalog against the reference client) or "
            + "`samlharness run --client 'CMD' --filter flow:web-sso` (your client). docs/cli.md has every verb.",
        version: "samlharness \(HarnessVersion.current)",
        groupedSubcommands: [
            CommandGroup(name: "Judge a client", subcommands: [RunCommand.self, ListCommand.self, ReportCommand.self]),
            CommandGroup(name: "Reproduce by hand", subcommands: [ServeCommand.self, KnobsCommand.self, RecordCommand.self,
                                                                  ImportHARCommand.self, RecordingCACommand.self]),
            CommandGroup(name: "Look into a message", subcommands: [DecodeCommand.self, VerifyResponseCommand.self]),
            CommandGroup(name: "Test a service provider", subcommands: [AttackSPCommand.self]),
            CommandGroup(name: "Measure and set up", subcommands: [LoadCommand.self, BenchCommand.self, SelfCheckCommand.self,
                                                                   KeysCommand.self]),
        ]
    )

    /// Usage errors exit 2 (DESIGN.md's CLI contract), not ArgumentParser's 64.
    static func main() async {
        // `--version` names the commit too (BuildInfo): looked up only when asked, not at every
        // start, so ArgumentParser's own version string stays the plain one.
        if CommandLine.arguments.dropFirst().first == "--version" {
            print(BuildInfo.versionLine())
            return
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
