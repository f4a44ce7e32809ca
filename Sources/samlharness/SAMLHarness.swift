import ArgumentParser
import Foundation
import SAMLCore

@main
struct SAMLHarnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samlharness",
        abstract: "SAML protocol conformance and test harness.",
        subcommands: [DecodeCommand.self, VerifyResponseCommand.self, KeysCommand.self,
                      SelfCheckCommand.self, BenchCommand.self, ServeCommand.self, KnobsCommand.self, LoadCommand.self,
                      ListCommand.self, ImportHARCommand.self, RecordCommand.self, RecordingCACommand.self, RunCommand.self, ReportCommand.self, AttackSPCommand.self]
    )

    /// Usage errors exit 2 (DESIGN.md's CLI contract), not ArgumentParser's 64.
    static func main() async {
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
