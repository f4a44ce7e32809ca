import ArgumentParser
import Foundation
import Harness
import MockServers

/// `samlharness list`: the catalog, one scenario a line (id, flow, tags, title); every file
/// validated on the way, so it doubles as the catalog's linter.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the scenario catalog (id, flow, tags, title), validating every file.",
        discussion: """
        FILTER: terms separated by spaces, all of which must hold — an id glob (web-sso.*), \
        tag:NAME, flow:NAME, check:ID, profile:NAME, outcome:success|failure; a leading '-' \
        negates a term. Repeat --filter to select the union. Exit 0 when every file is valid, \
        2 when any is not (each problem printed as FILE:LINE: message on stderr) or when --filter \
        matches nothing.
        """)

    @Argument(help: "Scenario files or folders (default: the Scenarios/ catalog).")
    var positionalPaths: [String] = []

    @Option(name: .customLong("scenarios"), parsing: .upToNextOption, help: "Scenario files or folders (as `run --scenarios`; same as the positional paths).")
    var scenarioPaths: [String] = []

    var paths: [String] { positionalPaths + scenarioPaths }

    @Option(name: .customLong("filter"), help: "Select scenarios (see below); repeatable.")
    var filters: [String] = []

    @Option(name: .customLong("mockidp-dir"), help: "The MockIdP/ directory (default: found above the working directory).")
    var mockIdPDirectory: String?

    @Flag(help: "Print the checks scenarios can name (id, flows, purpose, reference) instead.")
    var checks = false

    @Flag(help: "One JSON object a line instead of columns.")
    var json = false

    @Flag(help: "With --checks: print docs/checks.md (Markdown).")
    var markdown = false

    @Flag(help: "Print only the number of scenarios selected.")
    var count = false

    func validate() throws {
        do { _ = try ScenarioFilter(filters) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        if checks {
            if markdown { print(CheckDocumentation.markdown(), terminator: "") } else { printChecks() }
            return
        }
        let catalog: ScenarioCatalog
        do {
            let mockIdP = try MockIdPDirectory.locate(explicit: mockIdPDirectory)
            let urls = try paths.isEmpty ? [ScenariosDirectory.locate(mockIdP: mockIdP)] : paths.map { URL(fileURLWithPath: $0) }
            catalog = ScenarioCatalog.load(paths: urls, loader: ScenarioLoader(mockIdPDirectory: mockIdP))
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let selected = catalog.selecting(try ScenarioFilter(filters))
        // As `run`: a filter that matches nothing is a mistake (a typo in a tag), not an answer.
        if selected.isEmpty, !filters.isEmpty, catalog.problems.isEmpty {
            if count { print(0) }
            FileHandle.standardError.write(Data(("error: no scenario matches " + filters.map { "--filter '\($0)'" }.joined(separator: " ")
                + " (\(catalog.scenarios.count) scenarios read; tags: `samlharness list` shows them)\n").utf8))
            throw ExitCode(2)
        }
        if count {
            print(selected.count)
        } else if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for scenario in selected {
                let line = ListLine(id: scenario.id, flow: scenario.flow.rawValue, tags: scenario.tags, title: scenario.title,
                                    outcome: scenario.expect.outcome.rawValue, profile: scenario.profile,
                                    file: scenario.source?.file ?? "")
                print(String(decoding: try encoder.encode(line), as: UTF8.self))
            }
        } else {
            let idWidth = min(56, selected.map(\.id.count).max() ?? 0)
            let flowWidth = selected.map(\.flow.rawValue.count).max() ?? 0
            for scenario in selected {
                print(pad(scenario.id, idWidth) + "  " + pad(scenario.flow.rawValue, flowWidth) + "  "
                      + scenario.tags.joined(separator: ",") + "  " + scenario.title)
            }
        }
        for problem in catalog.problems {
            FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
        }
        if !catalog.problems.isEmpty {
            FileHandle.standardError.write(Data("\(catalog.problems.count) problem(s); \(catalog.scenarios.count) scenario(s) valid\n".utf8))
            throw ExitCode(2)
        }
    }

    struct ListLine: Encodable {
        let id: String
        let flow: String
        let tags: [String]
        let title: String
        let outcome: String
        let profile: String?
        let file: String
    }

    func printChecks() {
        let width = CheckCatalog.ids.map(\.count).max() ?? 0
        for check in CheckCatalog.all {
            let flows = check.flows.isEmpty ? "all flows" : check.flows.sorted().map(\.rawValue).joined(separator: ",")
            print(pad(check.id, width) + "  " + check.purpose + " [" + flows + "] (" + check.reference + ")")
        }
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
