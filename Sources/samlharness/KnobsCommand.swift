import ArgumentParser
import MockServers

/// `samlharness knobs`: the misconfiguration knobs, one a line (or a Markdown table), with
/// the reason code a stock Shibboleth SP (the mock SP's default personality) and a strict SP
/// answer each with.
struct KnobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "knobs",
        abstract: "List the mocks' misconfiguration knobs: what each does, and the reason code a stock Shibboleth SP and a strict SP answer (— : accepted, or the Response is not broken).")

    @Flag(help: "Print a Markdown table (as in MockIdP/README.md).")
    var markdown = false

    func run() throws {
        let stock = SPRules()
        if markdown {
            print("| knob | what the mock does | stock Shibboleth SP | strict SP |")
            print("|---|---|---|---|")
        } else {
            // A header as the other listings have; `#` so that a script reading the columns
            // can skip it.
            print("# knob\tstock Shibboleth SP\tstrict SP\twhat the mock does (\(Knob.names.count) knobs, \(Knob.examples.count) settings)")
        }
        for knob in Knob.examples {
            let strict = knob.expectedSPReason
            let shibboleth = knob.expectedSPReason(under: stock)
            if markdown {
                print("| `\(knob.text)` | \(knob.summary) | \(shibboleth.map { "`\($0)`" } ?? "—") | \(strict.map { "`\($0)`" } ?? "—") |")
            } else {
                print("\(knob.text)\t\(shibboleth ?? "—")\t\(strict ?? "—")\t\(knob.summary)")
            }
        }
    }
}
