import ArgumentParser
import Foundation
import SAMLCore

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a SAMLRequest/SAMLResponse value, URL, form body, HTML form or file into pretty XML, and explain what is wrong with its encoding.",
        discussion: """
        INPUT is the value itself, a Redirect-binding URL, a form body, or @FILE / - to read \
        a file or standard input (XML, base64, an HTML page with the IdP's auto-submit form). \
        With --expected (the value as it was sent), the diagnosis also names the first byte \
        that changed on the way.
        """
    )

    @Argument(help: "The value, URL or form body; @FILE to read a file; - for standard input.")
    var input: String

    @Option(help: "The value as originally sent (or @FILE), to compare against.")
    var expected: String?

    @Option(help: "Binding the value arrived through: post, redirect, or auto.")
    var binding: String = "auto"

    @Flag(help: "Print only the XML.")
    var xmlOnly = false

    func run() throws {
        let (raw, source) = try load(input)
        let loaded: MessageInput.Loaded
        do {
            loaded = try MessageInput.decode(raw, source: source)
        } catch let failure as MessageInput.Failure {
            print("error: \(failure.code): \(failure.message)")
            let diagnosis = EncodingDiagnoser.diagnose(raw.trimmingCharacters(in: .whitespacesAndNewlines),
                                                       binding: bindingValue, expected: try expected.map { try load($0).0 })
            if !diagnosis.isClean { print(diagnosis.report) }
            throw ExitCode(1)
        }
        let pretty: String
        do {
            pretty = try XMLDocument(parsing: loaded.xml).prettyPrinted()
        } catch let error as XMLError {
            // The bytes decoded, but they are no SAML message this harness will read (a
            // DOCTYPE, entities, 10,000-deep nesting, invalid UTF-8…): say so, never print
            // them as if they were fine.
            print("error: \(error.reason.rawValue): \(loaded.source) decodes to XML that is refused: \(error.message)"
                  + (error.line.map { " (line \($0))" } ?? ""))
            throw ExitCode(1)
        }
        print(pretty, terminator: pretty.hasSuffix("\n") ? "" : "\n")
        if xmlOnly { return }
        print("--")
        print("source: \(loaded.source)")
        if let relayState = loaded.relayState { print("RelayState: \(relayState)") }
        var findings: [String] = loaded.deviations.map { "\($0.code): \($0.message)\($0.offset.map { " (offset \($0))" } ?? "")" }
        var diagnosis = loaded.diagnosis
        if let expected {
            let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            diagnosis = EncodingDiagnoser.diagnose(value, binding: bindingValue, expected: try load(expected).0)
        }
        if let diagnosis {
            findings += diagnosis.findings.map { "\($0.code): \($0.message)\($0.offset.map { " (offset \($0))" } ?? "")" }
        }
        if findings.isEmpty {
            print("encoding: clean (no deviation from the binding rules)")
        } else {
            print("encoding: \(findings.count) finding(s)")
            for f in findings { print("  - \(f)") }
        }
    }

    private var bindingValue: EncodingDiagnoser.Binding {
        switch binding {
        case "post": .post
        case "redirect": .redirect
        default: .unknown
        }
    }

    private func load(_ argument: String) throws -> (String, String) {
        do {
            if argument == "-" { return (try MessageInput.read(path: "-"), "standard input") }
            if argument.hasPrefix("@") {
                let path = String(argument.dropFirst())
                return (try MessageInput.read(path: path), path)
            }
        } catch let failure as MessageInput.Failure {
            FileHandle.standardError.write(Data("error: \(failure)\n".utf8))
            // Bytes that are not UTF-8 text are a bad message (1), like anything else wrong
            // with its content; a file that cannot be read at all is a usage error (2).
            throw ExitCode(failure.code == "input.invalid-utf8" ? 1 : 2)
        }
        return (argument, "argument")
    }
}
