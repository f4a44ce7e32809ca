import ArgumentParser
import SAMLCore

@main
struct SAMLHarnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samlharness",
        abstract: "SAML protocol conformance and test harness.",
        subcommands: [KeysCommand.self, BenchCommand.self]
    )
}
