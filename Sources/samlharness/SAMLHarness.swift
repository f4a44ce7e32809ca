import ArgumentParser
import Foundation
import SAMLCore

@main
struct SAMLHarnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samlharness",
        abstract: "SAML protocol conformance and test harness.",
        subcommands: [DecodeCommand.self, VerifyResponseCommand.self, KeysCommand.self,
                      SelfCheckCommand.self, BenchCommand.self]
    )

    /// Usage errors exit 2 (DESIGN.md's CLI contract), not ArgumentParser's 64.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
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
