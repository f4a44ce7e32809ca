import ArgumentParser
import MockServers

/// `samlharness knobs`: the misconfiguration knobs, one a line (or a Markdown table).
struct KnobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "knobs",
        abstract: "List the mocks' misconfiguration knobs: what each does and the reason code a strict SP answers.")

    @Flag(help: "Print a Markdown table (as in MockIdP/README.md).")
    var markdown = false

    func run() throws {
        if markdown {
            print("| knob | what the mock does | strict SP's reason |")
            print("|---|---|---|")
        }
        for knob in Knob.examples {
            let reason = knob.expectedSPReason ?? "—"
            if markdown {
                print("| `\(knob.text)` | \(knob.summary) | \(knob.expectedSPReason.map { "`\($0)`" } ?? "—") |")
            } else {
                print("\(knob.text)\t\(reason)\t\(knob.summary)")
            }
        }
    }
}
